package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockMode;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.Acquisition;
import dev.distlock.redis.testsupport.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The FIFO hand-off: waiters that watch a key queue in Redis, and a release passes the lock straight to the oldest
 * live one. Each client has its own connection factory and provider, as separate JVMs would.
 */
class RedisHandOffTest {

	private static final OwnerDetails OWNER = new OwnerDetails("hand-off-test", "test-host");

	private static final Duration LEASE = Duration.ofSeconds(30);

	@RegisterExtension
	static final RedisServerExtension server = new RedisServerExtension();

	private final List<AutoCloseable> clients = new ArrayList<>();

	@AfterEach
	void closeClients() throws Exception {
		for (int i = clients.size() - 1; i >= 0; i--) {
			clients.get(i).close();
		}
	}

	@Test
	void releasesHandTheLockToWaitersInTheOrderTheyQueued() throws Exception {
		LockTemplate holder = template();
		LockTemplate first = template();
		LockTemplate second = template();
		LockHandle held = holder.acquire("fifo", LockOptions.builder().timeout(LEASE).build());
		List<String> order = new CopyOnWriteArrayList<>();
		List<Long> tokens = new CopyOnWriteArrayList<>();

		CompletableFuture<Void> firstDone = waitFor(first, "fifo", "first", order, tokens);
		awaitQueued("fifo", 1);
		CompletableFuture<Void> secondDone = waitFor(second, "fifo", "second", order, tokens);
		awaitQueued("fifo", 2);

		held.release();
		firstDone.get(10, TimeUnit.SECONDS);
		secondDone.get(10, TimeUnit.SECONDS);

		assertThat(order).containsExactly("first", "second");
		assertThat(tokens.get(0)).isGreaterThan(held.fencingToken());
		assertThat(tokens.get(1)).isGreaterThan(tokens.get(0));
		// Nobody waits any more: the queue and its entries are gone, and no lock is left.
		assertThat(server.redis().hasKey("distlock:{fifo}:queue")).isFalse();
		assertThat(server.redis().hasKey("distlock:{fifo}:waiters")).isFalse();
		assertThat(server.redis().hasKey("distlock:{fifo}")).isFalse();
	}

	@Test
	void aHandedOverLockIsTakenWithoutAnotherRoundTrip() throws Exception {
		RedisLockProvider holder = provider();
		RedisLockProvider waiter = provider();
		Lease held = holder.tryAcquire(request("direct", "holder")).orElseThrow();
		LockRequest waiting = request("direct", "waiter");
		try (Acquisition acquisition = waiter.begin(waiting)) {
			assertThat(acquisition.tryOnce()).isEmpty(); // queues
			assertThat(acquisition.awaitSignal(Duration.ofSeconds(10))).isTrue(); // newly subscribed: look again
			assertThat(held.release()).isTrue(); // hands over, in the same script

			assertThat(acquisition.awaitSignal(Duration.ofSeconds(10))).isTrue(); // the grant woke us
			long evalshaBefore = evalshaCalls();
			Lease taken = acquisition.tryOnce().orElseThrow().lease();
			long evalshaAfter = evalshaCalls();

			assertThat(evalshaAfter).isEqualTo(evalshaBefore);
			assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
			assertThat(server.redis().opsForValue().get("distlock:{direct}")).isEqualTo("waiter");
			// The hand-off writes the holder with its grant time (server ms) as a third line.
			assertThat((String) server.redis().opsForHash().get("distlock:{direct}:fence", "h"))
				.matches("hand-off-test\\n[^\\n]+\\n\\d+");
			assertThat(taken.release()).isTrue();
		}
		assertThat(server.redis().hasKey("distlock:{direct}")).isFalse();
	}

	@Test
	void aWaiterThatGivesUpPassesOnALockHandedToItThatItNeverTook() {
		RedisLockProvider holder = provider();
		RedisLockProvider quitter = provider();
		RedisLockProvider patient = provider();
		Lease held = holder.tryAcquire(request("quit", "holder")).orElseThrow();
		LockRequest quitting = request("quit", "quitter");
		LockRequest waiting = request("quit", "patient");
		Acquisition quitterWait = quitter.begin(quitting);
		assertThat(quitterWait.tryOnce()).isEmpty();
		try (Acquisition patientWait = patient.begin(waiting)) {
			assertThat(patientWait.tryOnce()).isEmpty();
			assertThat(held.release()).isTrue();
			assertThat(server.redis().opsForValue().get("distlock:{quit}")).isEqualTo("quitter");

			quitterWait.close(); // gives up without taking the grant: the withdrawal passes the lock on

			assertThat(server.redis().opsForValue().get("distlock:{quit}")).isEqualTo("patient");
			Lease taken = patientWait.tryOnce().orElseThrow().lease();
			assertThat(taken.release()).isTrue();
		}
		assertThat(server.redis().hasKey("distlock:{quit}")).isFalse();
		assertThat(server.redis().hasKey("distlock:{quit}:queue")).isFalse();
	}

