package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockMode;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Acquisition;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.redis.testsupport.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The waiter risks of issue 19: a waiter with a long backoff against a holder without expiry keeps its place and is
 * handed the lock; a release from a client without pub/sub still wakes other clients' waiters; a waiter that died
 * after being handed a lock without expiry does not hold it for ever.
 */
class RedisWaitersTest {

	private static final OwnerDetails OWNER = new OwnerDetails("waiters", "test-host");

	private static final String NS = "waiters";

	/** Generous: only a broken protocol needs longer, not a slow machine. */
	private static final Duration SETTLE = Duration.ofSeconds(60);

	@RegisterExtension
	static final RedisServerExtension server = new RedisServerExtension(Duration.ofSeconds(10));

	private RedisLockProvider holder;

	private RedisLockProvider waiter;

	@BeforeEach
	void open() {
		holder = new RedisLockProvider(server.factory(), new RedisLockSettings(NS, true));
		waiter = new RedisLockProvider(server.factory(), new RedisLockSettings(NS, true));
	}

	@AfterEach
	void close() {
		holder.close();
		waiter.close();
		Set<String> keys = server.redis().keys(NS + ":*");
		if (!keys.isEmpty()) {
			server.redis().delete(keys);
		}
	}

	@Test
	void aWaiterWithALongBackoffAgainstAHolderWithoutExpiryKeepsItsPlaceAndIsHandedTheLock() throws Exception {
		Lease held = holder.tryAcquire(request("forever", "t-holder", true)).orElseThrow();
		LockTemplate template = new LockTemplate(waiter);
		LockOptions patient = LockOptions.builder().timeout(Duration.ofSeconds(30)).delay(Duration.ofSeconds(40))
			.retries(1).waitUpTo(Duration.ofSeconds(90)).build();
		CompletableFuture<LockHandle> waiting = CompletableFuture.supplyAsync(() -> template.acquire("forever", patient));
		awaitQueued("forever");
		Thread.sleep(3000); // past the waiting mark's and the queue entry's first 2 s

		assertThat(held.release()).isTrue();
		// A newcomer right after the release: the lock went to the queued waiter in the release itself.
		assertThat(holder.tryAcquire(request("forever", "t-newcomer", false))).isEmpty();
		LockHandle handle = waiting.get(2, TimeUnit.MINUTES);
		assertThat(handle.isHeld()).isTrue();
		assertThat(handle.fencingToken()).isGreaterThan(held.fencingToken());
		handle.release();
		template.close();
	}

	@Test
	void aReleaseFromAClientWithoutPubSubStillWakesTheWaitersThatMarkedTheLock() throws Exception {
		RedisLockProvider quiet = new RedisLockProvider(server.factory(), new RedisLockSettings(NS, false));
		RedisClient client = RedisClient.create("redis://127.0.0.1:" + server.process().port());
		List<String> heard = new CopyOnWriteArrayList<>();
		try (StatefulRedisPubSubConnection<String, String> listener = client.connectPubSub()) {
			listener.addListener(new RedisPubSubAdapter<>() {
				@Override
				public void message(String channel, String message) {
					heard.add(channel);
				}
			});
			listener.sync().subscribe(NS + ":{quiet}:released");
			Lease held = quiet.tryAcquire(request("quiet", "t-quiet", false)).orElseThrow();
			try (Acquisition waiting = waiter.begin(request("quiet", "t-waiter", false))) {
				assertThat(waiting.tryOnce()).isEmpty(); // queued, and the lock marked as waited for

				assertThat(held.release()).isTrue();
				long deadline = System.nanoTime() + SETTLE.toNanos();
				while (heard.isEmpty() && System.nanoTime() < deadline) {
					Thread.sleep(20);
				}
				assertThat(heard).containsExactly(NS + ":{quiet}:released");
			}
		}
		finally {
			client.shutdown(Duration.ZERO, Duration.ofSeconds(5));
			quiet.close();
		}
	}

	@Test
	void aWaiterThatDiedAfterBeingHandedALockWithoutExpiryHoldsItOnlyProvisionally() throws Exception {
		Lease held = holder.tryAcquire(request("handed", "t-holder", false)).orElseThrow();
		Acquisition dead = waiter.begin(request("handed", "t-dead", true));
		assertThat(dead.tryOnce()).isEmpty(); // queued; then it never runs again, as if its process died

		assertThat(held.release()).isTrue(); // hands the lock to the dead waiter
		assertThat(server.redis().opsForValue().get(NS + ":{handed}")).isEqualTo("t-dead");
		assertThat(server.redis().getExpire(NS + ":{handed}", TimeUnit.MILLISECONDS)).isPositive();

		long deadline = System.nanoTime() + SETTLE.toNanos();
		while (Boolean.TRUE.equals(server.redis().hasKey(NS + ":{handed}")) && System.nanoTime() < deadline) {
			Thread.sleep(100);
		}
		assertThat(holder.tryAcquire(request("handed", "t-next", false))).isPresent();
	}

	@Test
	void aLiveWaiterWithoutExpiryHandedTheLockKeepsItForGood() throws Exception {
		Lease held = holder.tryAcquire(request("kept", "t-holder", false)).orElseThrow();
		try (Acquisition live = waiter.begin(request("kept", "t-live", true))) {
			assertThat(live.tryOnce()).isEmpty();
			assertThat(held.release()).isTrue();
			assertThat(live.awaitSignal(SETTLE)).isTrue();

			Lease taken = live.tryOnce().orElseThrow().lease();
			assertThat(server.redis().getExpire(NS + ":{kept}")).isEqualTo(-1L);
			assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
			assertThat(taken.release()).isTrue();
		}
	}

	private void awaitQueued(String key) throws InterruptedException {
		long deadline = System.nanoTime() + SETTLE.toNanos();
		while (!Boolean.TRUE.equals(server.redis().hasKey(NS + ":{" + key + "}:queue")) && System.nanoTime() < deadline) {
			Thread.sleep(20);
		}
		assertThat(server.redis().hasKey(NS + ":{" + key + "}:queue")).isTrue();
	}

	private static LockRequest request(String key, String token, boolean noExpiry) {
		return new LockRequest(key, token, Duration.ofSeconds(30), LockMode.EXCLUSIVE, 1, OWNER, null, noExpiry);
	}

}
