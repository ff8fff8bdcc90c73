package dev.distlock.samples;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

import dev.distlock.core.LockTemplate;
import dev.distlock.core.memory.InMemoryLockProvider;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Boots the sample on the default profile (no server needed) and debits one account concurrently over HTTP.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "sample.report.initial-delay=1h")
class SampleApplicationTests {

	@Value("${local.server.port}")
	private int port;

	@Test
	void concurrentDebitsOfOneAccountTakeTurns(@Autowired LockTemplate locks) throws Exception {
		assertThat(locks.provider()).isInstanceOf(InMemoryLockProvider.class);
		HttpClient client = HttpClient.newHttpClient();
		HttpRequest debit = HttpRequest.newBuilder(url("/accounts/dana/debit?amount=10"))
			.POST(HttpRequest.BodyPublishers.noBody())
			.build();
		List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			responses.add(client.sendAsync(debit, HttpResponse.BodyHandlers.ofString()));
		}
		for (CompletableFuture<HttpResponse<String>> response : responses) {
			assertThat(response.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
		}
		HttpResponse<String> balance = client.send(
				HttpRequest.newBuilder(url("/accounts/dana")).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(balance.body()).contains("\"balance\":70");
	}

	private URI url(String path) {
		return URI.create("http://localhost:" + port + path);
	}

}
