package dev.distlock.test.kit;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.core.LockExtendException;
import dev.distlock.core.LockGroup;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockHeldException;
import dev.distlock.core.LockMode;
import dev.distlock.core.LockOperations;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockReleaseException;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.OperatorSupport;
import dev.distlock.core.spi.StatusQuery;
import dev.distlock.core.spi.StoreClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The behaviours every provider proves. A provider module extends this class and supplies
 * {@link #createProvider()}; each test works under its own random key prefix, so a shared store needs no cleanup.
 * The lock-ID and writer-priority behaviours ({@link LockIdContract}, {@link WriterPriorityContract}) run here too,
 * and are skipped, naming the capability, on a provider without it.
 */
public abstract class LockProviderContractTest implements LockIdContract, WriterPriorityContract {

	/** The owner details the kit stores with every lock. */
	protected static final OwnerDetails OWNER = new OwnerDetails("contract-kit", "kit-host");

	/** The owner details of {@link #anotherProcess()}. */
	protected static final OwnerDetails OTHER_PROCESS = new OwnerDetails("other-process", "other-host");

	/** A lease short enough to watch expire. */
	protected static final Duration SHORT = Duration.ofMillis(300);

	/** Longer than {@link #SHORT}, with margin for a busy machine. */
	protected static final Duration PAST_SHORT = Duration.ofMillis(600);

	/**
	 * A lease to extend before it ends: long enough that a thread descheduled on a busy machine still extends in time.
	 */
	protected static final Duration MEDIUM = Duration.ofSeconds(1);

	/** Longer than {@link #MEDIUM}, with margin for a busy machine. */
	protected static final Duration PAST_MEDIUM = Duration.ofMillis(1_500);

	/** A lease that never runs out within a test. */
	protected static final Duration LONG = Duration.ofSeconds(30);

	protected @Nullable LockProvider provider;

	protected @Nullable LockTemplate template;

	protected String prefix = "";

	/** Templates of "other processes" opened by {@link #anotherProcess()}, and their providers. */
	private final List<LockTemplate> others = new ArrayList<>();

	private final List<LockProvider> peers = new ArrayList<>();

	/**
	 * A provider connected to a store; called before every test.
	 */
	protected abstract LockProvider createProvider();

	/**
	 * Closes what {@link #createProvider()} opened; called after every test.
	 */
	protected void destroyProvider(LockProvider provider) {
	}

	/**
	 * A second provider on the same store, as another process would open; the default calls
	 * {@link #createProvider()}. A store that lives in one provider instance (in-memory) returns that instance.
	 */
	protected LockProvider createPeerProvider() {
		return createProvider();
	}

	@BeforeEach
	void createTemplate() {
		provider = createProvider();
		prefix = "kit:" + UUID.randomUUID().toString().substring(0, 8) + ":";
		template = newTemplate();
	}

	@AfterEach
	void closeTemplate() {
		others.forEach(LockTemplate::close);
		for (LockProvider peer : peers) {
			if (peer != provider) {
				destroyProvider(peer);
			}
		}
		// Null when createProvider() aborted on an assumption (a store that is not configured here).
		if (template != null) {
			template.close();
		}
		if (provider != null) {
			destroyProvider(provider);
		}
	}

	/** A second template on the same provider and prefix: another "instance" of the application. */
	protected LockTemplate newTemplate() {
		return LockTemplate.builder(provider).keyPrefix(prefix).owner(OWNER).build();
	}

	@Override
	public LockTemplate kitTemplate() {
		return template;
	}

	@Override
	public LockProvider kitProvider() {
		return provider;
	}

	@Override
	public String kitPrefix() {
		return prefix;
	}

	/**
	 * Whether the provider under test gives plain exclusive locks (no lock ID, with expiry, not shared, not in a group)
	 * fencing tokens; true by default. A provider configured without them (Redis {@code fencing=false}) answers false:
	 * its plain grants then carry the token 0, the store keeps no holder details for them (owner, host and grant time
	 * unknown in status) and no record of their release (a release that finds its key gone while its lease runs, as
	 * after a forced release, answers released), and the tests that check these assert exactly that instead; tokens
	 * that a grant does carry (a hand-off to a queued waiter, shared locks, lock IDs) must still strictly increase.
	 */
	@Override
	public boolean fencingTokens() {
		return true;
	}

	/**
	 * A template on a second provider instance on the same store and prefix, with other owner details: another
	 * process of the application.
	 */
	@Override
	public LockTemplate anotherProcess() {
		LockProvider peer = createPeerProvider();
		peers.add(peer);
		LockTemplate other = LockTemplate.builder(peer).keyPrefix(prefix).owner(OTHER_PROCESS).build();
		others.add(other);
		return other;
	}

	protected static LockOptions lease(Duration timeout) {
		return LockOptions.builder().timeout(timeout).build();
	}

	protected static LockOptions waiting(Duration timeout, Duration maxWait) {
		return LockOptions.builder().timeout(timeout).delay(Duration.ofMillis(5)).waitUpTo(maxWait).build();
	}

	// 1
	@Test
	void secondAcquireIsRefusedWhileHeld() {
		LockHandle first = template.acquire("a", lease(LONG));
		assertThat(template.tryAcquire("a", lease(LONG))).isEmpty();
		assertThat(newTemplate().tryAcquire("a", lease(LONG))).isEmpty();
		assertThat(first.isHeld()).isTrue();
	}

	// 2
	@Test
	void differentKeysAreIndependent() {
		LockHandle a = template.acquire("a", lease(LONG));
		LockHandle b = template.acquire("b", lease(LONG));
		assertThat(a.key()).isEqualTo(prefix + "a");
		assertThat(b.key()).isEqualTo(prefix + "b");
		assertThat(new LockOperations(template).heldLocks()).containsExactlyInAnyOrder(a, b);
	}

	// 3
	@Test
	void releaseThenReacquire() {
		LockHandle first = template.acquire("a", lease(LONG));
		first.release();
		assertThat(first.isHeld()).isFalse();
		assertThat(template.isLocked("a")).isFalse();
		LockHandle second = template.acquire("a", lease(LONG));
		assertThat(second.isHeld()).isTrue();
		assertThat(new LockOperations(template).heldLocks()).containsExactly(second);
	}

	// 4
	@Test
	void expiredLockCanBeTakenByAnotherHolder() throws Exception {
		template.acquire("a", lease(SHORT));
		Thread.sleep(PAST_SHORT.toMillis());
		assertThat(template.isLocked("a")).isFalse();
		Optional<LockHandle> next = newTemplate().tryAcquire("a", lease(LONG));
		assertThat(next).isPresent();
	}

	// 5
	@Test
	void staleHolderCannotReleaseOrExtendTheNewHoldersLock() throws Exception {
		LockHandle stale = template.acquire("a", lease(SHORT));
		Thread.sleep(PAST_SHORT.toMillis());
		LockHandle current = newTemplate().acquire("a", lease(LONG));

		assertThatThrownBy(() -> stale.extend(LONG)).isInstanceOf(LockExtendException.class)
			.hasMessageContaining(prefix + "a");
		assertThatThrownBy(stale::release).isInstanceOf(LockReleaseException.class)
			.hasMessageContaining(prefix + "a");
		assertThat(stale.isHeld()).isFalse();
		assertThat(template.isLocked("a")).isTrue();
		assertThat(current.isHeld()).isTrue();
		current.extend(LONG);
		current.release();
		assertThat(template.isLocked("a")).isFalse();
	}

	// 6
	@Test
	void extendKeepsTheLockPastItsOriginalLease() throws Exception {
		LockHandle handle = template.acquire("a", lease(MEDIUM));
		handle.extend(LONG);
		Thread.sleep(PAST_MEDIUM.toMillis());
		assertThat(template.isLocked("a")).isTrue();
		assertThat(newTemplate().tryAcquire("a", lease(LONG))).isEmpty();
		assertThat(handle.remaining()).isGreaterThan(Duration.ofSeconds(25));
		handle.release();
	}

	// 7
	@Test
	void autoRenewKeepsTheLockAliveAcrossSeveralLeases() throws Exception {
		// A 1 s lease renewed every 333 ms leaves room for a starved renewal thread on a busy machine.
		Duration renewed = Duration.ofSeconds(1);
		LockHandle handle = template.acquire("a", LockOptions.builder().timeout(renewed).autoRenew(true).build());
		Thread.sleep(renewed.toMillis() * 3);
		assertThat(handle.isHeld()).isTrue();
		assertThat(newTemplate().tryAcquire("a", lease(LONG))).isEmpty();
		handle.release();
		assertThat(template.isLocked("a")).isFalse();
	}

	// 8
	@Test
	void fencingTokensStrictlyIncreaseAcrossHoldersIncludingAfterExpiry() throws Exception {
		LockHandle first = template.acquire("a", lease(LONG));
		first.release();
		LockHandle second = newTemplate().acquire("a", lease(SHORT));
		Thread.sleep(PAST_SHORT.toMillis());
		LockHandle third = template.acquire("a", lease(LONG));
		third.release();
		LockHandle fourth = newTemplate().acquire("a", lease(LONG));
		List<Long> tokens = List.of(first.fencingToken(), second.fencingToken(), third.fencingToken(),
				fourth.fencingToken());
		if (!fencingTokens()) {
			assertThat(tokens).as("plain grants without fencing tokens").containsOnly(0L);
			return;
		}
		assertThat(tokens).isSorted().doesNotHaveDuplicates();
		assertThat(first.fencingToken()).isPositive();
	}

	// 9
	@Test
	void sharedLockAdmitsUpToMaxConcurrentHoldersThenRefuses() {
		LockOptions shared = LockOptions.builder().timeout(LONG).shared(3).build();
		LockHandle one = template.acquire("s", shared);
		LockHandle two = newTemplate().acquire("s", shared);
		LockHandle three = newTemplate().acquire("s", shared);
		assertThat(newTemplate().tryAcquire("s", shared)).isEmpty();
		assertThat(List.of(one.mode(), two.mode(), three.mode())).containsOnly(LockMode.SHARED);
		assertThat(List.of(one.fencingToken(), two.fencingToken(), three.fencingToken())).doesNotHaveDuplicates();
		two.release();
		assertThat(newTemplate().tryAcquire("s", shared)).isPresent();
	}

	@Test
	void exclusiveIsRefusedWhileAnySharedHolderIsIn() {
		LockHandle shared = template.acquire("s", LockOptions.builder().timeout(LONG).shared(5).build());
		assertThat(newTemplate().tryAcquire("s", lease(LONG))).isEmpty();
		shared.release();
		assertThat(newTemplate().tryAcquire("s", lease(LONG))).isPresent();
	}

	@Test
	void sharedIsRefusedWhileExclusiveIsHeld() {
		LockHandle exclusive = template.acquire("s", lease(LONG));
		assertThat(newTemplate().tryAcquire("s", LockOptions.builder().timeout(LONG).shared(5).build())).isEmpty();
		exclusive.release();
		assertThat(newTemplate().tryAcquire("s", LockOptions.builder().timeout(LONG).shared(5).build())).isPresent();
	}

	@Test
	void expiredSharedHoldersFreeTheirPlaces() throws Exception {
		LockOptions shortShared = LockOptions.builder().timeout(SHORT).shared(1).build();
		template.acquire("s", shortShared);
		Thread.sleep(PAST_SHORT.toMillis());
		assertThat(newTemplate().tryAcquire("s", lease(LONG))).isPresent();
	}

	// 10
	@Test
	void groupIsAllOrNothing() {
		LockHandle blocker = newTemplate().acquire("g2", lease(LONG));
		assertThat(template.tryAcquireAll(List.of("g3", "g1", "g2"), lease(LONG))).isEmpty();
		assertThat(template.isLocked("g1")).isFalse();
		assertThat(template.isLocked("g3")).isFalse();
		assertThat(new LockOperations(template).heldLocks()).isEmpty();
		blocker.release();

		LockGroup group = template.acquireAll(List.of("g3", "g1", "g2"), lease(LONG));
		assertThat(group.handles()).extracting(LockHandle::key).containsExactly(prefix + "g1", prefix + "g2", prefix + "g3");
		assertThat(group.handles()).extracting(LockHandle::groupId).containsOnly(group.id());
		assertThat(newTemplate().tryAcquire("g3", lease(LONG))).isEmpty();
		group.release();
		assertThat(template.isLocked("g1") || template.isLocked("g2") || template.isLocked("g3")).isFalse();
	}

	@Test
	void groupExtendsTogether() throws Exception {
		LockGroup group = template.acquireAll(List.of("g1", "g2"), lease(MEDIUM));
		group.extend(LONG);
		Thread.sleep(PAST_MEDIUM.toMillis());
		assertThat(group.isHeld()).isTrue();
		assertThat(template.isLocked("g1") && template.isLocked("g2")).isTrue();
		group.close();
		assertThat(template.isLocked("g1") || template.isLocked("g2")).isFalse();
	}

	// 11
	@Test
	void awaitFreeReturnsOnceTheKeyIsReleased() throws Exception {
		LockHandle handle = newTemplate().acquire("a", lease(LONG));
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			Future<?> release = executor.submit(() -> {
				Thread.sleep(200);
				handle.release();
				return null;
			});
			template.awaitFree("a", waiting(LONG, Duration.ofSeconds(10)));
			release.get(5, TimeUnit.SECONDS); // the store frees the key before the releaser hears back
			assertThat(handle.isHeld()).isFalse();
			assertThat(template.isLocked("a")).isFalse();
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void awaitFreeThrowsTheHeldErrorAfterItsRetries() {
		newTemplate().acquire("a", lease(LONG));
		LockOptions threeRetries = LockOptions.builder().retries(3).delay(Duration.ofMillis(10)).build();
		assertThatThrownBy(() -> template.awaitFree("a", threeRetries)).isInstanceOfSatisfying(LockHeldException.class,
				error -> {
					assertThat(error.key()).isEqualTo(prefix + "a");
					assertThat(error.attempts()).isGreaterThanOrEqualTo(4);
				});
	}

	// 12
	@Test
	void releasingTwiceIsATypedErrorNeverASilentSuccess() {
		LockHandle handle = template.acquire("a", lease(LONG));
		handle.release();
		assertThatThrownBy(handle::release).isInstanceOf(LockReleaseException.class)
			.hasMessageContaining("already released");
		assertThatThrownBy(() -> handle.extend(LONG)).isInstanceOf(LockExtendException.class);
	}

	@Test
	void aSpentTokenNeitherReleasesNorExtendsAndReleaseIsIdempotent() {
		String key = prefix + "spi";
		Lease lease = provider.tryAcquire(new LockRequest(key, "token-1", LONG, LockMode.EXCLUSIVE, 1, OWNER))
			.orElseThrow();
		assertThat(lease.release()).isTrue();
		// Release is idempotent per token (a client may replay it after a reconnect): the second run answers as the
		// first did, and changes nothing.
		assertThat(lease.release()).isTrue();
		assertThat(provider.isLocked(key)).isFalse();
		assertThat(lease.extend(LONG)).isFalse();
		Lease other = provider.tryAcquire(new LockRequest(key, "token-2", LONG, LockMode.EXCLUSIVE, 1, OWNER))
			.orElseThrow();
		lease.release(); // a spent token's release, whatever it answers, leaves the next holder's lock alone
		assertThat(lease.extend(LONG)).isFalse();
		assertThat(provider.isLocked(key)).isTrue();
		assertThat(other.release()).isTrue();
	}

	// 13
	@Test
	void fuzzUnguardedCounterEndsExactAndFencingTokensNeverGoBackwards() throws Exception {
		FuzzTester.Result result = new FuzzTester(template, 8, List.of("fuzz-1", "fuzz-2"), 100).run();
		assertThat(result.counts()).containsExactly(400L, 400L);
		assertThat(result.fencingViolations()).isZero();
		assertThat(result.sections()).isEqualTo(800);
		if (fencingTokens()) {
			assertThat(result.sectionsWithoutToken()).isZero();
		}
		else {
			// The first command on each key is a free key's plain grant: at least one token 0 per key.
			assertThat(result.sectionsWithoutToken()).isGreaterThanOrEqualTo(2);
		}
	}

	// 14
	@Test
	void statusListsHeldLocksWithOwnerHostAndExpiry() {
		assertThat(provider).isInstanceOf(OperatorSupport.class);
		LockHandle held = template.acquire("st-1", lease(LONG));
		template.acquire("st-2", LockOptions.builder().timeout(LONG).shared(4).build());
		newTemplate().acquire("st-2", LockOptions.builder().timeout(LONG).shared(4).build());

		List<LockInfo> infos = new LockOperations(template).status(StatusQuery.held().withKeyPrefix(prefix));
		assertThat(infos).extracting(LockInfo::key).containsExactly(prefix + "st-1", prefix + "st-2");
		LockInfo first = infos.get(0);
		assertThat(first.owner()).isEqualTo(fencingTokens() ? "contract-kit" : null);
		assertThat(first.host()).isEqualTo(fencingTokens() ? "kit-host" : null);
		assertThat(first.mode()).isEqualTo(LockMode.EXCLUSIVE);
		assertThat(first.fencingToken()).isEqualTo(held.fencingToken());
		assertThat(first.remaining()).isGreaterThan(Duration.ofSeconds(20)).isLessThanOrEqualTo(LONG);
		assertThat(first.holders()).isEqualTo(1);
		assertThat(infos.get(1).mode()).isEqualTo(LockMode.SHARED);
		assertThat(infos.get(1).holders()).isEqualTo(2);

		assertThat(new LockOperations(template).status(StatusQuery.held().withKeyPrefix(prefix).withOwner("someone-else"))).isEmpty();
		assertThat(new LockOperations(template).status(StatusQuery.held().withKeyPrefix(prefix + "st-1"))).hasSize(1);
		assertThat(new LockOperations(template).status(StatusQuery.held().withKeyPrefix(prefix).withTtlBelow(Duration.ofSeconds(1))))
			.isEmpty();
	}

	@Test
	void statusNoLongerListsAReleasedLockAsHeld() {
		template.acquire("st", lease(LONG)).release();
		assertThat(new LockOperations(template).status(StatusQuery.held().withKeyPrefix(prefix))).isEmpty();
	}

	// Beyond the fourteen: behaviours the starter and the operations endpoints rely on.
	@Test
	void forcedReleaseFreesAKeyWhoeverHoldsIt() {
		LockHandle holder = newTemplate().acquire("f", lease(LONG));
		boolean removed;
		try {
			removed = ((OperatorSupport) provider).forceRelease(prefix + "f");
		}
		catch (UnsupportedOperationException ex) {
			Assumptions.abort(provider.name() + " offers no forced release");
			return;
		}
		assertThat(removed).isTrue();
		assertThat(template.isLocked("f")).isFalse();
		assertThat(((OperatorSupport) provider).forceRelease(prefix + "f")).isFalse();
		if (fencingTokens()) {
			assertThatThrownBy(holder::release).isInstanceOf(LockReleaseException.class);
		}
		else {
			// No record of the release: a key gone within the holder's lease reads as its own earlier release.
			holder.release();
		}
	}

	/**
	 * The store's clock is the one its grants are stamped with: a lock taken between two reads of {@link StoreClock}
	 * says it was acquired between them (to the store's precision, a millisecond at worst), whatever the JVM's clock
	 * says. Processes whose clocks differ agree on a period's number only if this holds.
	 */
	@Test
	void storeClockIsTheClockTheStoreStampsGrantsWith() {
		Assumptions.assumeTrue(provider instanceof StoreClock, () -> provider.name() + " has no store clock");
		StoreClock clock = (StoreClock) provider;
		Instant before = clock.storeTime();
		LockHandle held = template.acquire("clock", lease(LONG));
		Instant after = clock.storeTime();
		assertThat(after).as("second clock read").isAfterOrEqualTo(before);
		LockInfo info = new LockOperations(template).status(StatusQuery.held().withKeyPrefix(prefix + "clock")).get(0);
		assertThat(info.fencingToken()).isEqualTo(held.fencingToken());
		if (!fencingTokens()) {
			assertThat(info.acquiredAt()).as("grant time of a plain grant without fencing tokens").isNull();
		}
		else {
			Assumptions.assumeTrue(info.acquiredAt() != null, () -> provider.name() + " records no grant time");
			assertThat(info.acquiredAt()).as("grant time by the store's clock")
				.isBetween(before.truncatedTo(ChronoUnit.MILLIS), after.truncatedTo(ChronoUnit.MILLIS).plusMillis(1));
		}
		assertThat(template.storeTime()).as("the template reads the same clock").get()
			.matches(time -> !time.isBefore(after.truncatedTo(ChronoUnit.MILLIS)), "not before the provider's read");
	}

	@Test
	void storeAnswersAPing() {
		Assumptions.assumeTrue(provider instanceof OperatorSupport, () -> provider.name() + " has no ping");
		assertThat(((OperatorSupport) provider).ping()).isGreaterThanOrEqualTo(Duration.ZERO);
	}

	@Test
	void holdAtLeastKeepsTheLockAfterAnEarlyReleaseUntilTheMinimumHasPassed() throws Exception {
		LockHandle handle = template.acquire("job",
				LockOptions.builder().timeout(LONG).holdAtLeast(Duration.ofMillis(400)).build());
		handle.release();
		assertThat(template.isLocked("job")).isTrue();
		assertThat(newTemplate().tryAcquire("job", lease(LONG))).isEmpty();
		Thread.sleep(700);
		assertThat(newTemplate().tryAcquire("job", lease(LONG))).isPresent();
	}

	@Test
	void aWaiterGetsTheLockOnceTheHolderReleases() throws Exception {
		LockHandle holder = newTemplate().acquire("w", lease(LONG));
		CountDownLatch waiting = new CountDownLatch(1);
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			Future<LockHandle> waiter = executor.submit(() -> {
				waiting.countDown();
				return template.acquire("w", waiting(LONG, Duration.ofSeconds(10)));
			});
			waiting.await();
			Thread.sleep(100);
			assertThat(waiter.isDone()).isFalse();
			long released = holder.fencingToken();
			holder.release();
			LockHandle acquired = waiter.get(15, TimeUnit.SECONDS);
			assertThat(acquired.fencingToken()).isGreaterThan(released);
			assertThat(acquired.waited()).isPositive();
		}
		finally {
			executor.shutdownNow();
		}
	}

}
