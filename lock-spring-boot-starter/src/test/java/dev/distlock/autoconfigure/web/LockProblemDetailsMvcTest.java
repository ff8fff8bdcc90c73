package dev.distlock.autoconfigure.web;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.test.web.servlet.assertj.MvcTestResult;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * In a Spring MVC application, lock errors become problem details: 409 with the key, attempts, wait and (when this
 * instance holds the lock) {@code Retry-After}; 503 without the store's internals; 400 for a key that cannot be built.
 * Contention is logged at debug, and nothing at warn or error.
 */
@SpringBootTest(classes = SeatsApplication.class, properties = { "spring.main.web-application-type=servlet",
		"distributed-lock.key-prefix=shop:", "logging.level.dev.distlock.autoconfigure.web=debug" })
@AutoConfigureMockMvc
@ExtendWith(OutputCaptureExtension.class)
class LockProblemDetailsMvcTest {

	private static final LockOptions THIRTY_SECONDS = LockOptions.builder().timeout(Duration.ofSeconds(30)).build();

	@Autowired
	private MockMvcTester mvc;

	@Autowired
	private LockTemplate template;

	@Autowired
	private SeatsApplication.SwitchableStore store;

	@AfterEach
	void storeUp() {
		store.down = false;
	}

	@Test
	void heldLockIsA409ProblemWithKeyAttemptsWaitedAndRetryAfter(CapturedOutput output) {
		try (LockHandle held = template.acquire("seat:7", THIRTY_SECONDS)) {
			int logged = output.length();
			MvcTestResult result = mvc.post().uri("/seats/7").exchange();
			assertThat(result).hasStatus(HttpStatus.CONFLICT).hasContentType(MediaType.APPLICATION_PROBLEM_JSON);
			assertThat(result).bodyJson().extractingPath("$.status").isEqualTo(409);
			assertThat(result).bodyJson().extractingPath("$.title").isEqualTo("Conflict");
			assertThat(result).bodyJson().extractingPath("$.key").isEqualTo("shop:seat:7");
			assertThat(result).bodyJson().extractingPath("$.attempts").isEqualTo(1);
			assertThat(result).bodyJson().extractingPath("$.waited").asString().startsWith("PT");
			assertThat(result).bodyJson().extractingPath("$.instance").isEqualTo("/seats/7");
			assertThat(result).bodyJson()
				.extractingPath("$.detail")
				.asString()
				.startsWith("Could not acquire lock 'shop:seat:7' after 1 attempt(s)");
			// This instance holds it, 30 s lease: Retry-After is what is left of it, rounded up to whole seconds.
			assertThat(Long.parseLong(result.getResponse().getHeader(HttpHeaders.RETRY_AFTER))).isBetween(1L, 30L);
			String log = output.toString().substring(logged);
			assertThat(log).contains("DEBUG").contains("Answering 409 Conflict: Could not acquire lock 'shop:seat:7'");
			assertThat(log).doesNotContain("ERROR").doesNotContain("WARN");
			assertThat(held.isHeld()).isTrue();
		}
		assertThat(mvc.post().uri("/seats/7")).hasStatusOk().hasBodyTextEqualTo("reserved 7");
	}

	@Test
	void lockHeldByAnotherInstanceHasNoRetryAfterSinceItsLeaseIsUnknown() {
		try (LockTemplate otherInstance = LockTemplate.builder(template.provider()).keyPrefix("shop:").build();
				LockHandle held = otherInstance.acquire("seat:8", THIRTY_SECONDS)) {
			assertThat(mvc.post().uri("/seats/8")).hasStatus(HttpStatus.CONFLICT)
				.doesNotContainHeader(HttpHeaders.RETRY_AFTER)
				.bodyJson()
				.extractingPath("$.key")
				.isEqualTo("shop:seat:8");
		}
	}

	@Test
	void reactiveEndpointInAnMvcApplicationIsMappedToo() {
		try (LockHandle held = template.acquire("seat:9", THIRTY_SECONDS)) {
			assertThat(mvc.post().uri("/seats/9/hold")).hasStatus(HttpStatus.CONFLICT)
				.bodyJson()
				.extractingPath("$.key")
				.isEqualTo("shop:seat:9");
		}
	}

	@Test
	void unreachableStoreIsA503ThatKeepsTheStoresInternalsOutOfTheBody(CapturedOutput output) throws Exception {
		store.down = true;
		MvcTestResult result = mvc.post().uri("/seats/10").exchange();
		assertThat(result).hasStatus(HttpStatus.SERVICE_UNAVAILABLE)
			.hasContentType(MediaType.APPLICATION_PROBLEM_JSON)
			.doesNotContainHeader(HttpHeaders.RETRY_AFTER);
		assertThat(result).bodyJson().extractingPath("$.detail").isEqualTo("The lock store could not be reached");
		assertThat(result).bodyJson().extractingPath("$.key").isEqualTo("shop:seat:10");
		assertThat(result.getResponse().getContentAsString()).doesNotContain("10.0.0.5");
		// Operators still see what failed.
		assertThat(output).contains("WARN")
			.contains("Answering 503 Service Unavailable: Lock store 'switchable' could not acquire lock "
					+ "'shop:seat:10': Unable to connect to 10.0.0.5:6379");
	}

	@Test
	void keyBuiltFromANullParameterIsA400() throws Exception {
		MvcTestResult result = mvc.get().uri("/notes").exchange();
		assertThat(result).hasStatus(HttpStatus.BAD_REQUEST).hasContentType(MediaType.APPLICATION_PROBLEM_JSON);
		assertThat(result).bodyJson()
			.extractingPath("$.detail")
			.isEqualTo("The lock key built from the request is not valid");
		assertThat(result.getResponse().getContentAsString()).doesNotContain("Seats.note");
		assertThat(mvc.get().uri("/notes").param("name", "a")).hasStatusOk().hasBodyTextEqualTo("note a");
	}

	@Test
	void tooLongKeyIsA400NamingTheKeyAsTheStoreWouldHoldIt() {
		String id = "x".repeat(600);
		// The error shortens a key too long to print whole; the prefix is there, as in the 409 and 503 bodies.
		assertThat(mvc.post().uri("/seats/" + id)).hasStatus(HttpStatus.BAD_REQUEST)
			.bodyJson()
			.extractingPath("$.key")
			.asString()
			.startsWith("shop:seat:xxxxxxxxxx");
	}

	@Test
	void typoInAKeyExpressionIsA500NamingTheMethodAndTheExpression(CapturedOutput output) throws Exception {
		MvcTestResult result = mvc.get().uri("/orders/sku-1").exchange();
		assertThat(result).hasStatus(HttpStatus.INTERNAL_SERVER_ERROR)
			.hasContentType(MediaType.APPLICATION_PROBLEM_JSON);
		assertThat(result).bodyJson()
			.extractingPath("$.detail")
			.isEqualTo("The lock key expression of Seats.order(String) failed");
		assertThat(result).bodyJson().extractingPath("$.method").isEqualTo("Seats.order(String)");
		assertThat(result).bodyJson().extractingPath("$.expression").isEqualTo("'order:' + #sku.lenght()");
		assertThat(output).contains("ERROR").contains("lenght");
		assertThat(template.isLocked("order:sku-1")).isFalse();
	}

}
