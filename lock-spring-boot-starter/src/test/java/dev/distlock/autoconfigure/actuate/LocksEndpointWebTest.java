package dev.distlock.autoconfigure.actuate;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.assertj.MockMvcTester;

import dev.distlock.core.LockGroup;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.OwnerDetails;
import dev.distlock.redis.testsupport.RedisServerProcess;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /actuator/locks}, {@code /actuator/health/locks} and {@code /actuator/metrics} through the web layer of a
 * whole application on a private redis-server.
 */
@SpringBootTest(classes = WebTestApplication.class, properties = { "distributed-lock.key-prefix=web:",
		"spring.application.name=web-test", "management.endpoints.web.exposure.include=health,locks,metrics",
		"management.endpoint.health.show-details=always" })
@AutoConfigureMockMvc
class LocksEndpointWebTest {

	private static final LockOptions TEN_SECONDS = LockOptions.builder().timeout(Duration.ofSeconds(10)).build();

	private static final RedisServerProcess redis = RedisServerProcess.startOnFreePort();

	@Autowired
	private MockMvcTester mvc;

	@Autowired
	private LockTemplate template;

	@DynamicPropertySource
	static void redisPort(DynamicPropertyRegistry properties) {
		properties.add("spring.data.redis.port", redis::port);
	}

	@AfterAll
	static void stopRedis() {
		redis.close();
	}

	@Test
	void locksListsThisInstancesHoldsAndTheStoresLocks() {
		LockTemplate otherInstance = LockTemplate.builder(template.provider())
			.keyPrefix("web:")
			.owner(OwnerDetails.of("other-app"))
			.build();
		// Earlier holds make the tokens differ per key, so each listed token is matched to its own lock.
		long firstOrderToken = template.execute("list:orders:1", TEN_SECONDS, LockHandle::fencingToken);
		template.execute("list:orders:1", TEN_SECONDS, handle -> null);
		template.execute("list:batch:b", TEN_SECONDS, handle -> null);
		try (LockHandle order = template.acquire("list:orders:1", TEN_SECONDS);
				LockHandle report = template.acquire("list:reports:daily", LockOptions.builder().shared(3).build());
				LockGroup batch = template.acquireAll(List.of("list:batch:b", "list:batch:a"), TEN_SECONDS);
				LockHandle foreign = otherInstance.acquire("list:orders:2", TEN_SECONDS)) {
			var json = assertThat(mvc.get().uri("/actuator/locks").param("keyPrefix", "web:list:")).hasStatusOk()
				.bodyJson();
			json.extractingPath("$.provider").isEqualTo("redis");
			json.extractingPath("$.keyPrefix").isEqualTo("web:");
			json.extractingPath("$.forceReleaseEnabled").isEqualTo(false);
			// Held locks are this instance's, whatever the store filter.
			json.extractingPath("$.held[*].key")
				.asArray()
				.containsExactly("web:list:batch:a", "web:list:batch:b", "web:list:orders:1",
						"web:list:reports:daily");
			json.extractingPath("$.held[*].fencingToken")
				.asArray()
				.extracting(token -> ((Number) token).longValue())
				.containsExactly(batch.handle("web:list:batch:a").fencingToken(),
						batch.handle("web:list:batch:b").fencingToken(),
						order.fencingToken(), report.fencingToken());
			assertThat(order.fencingToken()).isGreaterThan(firstOrderToken);
			json.extractingPath("$.held[*].group").asArray().containsExactly(batch.id(), batch.id(), null, null);
			json.extractingPath("$.held[*].mode")
				.asArray()
				.containsExactly("EXCLUSIVE", "EXCLUSIVE", "EXCLUSIVE", "SHARED");
			json.extractingPath("$.held[2].acquiredAt").isEqualTo(order.acquiredAt().toString());
			json.extractingPath("$.held[2].remaining").asString().startsWith("PT");
			json.extractingPath("$.held[2].waited").asString().startsWith("PT");
			json.extractingPath("$.store.supported").isEqualTo(true);
			json.extractingPath("$.store.query.keyPrefix").isEqualTo("web:list:");
			json.extractingPath("$.store.query.state").isEqualTo("HELD");
			json.extractingPath("$.store.count").isEqualTo(5);
			json.extractingPath("$.store.truncated").isEqualTo(false);
			json.extractingPath("$.store.locks[*].key")
				.asArray()
				.containsExactly("web:list:batch:a", "web:list:batch:b", "web:list:orders:1", "web:list:orders:2",
						"web:list:reports:daily");
			json.extractingPath("$.store.locks[*].owner")
				.asArray()
				.containsExactly("web-test", "web-test", "web-test", "other-app", "web-test");
			json.extractingPath("$.store.locks[3].fencingToken").convertTo(Long.class).isEqualTo(foreign.fencingToken());
			json.extractingPath("$.store.locks[2].fencingToken").convertTo(Long.class).isEqualTo(order.fencingToken());
			json.extractingPath("$.store.locks[4].holders").isEqualTo(1);
			json.extractingPath("$.store.error").isNull();
		}
		finally {
			otherInstance.close();
		}
	}

