package dev.distlock.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;

import org.jspecify.annotations.Nullable;

import dev.distlock.benchmarks.jmh.AnnotationOverhead;
import dev.distlock.benchmarks.mongo.MongoEndpoint;

/**
 * Runs every suite (Redis arms, Mongo arms, JDBC arms, the JMH annotation benchmark) in one JVM and prints one
 * Markdown report with the ratios of this run. Progress goes to standard error; the report to standard output and to
 * {@code target/benchmark-report.md} beside the jar's working directory.
 */
public final class BenchmarkMain {

	private BenchmarkMain() {
	}

	/**
	 * Runs the benchmarks; see {@link Settings} for the {@code -Dbench.*} properties.
	 */
	public static void main(String[] args) {
		// Netty falls back to java.util.logging when SLF4J has no provider; shutdown chatter must not reach the table.
		LogManager.getLogManager().reset();
		Logger.getLogger("").setLevel(Level.OFF);
		Settings settings = Settings.fromSystemProperties();
		LoadAverage load = LoadAverage.start();
		long start = System.nanoTime();
		RedisSuite.Results redis = settings.runs("redis") ? RedisSuite.run(settings) : null;
		List<MongoSuite.Results> mongo = new ArrayList<>();
		if (settings.runs("mongo")) {
			try (MongoEndpoint wire = MongoEndpoint.wireServer()) {
				mongo.add(MongoSuite.run(wire, settings));
			}
			MongoEndpoint real = MongoEndpoint.fromEnvironment();
			if (real != null) {
				mongo.add(MongoSuite.run(real, settings));
			}
		}
		List<JdbcSuite.Results> jdbc = settings.runs("jdbc") ? JdbcSuite.run(settings) : List.of();
		AnnotationOverhead.@Nullable Results jmh = settings.runs("jmh") ? AnnotationOverhead.run() : null;
		String report = new Report(settings, redis, mongo, jdbc, jmh, (System.nanoTime() - start) / 1e9,
				load.describe()).render();
		System.out.println(report);
		write(Path.of(System.getProperty("bench.report", "benchmarks/target/benchmark-report.md")), report);
		// Client libraries leave non-daemon threads behind; the run is over.
		System.exit(0);
	}

	private static void write(Path path, String report) {
		try {
			if (path.toAbsolutePath().getParent() != null && Files.isDirectory(path.toAbsolutePath().getParent())) {
				Files.writeString(path, report);
				Progress.say("Report written to " + path);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
