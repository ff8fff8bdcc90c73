package dev.distlock.autoconfigure.web;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same mapping in a WebFlux application, for {@code Mono} and plain endpoints.
 */
@SpringBootTest(classes = SeatsApplication.class, properties = { "spring.main.web-application-type=reactive",
		"distributed-lock.key-prefix=shop:", "logging.level.dev.distlock.autoconfigure.web=debug" })
@ExtendWith(OutputCaptureExtension.class)
class LockProblemDetailsWebFluxTest {

	private static final LockOptions THIRTY_SECONDS = LockOptions.builder().timeout(Duration.ofSeconds(30)).build();

	@Autowired
	private ApplicationContext context;

	@Autowired
	private LockTemplate template;

	@Autowired
	private SeatsApplication.SwitchableStore store;

	private WebTestClient client;

	@BeforeEach
	void bindClient() {
		client = WebTestClient.bindToApplicationContext(context).build();
	}

	@AfterEach
	void storeUp() {
		store.down = false;
	}

	@Test
	void heldLockIsA409ProblemWithKeyAttemptsWaitedAndRetryAfter(CapturedOutput output) {
		try (LockHandle held = template.acquire("seat:7", THIRTY_SECONDS)) {
			int logged = output.length();
			for (String uri : new String[] { "/seats/7/hold", "/seats/7" }) {
				client.post()
					.uri(uri)
					.exchange()
					.expectStatus()
					.isEqualTo(409)
					.expectHeader()
					.contentType(MediaType.APPLICATION_PROBLEM_JSON)
					.expectHeader()
					.value(HttpHeaders.RETRY_AFTER, value -> assertThat(Long.parseLong(value)).isBetween(1L, 30L))
					.expectBody()
					.jsonPath("$.status")
					.isEqualTo(409)
					.jsonPath("$.key")
					.isEqualTo("shop:seat:7")
					.jsonPath("$.attempts")
					.isEqualTo(1)
					.jsonPath("$.waited")
					.value(String.class, waited -> assertThat(waited).startsWith("PT"))
					.jsonPath("$.detail")
					.value(String.class,
							detail -> assertThat(detail).startsWith("Could not acquire lock 'shop:seat:7'"));
			}
			String log = output.toString().substring(logged);
			assertThat(log).contains("Answering 409 Conflict: Could not acquire lock 'shop:seat:7'");
			assertThat(log).doesNotContain("ERROR").doesNotContain("WARN");
		}
		client.post().uri("/seats/7/hold").exchange().expectStatus().isOk().expectBody(String.class).isEqualTo("held 7");
	}

	@Test
	void lockHeldByAnotherInstanceHasNoRetryAfter() {
		try (LockTemplate otherInstance = LockTemplate.builder(template.provider()).keyPrefix("shop:").build();
				LockHandle held = otherInstance.acquire("seat:8", THIRTY_SECONDS)) {
			client.post()
				.uri("/seats/8/hold")
				.exchange()
				.expectStatus()
				.isEqualTo(409)
				.expectHeader()
				.doesNotExist(HttpHeaders.RETRY_AFTER);
		}
	}

	@Test
	void unreachableStoreIsA503() {
		store.down = true;
		client.post()
			.uri("/seats/10/hold")
			.exchange()
			.expectStatus()
			.isEqualTo(503)
			.expectHeader()
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.expectBody()
			.jsonPath("$.detail")
			.isEqualTo("The lock store could not be reached")
			.jsonPath("$.key")
			.isEqualTo("shop:seat:10");
	}

	@Test
	void keyBuiltFromANullParameterIsA400() {
		client.get()
			.uri("/notes")
			.exchange()
			.expectStatus()
			.isEqualTo(400)
			.expectBody()
			.jsonPath("$.detail")
			.isEqualTo("The lock key built from the request is not valid");
	}

}