	@Test
	void storeStatusFiltersByOwnerKeyPrefixAndState() {
		LockTemplate otherInstance = LockTemplate.builder(template.provider())
			.keyPrefix("web:")
			.owner(OwnerDetails.of("other-app"))
			.build();
		try (LockHandle order = template.acquire("filter:orders:1", TEN_SECONDS);
				LockHandle job = template.acquire("filter:jobs:1", TEN_SECONDS);
				LockHandle foreign = otherInstance.acquire("filter:orders:2", TEN_SECONDS)) {
			var byOwner = assertThat(mvc.get().uri("/actuator/locks").param("owner", "other-app")).hasStatusOk()
				.bodyJson();
			byOwner.extractingPath("$.store.query.owner").isEqualTo("other-app");
			byOwner.extractingPath("$.store.locks[*].key").asArray().containsExactly("web:filter:orders:2");
			byOwner.extractingPath("$.held[*].key").asArray().containsExactly("web:filter:jobs:1",
					"web:filter:orders:1");

			var byPrefix = assertThat(mvc.get().uri("/actuator/locks").param("keyPrefix", "web:filter:orders"))
				.hasStatusOk()
				.bodyJson();
			byPrefix.extractingPath("$.store.count").isEqualTo(2);
			byPrefix.extractingPath("$.store.locks[*].key")
				.asArray()
				.containsExactly("web:filter:orders:1", "web:filter:orders:2");

			var held = assertThat(mvc.get().uri("/actuator/locks").param("keyPrefix", "web:filter:").param("state",
					"held"))
				.hasStatusOk()
				.bodyJson();
			held.extractingPath("$.store.query.state").isEqualTo("HELD");
			held.extractingPath("$.store.count").isEqualTo(3);

			var expired = assertThat(mvc.get().uri("/actuator/locks").param("keyPrefix", "web:filter:").param("state",
					"expired"))
				.hasStatusOk()
				.bodyJson();
			expired.extractingPath("$.store.query.state").isEqualTo("EXPIRED");
			expired.extractingPath("$.store.count").isEqualTo(0);

			// Redis lists lock keys only: a released key is gone from every state (docs/REDIS.md, Status).
			job.release();
			var released = assertThat(mvc.get().uri("/actuator/locks").param("keyPrefix", "web:filter:").param("state",
					"any"))
				.hasStatusOk()
				.bodyJson();
			released.extractingPath("$.store.locks[*].key")
				.asArray()
				.containsExactly("web:filter:orders:1", "web:filter:orders:2");
			released.extractingPath("$.store.locks[*].held").asArray().containsOnly(true);
		}
		finally {
			otherInstance.close();
		}
	}

	@Test
	void forceReleaseIsNotOfferedByDefault() {
		try (LockHandle order = template.acquire("guarded:1", TEN_SECONDS)) {
			assertThat(mvc.delete().uri("/actuator/locks/web:guarded:1")).hasStatus4xxClientError();
			assertThat(template.isLocked("guarded:1")).isTrue();
			assertThat(order.isHeld()).isTrue();
		}
	}

	@Test
	void healthShowsTheLocksIndicatorUpWithProviderAndLatency() {
		var json = assertThat(mvc.get().uri("/actuator/health/locks")).hasStatusOk().bodyJson();
		json.extractingPath("$.status").isEqualTo("UP");
		json.extractingPath("$.details.provider").isEqualTo("redis");
		json.extractingPath("$.details.latency").asString().endsWith("ms");
		assertThat(mvc.get().uri("/actuator/health")).hasStatusOk()
			.bodyJson()
			.extractingPath("$.components.locks.status")
			.isEqualTo("UP");
	}

	@Test
	void metricsEndpointCountsAcquiresByOutcomeAndKeyPrefix() {
		for (int i = 0; i < 3; i++) {
			template.execute("metered:" + i, TEN_SECONDS, handle -> null);
		}
		try (LockHandle held = template.acquire("metered:busy", TEN_SECONDS)) {
			assertThat(template.tryAcquire("metered:busy", TEN_SECONDS)).isEmpty();
			var active = assertThat(
					mvc.get().uri("/actuator/metrics/distlock.lock.active").param("tag", "key.prefix:metered"))
				.hasStatusOk()
				.bodyJson();
			active.extractingPath("$.measurements[?(@.statistic == 'ACTIVE_TASKS')].value")
				.asArray()
				.containsExactly(1.0);
		}
		var acquired = assertThat(mvc.get().uri("/actuator/metrics/distlock.acquire").param("tag",
				"key.prefix:metered", "outcome:acquired"))
			.hasStatusOk()
			.bodyJson();
		acquired.extractingPath("$.measurements[?(@.statistic == 'COUNT')].value").asArray().containsExactly(4.0);
		var skipped = assertThat(mvc.get().uri("/actuator/metrics/distlock.acquire").param("tag",
				"key.prefix:metered", "outcome:skipped"))
			.hasStatusOk()
			.bodyJson();
		skipped.extractingPath("$.measurements[?(@.statistic == 'COUNT')].value").asArray().containsExactly(1.0);
		skipped.extractingPath("$.availableTags[?(@.tag == 'provider')].values[0]").asArray().containsExactly("redis");
	}

}
