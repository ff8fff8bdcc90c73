package dev.distlock.samples;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.redis.testsupport.RedisServerProcess;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample as Spring Boot's {@code process-aot} left it, started as a child JVM with {@code -Dspring.aot.enabled=true}
 * on the default (in-memory) profile and on the redis profile against a private redis-server, taking locks over HTTP.
 * Run by {@code -Paot verify}, which processes the two copies this test reads.
 */
class SampleAotIT {

	// Generous: a cold JVM on a busy two-core machine; only a hung start waits this long.
	private static final Duration STARTUP = Duration.ofMinutes(3);

	private static final Duration CALL = Duration.ofSeconds(60);

	// The default namespace, and the sample's key prefix before the key; see docs/REDIS.md for the layout.
	private static final String LOCK_KEY = "distlock:{sample:account:aot}";

	private final HttpClient client = HttpClient.newHttpClient();

	@TempDir
	private Path logs;

	@Test
	void theAotBuildGeneratedTheInitializerAndTheLockProxiesForBothProfiles() {
		for (Path classes : List.of(aotClasses("distlock.aot.in-memory"), aotClasses("distlock.aot.redis"))) {
			Path samples = classes.resolve("dev/distlock/samples");
			assertThat(samples.resolve("SampleApplication__ApplicationContextInitializer.class")).exists();
			// The @DistributedLock beans' CGLIB proxies, generated at build time as a native image needs them.
			assertThat(samples.resolve("AccountService$$SpringCGLIB$$0.class")).exists();
			assertThat(samples.resolve("CatalogService$$SpringCGLIB$$0.class")).exists();
		}
	}

	@Test
	void theGeneratedReachabilityMetadataCarriesTheDistlockHints() throws IOException {
		for (Path classes : List.of(aotClasses("distlock.aot.in-memory"), aotClasses("distlock.aot.redis"))) {
			String metadata = Files.readString(
					classes.resolve("META-INF/native-image/dev.distlock/samples/reachability-metadata.json"));
			// From RedisRuntimeHints and DistributedLockRuntimeHints, through their aot.factories.
			assertThat(metadata).contains("\"glob\": \"dev\\/distlock\\/redis\\/*.lua\"")
				.contains("\"type\": \"dev.distlock.spring.LockExpressionRoot\"")
				.contains("\"type\": \"dev.distlock.autoconfigure.actuate.LocksDescriptor$StoreLock\"");
		}
	}

	@Test
	void theInMemoryDefaultTakesTheLockInAotMode() throws Exception {
		int port = RedisServerProcess.freePort(false);
		try (App app = App.start(aotClasses("distlock.aot.in-memory"), logs.resolve("in-memory.log"),
				"--server.port=" + port)) {
			awaitUp(app, port);
			assertThat(app.log()).contains("Starting AOT-processed SampleApplication");

			// Two debits of one account at once take turns under the lock: distinct tokens, both applied.
			List<CompletableFuture<HttpResponse<String>>> debits = new ArrayList<>();
			for (int i = 0; i < 2; i++) {
				debits.add(client.sendAsync(post(port, "/accounts/aot/debit?amount=10"),
						HttpResponse.BodyHandlers.ofString()));
			}
			Set<Long> tokens = new HashSet<>();
			for (CompletableFuture<HttpResponse<String>> debit : debits) {
				HttpResponse<String> response = debit.get(CALL.toSeconds(), TimeUnit.SECONDS);
				assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
				assertThat((Boolean) JsonPath.read(response.body(), "$.accepted")).isTrue();
				tokens.add(((Number) JsonPath.read(response.body(), "$.fencingToken")).longValue());
			}
			assertThat(tokens).hasSize(2).allSatisfy(token -> assertThat(token).isPositive());
			assertThat(get(port, "/accounts/aot").body()).contains("\"balance\":80");
		}
	}

