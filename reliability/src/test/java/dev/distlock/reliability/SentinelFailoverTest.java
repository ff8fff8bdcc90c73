package dev.distlock.reliability;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.autoconfigure.RedisLockAutoConfiguration;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.LockTemplate;
import dev.distlock.redis.testsupport.RedisSentinelProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A real Sentinel topology (master, replica, three sentinels, quorum 2), reached as an application would through
 * {@code spring.data.redis.sentinel.*}: the master is killed with SIGKILL while clients lock and release, and the
 * service comes back by itself on the promoted replica. Also shows what replication without acknowledgement means for
 * a lock held across the failover. Skipped where {@code redis-server} or {@code redis-cli} is not on PATH.
 */
class SentinelFailoverTest {

	/**
	 * Within this, the service must be back after the kill. A failover takes a few seconds; the bound also covers a
	 * sentinel's 30 s TILT mode, which a loaded machine can trigger by delaying its timer by more than 2 s.
	 */
	static final Duration RECOVERY_BOUND = Duration.ofSeconds(60);

	/**
	 * The longest one call may take, which tells a slow call from a hang (a call that never returns). On a quiet
	 * machine the longest is the 1 s command timeout plus a 1 s connect timeout while Lettuce reconnects or refreshes
	 * the cluster topology, a few seconds at most; a 2-core machine under a load of 12 made one such call take 11.5 s,
	 * every step of it waiting for a core. The bound leaves that room and is still far below what a hang reaches.
	 */
	static final Duration CALL_BOUND = Duration.ofSeconds(30);

	/** Typed errors a client may see while the master is gone. */
	static final Set<String> EXPECTED_ERRORS = Set.of("LockStoreException", "LockAcquisitionException",
			"LockReleaseException");

