package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.lang.reflect.Proxy;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.core.InvalidLockOptionException;
import dev.distlock.core.LockMode;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.redis.testsupport.RedisServerProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code replicaAcks}: a master with one replica ({@code --replicaof}) and a master with none. Grants and extensions
 * wait for the replicas ({@code WAIT} on the connection that wrote them); a grant not acknowledged in time is released
 * and reported as a store error. Sentinel failover with acks is in {@code reliability}'s {@code SentinelFailoverTest}.
 */
class RedisReplicaAcksTest {

	private static final OwnerDetails OWNER = new OwnerDetails("acks-test", "test-host");

	private static RedisServerProcess master;

	private static RedisServerProcess replica;

	private static RedisServerProcess lonely;

	@BeforeAll
	static void startServers() throws InterruptedException {
		master = RedisServerProcess.startOnFreePort();
		replica = new RedisServerProcess(RedisServerProcess.freePort(false),
				List.of("--replicaof", "127.0.0.1", String.valueOf(master.port())));
		replica.start();
		lonely = RedisServerProcess.startOnFreePort();
		LettuceConnectionFactory factory = replica.connectionFactory();
		try {
			StringRedisTemplate redis = new StringRedisTemplate(factory);
			long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
			while (!String.valueOf(redis.execute((org.springframework.data.redis.core.RedisCallback<Object>) c -> c
				.serverCommands()
				.info("replication"))).contains("master_link_status=up")) {
				assertThat(System.nanoTime()).as("replica in sync").isLessThan(deadline);
				Thread.sleep(50);
			}
		}
		finally {
			factory.destroy();
		}
	}

	@AfterAll
	static void stopServers() {
		replica.close();
		master.close();
		lonely.close();
	}

	@Test
	void grantsAndExtensionsAcknowledgedByTheReplicaAreReturnedAndAreOnTheReplica() {
		LettuceConnectionFactory factory = master.connectionFactory();
		LettuceConnectionFactory onReplica = replica.connectionFactory();
		try (RedisLockProvider provider = new RedisLockProvider(factory, RedisLockSettings.defaults().withReplicaAcks(1))) {
			Lease lease = provider.tryAcquire(request("acked", "t1", Duration.ofSeconds(30))).orElseThrow();
			// WAIT returned only once the replica had the grant: it is there without polling.
			assertThat(new StringRedisTemplate(onReplica).opsForValue().get("distlock:{acked}")).isEqualTo("t1");
			assertThat(lease.extend(Duration.ofSeconds(30))).isTrue();
			List<Lease> group = provider
				.tryAcquireAll(List.of(request("g{1}a", "t2", Duration.ofSeconds(30)), request("g{1}b", "t2",
						Duration.ofSeconds(30))))
				.orElseThrow();
			assertThat(new StringRedisTemplate(onReplica).opsForValue().get("distlock:{g{1}b}")).isEqualTo("t2");
			assertThat(lease.release()).isTrue();
			group.forEach(Lease::release);
			// A refused acquire waits for nothing.
			Lease other = provider.tryAcquire(request("busy", "holder", Duration.ofSeconds(30))).orElseThrow();
			assertThat(provider.tryAcquire(request("busy", "late", Duration.ofSeconds(30)))).isEmpty();
			other.release();
		}
		finally {
			factory.destroy();
			onReplica.destroy();
		}
	}

	@Test
	void aHandOffIsTakenWithARoundTripThatTheReplicaAcknowledges() {
		LettuceConnectionFactory factory = master.connectionFactory();
		LettuceConnectionFactory onReplica = replica.connectionFactory();
		try (RedisLockProvider holder = new RedisLockProvider(factory, RedisLockSettings.defaults().withReplicaAcks(1));
				RedisLockProvider waiter = new RedisLockProvider(factory,
						RedisLockSettings.defaults().withReplicaAcks(1))) {
			Lease held = holder.tryAcquire(request("handed", "holder", Duration.ofSeconds(30))).orElseThrow();
			try (var waiting = waiter.begin(request("handed", "waiter", Duration.ofSeconds(30)))) {
				assertThat(waiting.tryOnce()).isEmpty(); // queued
				assertThat(held.release()).isTrue(); // hands the lock to the queued waiter
				var granted = waiting.tryOnce().orElseThrow(); // "already yours", then WAIT
				assertThat(granted.lease().fencingToken()).isGreaterThan(held.fencingToken());
				assertThat(new StringRedisTemplate(onReplica).opsForValue().get("distlock:{handed}")).isEqualTo("waiter");
				assertThat(granted.lease().release()).isTrue();
			}
		}
		finally {
			factory.destroy();
			onReplica.destroy();
		}
	}

	@Test
	void aGrantNoReplicaAcknowledgesIsReleasedAndReportedAsAStoreErrorWithinTheLease() {
		LettuceConnectionFactory factory = lonely.connectionFactory();
		try (RedisLockProvider provider = new RedisLockProvider(factory, RedisLockSettings.defaults().withReplicaAcks(1))) {
			long start = System.nanoTime();
			assertThatThrownBy(() -> provider.tryAcquire(request("unacked", "t1", Duration.ofMillis(800))))
				.isInstanceOf(LockStoreException.class)
				.hasMessageContaining("not acknowledged by 1 replica(s) within");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
			StringRedisTemplate redis = new StringRedisTemplate(factory);
			assertThat(redis.hasKey("distlock:{unacked}")).as("released by owner token").isFalse();
			assertThatThrownBy(() -> provider.tryAcquire(new LockRequest("unacked-shared", "t1", Duration.ofMillis(800),
					LockMode.SHARED, 2, OWNER)))
				.isInstanceOf(LockStoreException.class);
			assertThat(redis.hasKey("distlock:{unacked-shared}")).isFalse();
			assertThat(redis.keys("distlock:*:queue")).isEmpty();
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void replicaAcksAreValidatedAndNeedALettuceFactory() {
		assertThatThrownBy(() -> RedisLockSettings.defaults().withReplicaAcks(-1))
			.isInstanceOf(InvalidLockOptionException.class)
			.hasMessageContaining("replicaAcks");
		// Any factory but Lettuce's: the check comes before the factory is used.
		RedisConnectionFactory other = (RedisConnectionFactory) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { RedisConnectionFactory.class }, (proxy, method, args) -> {
					throw new UnsupportedOperationException(method.getName());
				});
		assertThatThrownBy(() -> new RedisLockProvider(other,
				RedisLockSettings.defaults().withReplicaAcks(1)))
			.isInstanceOf(InvalidLockOptionException.class)
			.hasMessageContaining("replicaAcks");
	}

	private static LockRequest request(String key, String token, Duration lease) {
		return new LockRequest(key, token, lease, LockMode.EXCLUSIVE, 1, OWNER);
	}

}
