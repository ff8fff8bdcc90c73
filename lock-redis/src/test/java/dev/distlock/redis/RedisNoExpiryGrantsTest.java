package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.distlock.core.LockMode;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.redis.testsupport.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Grants without expiry whose reply never reached a live caller (issue 19, case 2, on a paused server): the grant is
 * provisional until its caller makes it lasting, so one nobody heard of ends by itself; and the cleanup of an acquire
 * that got no answer is one script that takes effect when the server runs it, answered or not.
 */
class RedisNoExpiryGrantsTest {

	private static final OwnerDetails OWNER = new OwnerDetails("no-expiry", "test-host");

	private static final String NS = "noexpiry";

	/** Generous: only a broken protocol leaves a key past it, not a slow machine. */
	private static final Duration SETTLE = Duration.ofSeconds(60);

	@RegisterExtension
	static final RedisServerExtension server = new RedisServerExtension(Duration.ofSeconds(10));

	private RedisLockProvider provider;

	@BeforeEach
	void open() {
		provider = new RedisLockProvider(server.factory(), new RedisLockSettings(NS, true, Duration.ofSeconds(1)));
	}

	@AfterEach
	void close() {
		provider.close();
		Set<String> keys = server.redis().keys(NS + ":*");
		if (!keys.isEmpty()) {
			server.redis().delete(keys);
		}
	}

	@Test
	void aGrantWithoutExpiryThatNobodyMadeLastingEndsByItself() throws Exception {
		RedisKeys.OfLock keys = new RedisKeys(NS).of("orphan");
		String lock = keys.lock();
		// What a caller that died before the reply leaves: acquire.lua ran, lasting.lua never did.
		List<?> reply = server.redis().execute(LuaSources.ACQUIRE.spring(),
				List.of(lock, keys.fence(), keys.waiting(), keys.queue(), keys.waiters(), keys.ids()),
				"t-orphan", "1000", "1000", "o\nh", "0", "", "0", "job", "1");
		assertThat(reply.get(0)).isEqualTo(1L);
		assertThat(server.redis().getExpire(lock, TimeUnit.MILLISECONDS)).isBetween(1L, 1000L);
		assertThat(server.redis().getExpire(keys.ids())).isNotEqualTo(-1L);

		awaitGone(lock);
		assertThat(provider.tryAcquire(request("orphan", "t-next", false))).isPresent();
	}

	@Test
	void aGrantWithoutExpiryIsLastingOnceItsCallerHasTheReply() throws Exception {
		var lease = provider.tryAcquire(new LockRequest("kept", "t-kept", Duration.ofMillis(1), LockMode.SHARED, 2,
				OWNER, "job", true)).orElseThrow();
		var exclusive = provider.tryAcquire(new LockRequest("kept-x", "t-kept-x", Duration.ofMillis(1),
				LockMode.EXCLUSIVE, 1, OWNER, "job", true)).orElseThrow();

		// Past the provisional lease: twice the call's bound, here the 2 s floor of a 1 ms nominal lease.
		Thread.sleep(LockScripts.MIN_DEADLINE.multipliedBy(2).plusMillis(500).toMillis());
		assertThat(server.redis().getExpire(NS + ":{kept}")).isEqualTo(-1L);
		assertThat(server.redis().opsForZSet().score(NS + ":{kept}", "t-kept")).isEqualTo(Double.POSITIVE_INFINITY);
		assertThat(server.redis().getExpire(NS + ":{kept-x}")).isEqualTo(-1L);
		assertThat(server.redis().getExpire(NS + ":{kept-x}:ids")).isEqualTo(-1L);
		assertThat(server.redis().opsForHash().get(NS + ":{kept-x}:ids", "t-kept-x").toString()).contains(",-1,");
		assertThat(lease.isHeld()).isTrue();
		assertThat(exclusive.isHeld()).isTrue();
		assertThat(lease.release()).isTrue();
		assertThat(exclusive.release()).isTrue();
	}

	@Test
	void theCleanupOfAnAcquireThatGotNoAnswerTakesEffectWhenThePausedServerRunsItEvenUnanswered() throws Exception {
		LettuceConnectionFactory impatient = server.process().connectionFactory(Duration.ofMillis(500));
		RedisLockProvider paused = new RedisLockProvider(impatient, new RedisLockSettings(NS, true));
		try {
			// The scripts are cached first, so the frozen server runs the acquire itself, not a NOSCRIPT error.
			assertThat(paused.tryAcquire(request("warm", "t-warm", true)).orElseThrow().release()).isTrue();
			server.process().freeze();
			try {
				assertThatThrownBy(() -> paused.tryAcquire(request("frozen", "t-frozen", true)))
					.isInstanceOf(LockStoreException.class);
				// No retry may help: only what the failed acquire's own cleanup already sent can free the lock. A retry
				// in flight when the provider closes still fails against the frozen server (500 ms) and stops there.
				paused.close();
				Thread.sleep(1_500);
			}
			finally {
				server.process().thaw();
			}
			awaitGone(NS + ":{frozen}");
			// Freed by the cleanup's release (which records it for replays), not by the provisional lease running out.
			assertThat(server.redis().opsForHash().get(NS + ":{frozen}:fence", "r")).isEqualTo("t-frozen");
		}
		finally {
			paused.close();
			impatient.destroy();
		}
	}

	private void awaitGone(String key) throws InterruptedException {
		long deadline = System.nanoTime() + SETTLE.toNanos();
		while (Boolean.TRUE.equals(server.redis().hasKey(key)) && System.nanoTime() < deadline) {
			Thread.sleep(50);
		}
		assertThat(server.redis().hasKey(key)).as(key + " left held, TTL " + server.redis().getExpire(key)).isFalse();
	}

	private static LockRequest request(String key, String token, boolean noExpiry) {
		return new LockRequest(key, token, Duration.ofMillis(500), LockMode.EXCLUSIVE, 1, OWNER, null, noExpiry);
	}

}
