package dev.distlock.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;

/**
 * Where the suite writes worker output and its measured figures: {@code reliability/target/reliability/}, with every
 * figure also appended to {@code figures.txt} there so a run's numbers can be quoted.
 */
final class Reports {

	private Reports() {
	}

	/**
	 * The report directory, created on first use.
	 */
	static Path dir() {
		Path dir = Path.of(System.getProperty("reliability.reportDir", "target/reliability"));
		try {
			return Files.createDirectories(dir);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Records one measured figure, such as {@code redis.fuzz.intervals=6000}.
	 */
	static synchronized void figure(String name, Object value) {
		String line = Instant.now() + " " + name + "=" + value;
		System.out.println("[figure] " + line);
		try {
			Files.writeString(dir().resolve("figures.txt"), line + "\n", StandardOpenOption.CREATE,
					StandardOpenOption.APPEND);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * A system property set by the pom, with the default used when a test runs from an IDE.
	 */
	static int intProperty(String name, int defaultValue) {
		return Integer.getInteger(name, defaultValue);
	}

}