	@Test
	void aWaiterWhoseEntryExpiredIsNeverHandedTheLock() {
		RedisLockProvider holder = provider();
		Lease held = holder.tryAcquire(request("stale", "holder")).orElseThrow();
		// A waiter that died long ago: its entry's deadline (server ms) is in the past.
		server.redis().opsForZSet().add("distlock:{stale}:queue", "ghost", 1);
		server.redis().opsForHash().put("distlock:{stale}:waiters", "ghost",
				"[\"1\",\"0\",\"30000\",\"ghost\",\"nowhere\",\"distlock:grants:ghost\"]");
		// Its refused attempt marked the lock as waited for.
		server.redis().opsForValue().set("distlock:{stale}:waiting", "1");

		assertThat(held.release()).isTrue();

		assertThat(server.redis().hasKey("distlock:{stale}")).isFalse();
		assertThat(server.redis().hasKey("distlock:{stale}:queue")).isFalse();
		assertThat(server.redis().hasKey("distlock:{stale}:waiters")).isFalse();
	}

	@Test
	void aWaiterThatGivesUpLeavesTheQueue() {
		RedisLockProvider holder = provider();
		RedisLockProvider quitter = provider();
		Lease held = holder.tryAcquire(request("leave", "holder")).orElseThrow();
		LockRequest quitting = request("leave", "quitter");
		try (Acquisition acquisition = quitter.begin(quitting)) {
			assertThat(acquisition.tryOnce()).isEmpty();
			assertThat(server.redis().opsForZSet().range("distlock:{leave}:queue", 0, -1)).containsExactly("quitter");
		}
		assertThat(server.redis().opsForZSet().zCard("distlock:{leave}:queue")).isZero();
		assertThat(server.redis().opsForValue().get("distlock:{leave}")).isEqualTo("holder");
		assertThat(held.release()).isTrue();
		assertThat(server.redis().hasKey("distlock:{leave}")).isFalse();
	}

	@Test
	void sharedRequestsAndNonWaitingCallersNeverQueue() {
		RedisLockProvider holder = provider();
		RedisLockProvider other = provider();
		Lease held = holder.tryAcquire(request("solo", "holder")).orElseThrow();
		assertThat(other.tryAcquire(request("solo", "no-watch"))).isEmpty();
		LockRequest shared = new LockRequest("solo", "shared", LEASE, LockMode.SHARED, 2, OWNER);
		try (Acquisition acquisition = other.begin(shared)) {
			assertThat(acquisition.tryOnce()).isEmpty();
		}
		assertThat(server.redis().hasKey("distlock:{solo}:queue")).isFalse();
		assertThat(held.release()).isTrue();
	}

	@Test
	void aWaitersSubscriptionsLingerAfterItsWaitAndThenGo() throws Exception {
		RedisLockProvider holder = provider();
		RedisLockProvider client = provider();
		Lease held = holder.tryAcquire(request("hot", "holder")).orElseThrow();
		try (Acquisition acquisition = client.begin(request("hot", "waiter"))) {
			assertThat(acquisition.tryOnce()).isEmpty();
			assertThat(acquisition.awaitSignal(Duration.ofSeconds(10))).isTrue(); // newly subscribed: look again
			assertThat(client.channels().watchedChannels()).isEqualTo(2); // the key's channel and the grant channel
		}
		assertThat(client.channels().watchedChannels()).isZero();
		assertThat(client.channels().subscribedChannels()).isEqualTo(2); // lingering: the next waiter pays nothing
		long deadline = System.nanoTime() + PubSubChannels.LINGER.plusSeconds(3).toNanos();
		while (client.channels().subscribedChannels() > 0 && System.nanoTime() < deadline) {
			Thread.sleep(20);
		}
		assertThat(client.channels().subscribedChannels()).isZero();
		assertThat(held.release()).isTrue();
	}

	private CompletableFuture<Void> waitFor(LockTemplate template, String key, String name, List<String> order,
			List<Long> tokens) {
		// Polls once a second at most, so the order comes from the queue, not from who polled first.
		LockOptions options = LockOptions.builder().timeout(LEASE).delay(Duration.ofSeconds(1))
			.waitUpTo(Duration.ofSeconds(20)).build();
		return CompletableFuture.runAsync(() -> {
			try (LockHandle handle = template.acquire(key, options)) {
				order.add(name);
				tokens.add(handle.fencingToken());
			}
		});
	}

	private static void awaitQueued(String key, long waiters) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (System.nanoTime() < deadline) {
			Long queued = server.redis().opsForZSet().zCard("distlock:{" + key + "}:queue");
			if (queued != null && queued >= waiters) {
				return;
			}
			Thread.sleep(5);
		}
		throw new AssertionError("Fewer than " + waiters + " waiters queued on '" + key + "'");
	}

	private LockTemplate template() {
		LockTemplate template = LockTemplate.builder(provider()).owner(OWNER).build();
		clients.add(template);
		return template;
	}

	private RedisLockProvider provider() {
		LettuceConnectionFactory factory = server.process().connectionFactory();
		RedisLockProvider provider = new RedisLockProvider(factory, RedisLockSettings.defaults());
		clients.add(factory::destroy);
		clients.add(provider);
		return provider;
	}

	private static long evalshaCalls() {
		Properties info = server.redis()
			.execute((RedisCallback<Properties>) c -> c.serverCommands().info("commandstats"));
		String line = info == null ? null : info.getProperty("cmdstat_evalsha");
		if (line == null) {
			return 0;
		}
		return Long.parseLong(line.substring(line.indexOf("calls=") + 6, line.indexOf(',')));
	}

	private static LockRequest request(String key, String token) {
		return new LockRequest(key, token, LEASE, LockMode.EXCLUSIVE, 1, OWNER);
	}

}