	private static final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisLockAutoConfiguration.class,
				DistributedLockAutoConfiguration.class))
		.withPropertyValues("distributed-lock.provider=redis", "spring.data.redis.timeout=1s",
				"spring.data.redis.connect-timeout=1s");

	@BeforeAll
	static void needsRedisTools() {
		Assumptions.assumeTrue(RedisSentinelProcess.unavailableReason().isEmpty(),
				() -> "Sentinel test skipped: " + RedisSentinelProcess.unavailableReason().orElse(""));
	}

	@Test
	void killedMasterIsReplacedByTheReplicaAndLockingComesBackWithoutHangsOrUntypedErrors() {
		try (RedisSentinelProcess topology = RedisSentinelProcess.start(Duration.ofSeconds(1))) {
			runner.withPropertyValues(sentinelProperties(topology)).run(context -> {
				assertThat(context).hasNotFailed();
				LockTemplate template = context.getBean(LockTemplate.class);
				try (FailoverLoad load = new FailoverLoad(template, 4, 8)) {
					awaitSuccesses(load, 200);
					load.markFault();
					long killed = System.nanoTime();
					topology.killMaster();
					Duration promoted = topology.awaitPromotion(RECOVERY_BOUND);
					Optional<Duration> recovered = load.awaitRecovery(RECOVERY_BOUND, Duration.ofSeconds(1));
					Reports.figure("redis.sentinel.failover.promotedAfterKill", promoted.toMillis() + " ms");
					Reports.figure("redis.sentinel.failover.serviceBackAfterKill",
							recovered.map(d -> d.toMillis() + " ms").orElse("not within " + RECOVERY_BOUND));
					Reports.figure("redis.sentinel.failover.errors", load.typedErrors() + " typed " + load.typedErrorKinds()
							+ ", untyped " + load.untypedErrors() + ", longest call " + load.longestCall().toMillis()
							+ " ms, cycles " + load.successes());
					assertThat(recovered).as("service back within %s of the kill", RECOVERY_BOUND).isPresent();
					assertThat(Duration.ofNanos(System.nanoTime() - killed)).isLessThan(RECOVERY_BOUND.plusSeconds(5));
					assertThat(load.untypedErrors()).isEmpty();
					assertThat(load.typedErrorKinds().keySet()).isSubsetOf(EXPECTED_ERRORS);
					assertThat(load.longestCall()).isLessThan(CALL_BOUND);
				}
				assertThat(topology.currentMasterPort()).isEqualTo(topology.replica().port());
				FailoverLoad.Exclusion exclusion = FailoverLoad.mutualExclusion(template, 4, 50, 2);
				assertThat(exclusion.counterTotal()).isEqualTo(exclusion.sections());
				assertThat(exclusion.overlaps()).isZero();
				assertThat(exclusion.tokenInversions()).isZero();
			});
		}
	}

	/**
	 * Without replica acknowledgement (acks = 0, the default), a grant the master answered but never sent to
	 * the replica is lost when the master dies: the replica is frozen (SIGSTOP) and its link cut, as when it falls
	 * behind, so the grant stays on the master only; the master is killed, the replica resumed (SIGCONT) and
	 * promoted, and a second client takes the same key while the first still believes it holds it. A lock granted
	 * while replication ran survives. Fencing tokens keep rising across the loss (server TIME), so a fenced resource
	 * still rejects the first holder's writes.
	 */
	@Test
	void withoutReplicaAcksALockGrantedButNotReplicatedIsLostInFailoverAndFencingStillRises() {
		try (RedisSentinelProcess topology = RedisSentinelProcess.start(Duration.ofSeconds(2))) {
			runner.withPropertyValues(sentinelProperties(topology)).run(context -> {
				LockTemplate template = context.getBean(LockTemplate.class);
				LockOptions lease = LockOptions.builder().timeout(Duration.ofSeconds(60)).build();
				LockHandle replicated = template.acquire("replicated", lease);
				awaitOnReplica(topology, "distlock:{replicated}");

				topology.stopReplica();
				LockHandle inKernelBuffer = template.acquire("sent-to-frozen-replica", lease);
				topology.cutReplicationLink();
				LockHandle notReplicated = template.acquire("not-replicated", lease);
				topology.killMaster();
				topology.continueReplica();
				Duration promoted = topology.awaitPromotion(RECOVERY_BOUND);

				LockTemplate second = LockTemplate.builder(template.provider()).build();
				Optional<LockHandle> taken = awaitStore(() -> second.tryAcquire("not-replicated", lease));
				Optional<LockHandle> stolenReplicated = second.tryAcquire("replicated", lease);
				Optional<LockHandle> stolenBuffered = second.tryAcquire("sent-to-frozen-replica", lease);
				Reports.figure("redis.sentinel.acks0.promotedAfterKill", promoted.toMillis() + " ms");
				Reports.figure("redis.sentinel.acks0.notReplicatedGrant", taken.isPresent()
						? "lost: a second client took it, token " + notReplicated.fencingToken() + " -> "
								+ taken.get().fencingToken()
						: "survived");
				Reports.figure("redis.sentinel.acks0.replicatedGrant", stolenReplicated.isPresent() ? "lost" : "survived");
				Reports.figure("redis.sentinel.acks0.grantSentToFrozenReplica",
						stolenBuffered.isPresent() ? "lost" : "survived (already in the replica's socket buffer)");

				assertThat(taken).as("the unreplicated grant is gone after promotion").isPresent();
				assertThat(notReplicated.isHeld()).as("the first holder cannot tell yet").isTrue();
				assertThat(taken.get().fencingToken()).isGreaterThan(notReplicated.fencingToken());
				assertThat(stolenReplicated).as("a replicated grant survives").isEmpty();
				assertThat(stolenBuffered).as("a grant the frozen replica's kernel had received survives").isEmpty();
				second.close();
				replicated.release();
				inKernelBuffer.release();
			});
		}
	}

	/**
	 * With {@code replica-acks=1} every grant waits for the replica's acknowledgement ({@code WAIT}, bounded by the
	 * lease and the 1 s command timeout). Grants made while replication runs are returned and survive the master's
	 * death; while the replica is frozen (SIGSTOP: it sends no acknowledgement) an acquire fails with a typed store
	 * error within its bound and leaves the key free on the master; once the replica is promoted, a second client is
	 * refused every key the first was granted.
	 */
	@Test
	void withReplicaAcksAnUnacknowledgedGrantFailsTypedAndEveryReturnedGrantSurvivesFailover() {
		try (RedisSentinelProcess topology = RedisSentinelProcess.start(Duration.ofSeconds(2))) {
			runner.withPropertyValues(sentinelProperties(topology))
				.withPropertyValues("distributed-lock.redis.replica-acks=1")
				.run(context -> {
					LockTemplate template = context.getBean(LockTemplate.class);
					LockOptions lease = LockOptions.builder().timeout(Duration.ofSeconds(60)).build();
					int grants = 20;
					java.util.List<LockHandle> held = new java.util.ArrayList<>();
					for (int i = 0; i < grants; i++) {
						held.add(template.acquire("acked-" + i, lease));
					}

					topology.stopReplica();
					long start = System.nanoTime();
					Throwable refused = catchThrowable(() -> template.tryAcquire("while-replica-stopped", lease));
					Duration took = Duration.ofNanos(System.nanoTime() - start);
					String onMaster = RedisSentinelProcess.cli(topology.master().port(), "EXISTS",
							"distlock:{while-replica-stopped}").strip();
					Reports.figure("redis.sentinel.acks1.grantWhileReplicaStopped", (refused == null ? "returned"
							: refused.getClass().getSimpleName() + ": " + refused.getMessage()) + " after "
							+ took.toMillis() + " ms; key on master afterwards: " + onMaster);
					assertThat(refused).isInstanceOf(LockStoreException.class)
						.hasMessageContaining("not acknowledged by 1 replica(s) within");
					assertThat(took).isLessThan(CALL_BOUND);
					assertThat(onMaster).as("the unacknowledged grant was released").isEqualTo("0");

					topology.killMaster();
					topology.continueReplica();
					Duration promoted = topology.awaitPromotion(RECOVERY_BOUND);
					LockTemplate second = LockTemplate.builder(template.provider()).build();
					int survived = 0;
					for (int i = 0; i < grants; i++) {
						int index = i;
						if (awaitStore(() -> second.tryAcquire("acked-" + index, lease)).isEmpty()) {
							survived++;
						}
					}
					String stoppedKey = RedisSentinelProcess.cli(topology.replica().port(), "EXISTS",
							"distlock:{while-replica-stopped}").strip();
					Reports.figure("redis.sentinel.acks1.promotedAfterKill", promoted.toMillis() + " ms");
					Reports.figure("redis.sentinel.acks1.acknowledgedGrantsSurvived", survived + " of " + grants);
					assertThat(survived).as("every acknowledged grant still blocks a second client").isEqualTo(grants);
					assertThat(stoppedKey).as("the refused grant is not on the promoted replica").isEqualTo("0");
					assertThat(held).allSatisfy(handle -> assertThat(handle.isHeld()).isTrue());
					second.close();
				});
		}
	}

	static String[] sentinelProperties(RedisSentinelProcess topology) {
		return new String[] { "spring.data.redis.sentinel.master=" + RedisSentinelProcess.MASTER_NAME,
				"spring.data.redis.sentinel.nodes=" + String.join(",", topology.sentinelNodes()) };
	}

	static void awaitSuccesses(FailoverLoad load, long count) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (load.successes() < count) {
			assertThat(System.nanoTime()).as("clients lock before the fault").isLessThan(deadline);
			Thread.sleep(20);
		}
	}

	private static void awaitOnReplica(RedisSentinelProcess topology, String redisKey) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (!RedisSentinelProcess.cli(topology.replica().port(), "EXISTS", redisKey).strip().equals("1")) {
			assertThat(System.nanoTime()).as("%s replicated", redisKey).isLessThan(deadline);
			Thread.sleep(20);
		}
	}

	/** Retries a store call that fails while clients find the new master. */
	private static <T> T awaitStore(java.util.function.Supplier<T> call) throws InterruptedException {
		long deadline = System.nanoTime() + RECOVERY_BOUND.toNanos();
		while (true) {
			try {
				return call.get();
			}
			catch (dev.distlock.core.LockStoreException ex) {
				if (System.nanoTime() > deadline) {
					throw ex;
				}
				Thread.sleep(100);
			}
		}
	}

}
