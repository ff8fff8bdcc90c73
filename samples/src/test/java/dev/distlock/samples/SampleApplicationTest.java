package dev.distlock.samples;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.jayway.jsonpath.JsonPath;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.memory.InMemoryLockProvider;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Boots the sample on the default profile (no server needed) and runs the README's curl lines over HTTP, asserting
 * what they show. Another instance is played by the app's own {@link LockTemplate}: on the in-memory store its locks
 * are the ones the annotated methods contend with.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "sample.report.initial-delay=1h")
class SampleApplicationTest {

	private static final LockOptions READER = LockOptions.builder().shared(2).build();

	private final HttpClient client = HttpClient.newHttpClient();

	@Value("${local.server.port}")
	private int port;

	@Autowired
	private LockTemplate locks;

	@Test
	void concurrentDebitsOfOneAccountTakeTurns() throws Exception {
		assertThat(locks.provider()).isInstanceOf(InMemoryLockProvider.class);
		List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			responses.add(sendAsync(post("/accounts/dana/debit?amount=10", null)));
		}
		List<Long> tokens = new ArrayList<>();
		for (CompletableFuture<HttpResponse<String>> response : responses) {
			HttpResponse<String> debit = response.get(30, TimeUnit.SECONDS);
			assertThat(debit.statusCode()).isEqualTo(200);
			tokens.add(((Number) JsonPath.read(debit.body(), "$.fencingToken")).longValue());
		}
		assertThat(tokens).doesNotHaveDuplicates();
		assertThat(send(get("/accounts/dana")).body()).contains("\"balance\":70");
	}

	@Test
	void documentWritesCarryGrowingTokensAndAStaleReplayIsRefusedWith409() throws Exception {
		HttpResponse<String> first = send(put("/documents/readme", "first"));
		HttpResponse<String> second = send(put("/documents/readme", "second"));
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(second.statusCode()).isEqualTo(200);
		assertThat((String) JsonPath.read(second.body(), "$.text")).isEqualTo("second");
		long firstToken = ((Number) JsonPath.read(first.body(), "$.fencingToken")).longValue();
		long secondToken = ((Number) JsonPath.read(second.body(), "$.fencingToken")).longValue();
		assertThat(secondToken).isGreaterThan(firstToken);

		HttpResponse<String> replay = send(post("/documents/readme/replay?token=" + firstToken, "stale"));
		assertThat(replay.statusCode()).isEqualTo(409);
		assertThat((String) JsonPath.read(replay.body(), "$.error"))
			.isEqualTo("Refused: token " + firstToken + " is older than " + secondToken);
		// The README's line replays token 1, older than any write's.
		assertThat(send(post("/documents/readme/replay?token=1", "stale")).statusCode()).isEqualTo(409);

		HttpResponse<String> stored = send(get("/documents/readme"));
		assertThat(stored.statusCode()).isEqualTo(200);
		assertThat((String) JsonPath.read(stored.body(), "$.text")).isEqualTo("second");
		assertThat(((Number) JsonPath.read(stored.body(), "$.fencingToken")).longValue()).isEqualTo(secondToken);
		assertThat(send(get("/documents/nothing")).statusCode()).isEqualTo(404);
	}

	@Test
	void fiveParallelPriceMissesCostOneComputation() throws Exception {
		List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			responses.add(sendAsync(get("/prices/sku-42")));
		}
		List<String> bodies = new ArrayList<>();
		for (CompletableFuture<HttpResponse<String>> response : responses) {
			HttpResponse<String> price = response.get(30, TimeUnit.SECONDS);
			assertThat(price.statusCode()).isEqualTo(200);
			bodies.add(price.body());
		}
		long cents = ((Number) JsonPath.read(bodies.get(0), "$.cents")).longValue();
		assertThat(bodies).containsOnly("{\"sku\":\"sku-42\",\"cents\":" + cents + ",\"computations\":1}");
		assertThat(send(get("/prices/sku-42")).body())
			.isEqualTo("{\"sku\":\"sku-42\",\"cents\":" + cents + ",\"computations\":1}");
	}

	@Test
	void sharedCatalogLockAdmitsAtMostTwoReaders() throws Exception {
		List<CompletableFuture<HttpResponse<String>>> reads = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			reads.add(sendAsync(get("/catalog/books")));
		}
		for (CompletableFuture<HttpResponse<String>> read : reads) {
			HttpResponse<String> response = read.get(30, TimeUnit.SECONDS);
			assertThat(response.statusCode()).isEqualTo(200);
			assertThat((Integer) JsonPath.read(response.body(), "$.readersNow")).isBetween(1, 2);
			assertThat((Integer) JsonPath.read(response.body(), "$.mostReaders")).isBetween(1, 2);
		}
		// Two readers elsewhere fill the lock: a third waits until one leaves, then reads beside the other.
		try (LockHandle leaving = locks.acquire("catalog:books", READER);
				LockHandle staying = locks.acquire("catalog:books", READER)) {
			CompletableFuture<HttpResponse<String>> third = sendAsync(get("/catalog/books"));
			Thread.sleep(500); // time to reach the lock; it cannot get in however long it tries
			assertThat(third).isNotDone();
			leaving.release();
			HttpResponse<String> read = third.get(30, TimeUnit.SECONDS);
			assertThat(read.statusCode()).isEqualTo(200);
			assertThat((Integer) JsonPath.read(read.body(), "$.readersNow")).isEqualTo(1);
			assertThat(staying.isHeld()).isTrue();
		}
	}

	@Test
	void catalogRebuildWaitsForTheReadersAndRunsAlone() throws Exception {
		CompletableFuture<HttpResponse<String>> rebuild;
		try (LockHandle reader = locks.acquire("catalog:music", READER)) {
			rebuild = sendAsync(post("/catalog/music/rebuild", null));
			Thread.sleep(500); // time to reach the lock; it cannot get in however long it tries
			assertThat(rebuild).isNotDone();
		}
		HttpResponse<String> rebuilt = rebuild.get(30, TimeUnit.SECONDS);
		assertThat(rebuilt.statusCode()).isEqualTo(200);
		assertThat((String) JsonPath.read(rebuilt.body(), "$.catalog")).isEqualTo("music");
		assertThat((Integer) JsonPath.read(rebuilt.body(), "$.readersNow")).isZero();
	}

	private HttpResponse<String> send(HttpRequest request) throws Exception {
		return client.send(request, HttpResponse.BodyHandlers.ofString());
	}

	private CompletableFuture<HttpResponse<String>> sendAsync(HttpRequest request) {
		return client.sendAsync(request, HttpResponse.BodyHandlers.ofString());
	}

	private HttpRequest get(String path) {
		return request(path).GET().build();
	}

	private HttpRequest put(String path, String text) {
		return request(path).header("Content-Type", "text/plain")
			.PUT(HttpRequest.BodyPublishers.ofString(text))
			.build();
	}

	private HttpRequest post(String path, @Nullable String text) {
		HttpRequest.Builder builder = request(path);
		if (text == null) {
			return builder.POST(HttpRequest.BodyPublishers.noBody()).build();
		}
		return builder.header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString(text)).build();
	}

	private HttpRequest.Builder request(String path) {
		return HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).timeout(Duration.ofSeconds(30));
	}

}