	@Test
	void theRedisProfileTakesTheLockInRedisInAotMode() throws Exception {
		int port = RedisServerProcess.freePort(false);
		try (RedisServerProcess redis = RedisServerProcess.startOnFreePort()) {
			LettuceConnectionFactory factory = redis.connectionFactory(Duration.ofSeconds(10));
			try (App app = App.start(aotClasses("distlock.aot.redis"), logs.resolve("redis.log"),
					"--server.port=" + port, "--spring.profiles.active=redis",
					"--spring.data.redis.port=" + redis.port(), "--spring.data.redis.host=127.0.0.1")) {
				StringRedisTemplate store = new StringRedisTemplate(factory);
				awaitUp(app, port);
				assertThat(app.log()).contains("Starting AOT-processed SampleApplication");

				// Connected before the debit, so the polls below are one round trip each.
				assertThat(store.hasKey(LOCK_KEY)).isFalse();
				// The debit holds its lock for 300 ms: the lock key is in Redis while it runs, and gone after.
				CompletableFuture<HttpResponse<String>> debit = client.sendAsync(post(port, "/accounts/aot/debit?amount=10"),
						HttpResponse.BodyHandlers.ofString());
				boolean seenWhileHeld = false;
				while (!debit.isDone()) {
					seenWhileHeld |= Boolean.TRUE.equals(store.hasKey(LOCK_KEY));
				}
				HttpResponse<String> response = debit.get(CALL.toSeconds(), TimeUnit.SECONDS);
				assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
				long token = ((Number) JsonPath.read(response.body(), "$.fencingToken")).longValue();
				assertThat(token).isPositive();
				assertThat(seenWhileHeld).as("the lock key in Redis while the debit ran; now: %s", store.keys("*")).isTrue();
				assertThat(store.hasKey(LOCK_KEY)).isFalse();
				// The fence hash outlives the hold and carries the token the response showed.
				assertThat(store.<String, String>opsForHash().get(LOCK_KEY + ":fence", "n")).isEqualTo(Long.toString(token));
			}
			finally {
				factory.destroy();
			}
		}
	}

	private void awaitUp(App app, int port) throws Exception {
		long deadline = System.nanoTime() + STARTUP.toNanos();
		while (System.nanoTime() < deadline) {
			assertThat(app.process.isAlive()).as("the app exited:%n%s", app.log()).isTrue();
			try {
				if (get(port, "/actuator/health").statusCode() == 200) {
					return;
				}
			}
			catch (IOException notYetListening) {
				// retried below
			}
			Thread.sleep(200);
		}
		throw new AssertionError("Not up within " + STARTUP + ":\n" + app.log());
	}

	private HttpResponse<String> get(int port, String path) throws Exception {
		return client.send(HttpRequest.newBuilder(uri(port, path)).timeout(CALL).GET().build(),
				HttpResponse.BodyHandlers.ofString());
	}

	private static HttpRequest post(int port, String path) {
		return HttpRequest.newBuilder(uri(port, path)).timeout(CALL).POST(HttpRequest.BodyPublishers.noBody()).build();
	}

	private static URI uri(int port, String path) {
		return URI.create("http://127.0.0.1:" + port + path);
	}

	private static Path aotClasses(String property) {
		String directory = System.getProperty(property);
		assertThat(directory).as("system property %s: run with -Paot", property).isNotNull();
		return Paths.get(directory);
	}

	/**
	 * The AOT-processed app in a child JVM: its classes first, then the test's class path without this module's own
	 * unprocessed classes.
	 */
	private record App(Process process, Path logFile) implements AutoCloseable {

		static App start(Path classes, Path logFile, String... args) throws IOException {
			String buildClasses = Paths.get(System.getProperty("distlock.aot.build-classes")).toString();
			String classPath = classes + File.pathSeparator + Arrays
				.stream(System.getProperty("java.class.path").split(File.pathSeparator))
				.filter(entry -> !Paths.get(entry).toString().equals(buildClasses))
				.collect(Collectors.joining(File.pathSeparator));
			List<String> command = new ArrayList<>(List.of(
					Paths.get(System.getProperty("java.home"), "bin", "java").toString(), "-Dspring.aot.enabled=true",
					"-cp", classPath, SampleApplication.class.getName(), "--sample.report.initial-delay=1h"));
			command.addAll(List.of(args));
			Process process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(logFile.toFile())
				.start();
			return new App(process, logFile);
		}

		String log() throws IOException {
			return Files.exists(logFile) ? Files.readString(logFile) : "";
		}

		@Override
		public void close() throws InterruptedException {
			process.destroy();
			if (!process.waitFor(30, TimeUnit.SECONDS)) {
				process.destroyForcibly().waitFor();
			}
		}

	}

}
