package dev.distlock.samples;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.jdbc.JdbcLockProvider;
import dev.distlock.jdbc.testsupport.PostgresTestServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Boots the sample on the {@code jdbc} profile against a PostgreSQL server of this test JVM: the JDBC provider is
 * picked, the table is created at startup, and locks exclude each other.
 */
@SpringBootTest(properties = "sample.report.initial-delay=1h")
@ActiveProfiles("jdbc")
class SampleJdbcProfileTest {

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", () -> PostgresTestServer.shared().jdbcUrl());
		registry.add("spring.datasource.username", () -> PostgresTestServer.shared().user());
	}

	@Autowired
	private LockTemplate locks;

	@Test
	void theJdbcProfileLocksInPostgres() {
		assertThat(locks.provider()).isInstanceOf(JdbcLockProvider.class);
		LockOptions lease = LockOptions.builder().timeout(Duration.ofSeconds(30)).build();
		try (LockHandle handle = locks.acquire("jdbc-profile", lease)) {
			assertThat(locks.tryAcquire("jdbc-profile", lease)).isEmpty();
			assertThat(handle.fencingToken()).isPositive();
		}
		assertThat(locks.isLocked("jdbc-profile")).isFalse();
	}

}
