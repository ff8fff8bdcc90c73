package dev.distlock.redis;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.core.LockMode;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.redis.testsupport.RedisServerProcess;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Every call on the lock-script connection keeps its own deadline, enforced by its wait rather than by a Lettuce timer
 * per command: a call that misses it fails with the typed store error at its own deadline, not the command timeout.
 * (That a command ended while queued on a disconnected client is never sent later is Lettuce's, as it was with its
 * timer; a test that restarted the server could not show it: a restarted server has no script loaded, so a replayed
 * EVALSHA fails either way.)
 */
class RedisCallDeadlineTest {

	/** Longer than the calls' deadlines below, so only the call's own deadline can end them in time. */
	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(20);

	private static final OwnerDetails OWNER = new OwnerDetails("deadline-test", "test-host");

	private RedisServerProcess server;

	private LettuceConnectionFactory factory;

	private LockScripts scripts;

	@BeforeEach
	void start() {
		server = RedisServerProcess.startOnFreePort();
		factory = server.connectionFactory(COMMAND_TIMEOUT);
		scripts = new LockScripts(factory, new StringRedisTemplate(factory), new RedisKeys("deadline"), false,
				Duration.ofMinutes(1), 0, true);
	}

	@AfterEach
	void stop() {
		scripts.close();
		factory.destroy();
		server.close();
	}

	@Test
	void aCallOnAFrozenServerFailsWithAStoreErrorAtItsOwnDeadlineNotTheCommandTimeout() {
		scripts.acquire(request("warm", "t0"), Duration.ZERO, 0, ""); // the connection is open
		server.freeze();
		try {
			// The deadline is the lease's 2 s (MIN_DEADLINE); the bound is far below the 20 s command timeout.
			assertTimeoutPreemptively(Duration.ofSeconds(15),
					() -> assertThatThrownBy(() -> scripts.acquire(request("frozen", "t1"), Duration.ZERO, 0, ""))
						.isInstanceOf(LockStoreException.class)
						.hasMessageContaining("did not answer in time"));
		}
		finally {
			server.thaw();
		}
	}

	private static LockRequest request(String key, String token) {
		return new LockRequest(key, token, Duration.ofSeconds(2), LockMode.EXCLUSIVE, 1, OWNER);
	}

}
