package dev.distlock.autoconfigure.actuate;

import java.time.Duration;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.test.web.servlet.assertj.MockMvcTester;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockReleaseException;
import dev.distlock.core.LockTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code DELETE /actuator/locks/{key}} through the web layer, with the forced release enabled, on the in-memory store.
 */
@SpringBootTest(classes = WebTestApplication.class,
		properties = { "distributed-lock.provider=in-memory", "distributed-lock.key-prefix=web:",
				"distributed-lock.actuator.force-release-enabled=true",
				"management.endpoints.web.exposure.include=locks",
				"spring.autoconfigure.exclude=org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration" })
@AutoConfigureMockMvc
class ForceReleaseWebTest {

	private static final LockOptions TEN_SECONDS = LockOptions.builder().timeout(Duration.ofSeconds(10)).build();

	@Autowired
	private MockMvcTester mvc;

	@Autowired
	private LockTemplate template;

	@Autowired
	private MeterRegistry registry;

	@Test
	void forceReleaseRemovesAHeldLockAndItsHolderFindsItLost() {
		LockHandle handle = template.acquire("orders:1", TEN_SECONDS);
		assertThat(mvc.get().uri("/actuator/locks")).hasStatusOk()
			.bodyJson()
			.extractingPath("$.forceReleaseEnabled")
			.isEqualTo(true);

		var json = assertThat(mvc.delete().uri("/actuator/locks/web:orders:1")).hasStatusOk().bodyJson();
		json.extractingPath("$.key").isEqualTo("web:orders:1");
		json.extractingPath("$.released").isEqualTo(true);

		assertThat(template.isLocked("orders:1")).isFalse();
		assertThatExceptionOfType(LockReleaseException.class).isThrownBy(handle::release);
		assertThat(registry.get(LockMetricsListener.LOST).tag(LockKeyTag.TAG, "orders").counter().count())
			.isEqualTo(1);
		assertThat(mvc.get().uri("/actuator/locks")).bodyJson()
			.extractingPath("$.held")
			.asArray()
			.isEmpty();
	}

	@Test
	void forceReleaseOfAnUnknownKeySaysNothingWasReleased() {
		var json = assertThat(mvc.delete().uri("/actuator/locks/web:nobody:holds:this")).hasStatusOk().bodyJson();
		json.extractingPath("$.key").isEqualTo("web:nobody:holds:this");
		json.extractingPath("$.released").isEqualTo(false);
	}

	@Test
	void forceReleaseTakesKeysContainingSlashes() {
		LockHandle handle = template.acquire("files/2025/report.csv", TEN_SECONDS);
		var json = assertThat(mvc.delete().uri("/actuator/locks/web:files/2025/report.csv")).hasStatusOk().bodyJson();
		json.extractingPath("$.key").isEqualTo("web:files/2025/report.csv");
		json.extractingPath("$.released").isEqualTo(true);
		assertThat(template.isLocked("files/2025/report.csv")).isFalse();
		assertThatExceptionOfType(LockReleaseException.class).isThrownBy(handle::release);
	}

}
