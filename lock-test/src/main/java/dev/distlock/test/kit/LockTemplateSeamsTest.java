package dev.distlock.test.kit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import org.assertj.core.api.SoftAssertions;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import dev.distlock.core.LockAttempt;
import dev.distlock.core.DistributedLockException;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockGroup;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockMode;
import dev.distlock.core.LockOperations;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockReleaseException;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.OperatorSupport;
import dev.distlock.core.spi.StoreClock;
import dev.distlock.test.kit.StoreRecords.StoreRecord;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.fail;

/**
 * The seams suite for {@link LockTemplate}: every entry point ({@code acquire}, {@code tryAcquire}, {@code execute},
 * {@code acquireAll}) against the disruptions where a lock meets the Java runtime and the network (interrupts, future
 * cancellation, a paused store, a connection cut around a command, closing the template). Every cell asserts that no
 * two holders are inside at once, that a body never runs without its lock, that once every party has given up the
 * store shows the key free within {@link #FREE_WITHIN} (not after a lease: leases here are {@link #LEASE} long, so a
 * stranded lock shows), that errors are {@link DistributedLockException}s, and that the interrupt status survives.
 * <p>Lock kind is a second dimension ({@link Kind}): each disruption runs for an exclusive leased lock (every entry
 * point, with the original repeats), and once or twice for every other kind (auto-renewed, without expiry, shared,
 * under a lock ID, granted by hand-off, with a minimum hold), through {@code acquire} and, where the cell allows it,
 * {@code acquireAll} (the group). The short-duration cells run leases, holds and extensions from 1 ms up.
 * <p>After every cell the store's raw records are checked through {@link #storeRecords()}: none of this test's may
 * outlive every party unless a live lock without expiry explains it.
 * <p>A store module extends this class and supplies {@link #createProvider()} and {@link #storeRecords()}; stores
 * reached over the network also supply {@link #proxy()} (a {@link TcpProxy} between provider and store) and may
 * override {@link #pauseStore(Duration)}. Cells a store cannot run are skipped with an assumption naming the reason.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
public abstract class LockTemplateSeamsTest {

	/** A lease long enough that a stranded lock is visible for the whole test. */
	protected static final Duration LEASE = Duration.ofSeconds(20);

	/**
	 * How soon after every party gave up the key must read free, on a healthy machine; on a loaded one the bound grows
	 * with the measured round trip ({@link #freeWithin()}).
	 */
	protected static final Duration FREE_WITHIN = Duration.ofSeconds(1);

	/** How many measured round trips a clean-up may take before a key counts as stranded. */
	private static final int ROUND_TRIPS_TO_FREE = 50;

	/** How long commands held back by a pause take to land once the store resumes. */
	protected static final Duration SETTLE = Duration.ofMillis(250);

	/** How long a disrupted caller may take to give up, on a loaded machine. */
	protected static final Duration GIVE_UP_WITHIN = Duration.ofSeconds(5);

	/** How often the cheap interrupt cells run per entry point. */
	protected static final int REPEATS = 5;

	/** What {@link Entry#TRY_ACQUIRE} returns when the lock stayed held. */
	protected static final String NOT_ACQUIRED = "<not acquired>";

	private static final OwnerDetails OWNER = new OwnerDetails("seams-kit", "kit-host");

	private static final OwnerDetails OTHER = new OwnerDetails("seams-other", "other-host");

	/** The provider under test. */
	protected @Nullable LockProvider provider;

	/** A provider on the same store, reached without the proxy where there is one. */
	protected @Nullable LockProvider observerProvider;

	/** The template under test. */
	protected @Nullable LockTemplate template;

	/** Another application instance on the same store: the holder in contended cells and the freeness probe. */
	protected @Nullable LockTemplate observer;

	/** This test's random key prefix. */
	protected String prefix = "";

	/** The random part of {@link #prefix}, also in every lock ID a cell makes: what the leftover check looks for. */
	protected String marker = "";

	private final AtomicInteger lockIds = new AtomicInteger();

	/** The median of a few round trips to the store measured before the test: how loaded the machine is now. */
	protected Duration roundTrip = Duration.ZERO;

	/** Lock-lost signals heard by the template under test or by handles the bodies saw. */
	protected final AtomicInteger lostSignals = new AtomicInteger();

	/** The attempts of the template's last failed acquisition, as its listener heard them. */
	protected final AtomicInteger failedAttempts = new AtomicInteger(-1);

	/** Bodies that ran. */
	protected final AtomicInteger bodies = new AtomicInteger();

	/** Bodies that found one of their handles not held on entry. */
	protected final AtomicInteger bodiesWithoutLock = new AtomicInteger();

	/**
	 * The entry points of {@link LockTemplate} the cells run through.
	 */
	public enum Entry {

		/** {@code acquire} and try-with-resources. */
		ACQUIRE,
		/** {@code tryAcquire} and try-with-resources. */
		TRY_ACQUIRE,
		/** {@code execute} with a callback. */
		EXECUTE,
		/** {@code acquireAll} on two keys and try-with-resources. */
		ACQUIRE_ALL

	}

	/**
	 * The kinds of lock every disruption runs for.
	 */
	public enum Kind {

		/** Exclusive with a lease of {@link #LEASE}: the original cells. */
		LEASED,
		/** Exclusive, renewed by the watchdog every third of a {@link #RENEWED_LEASE} lease. */
		AUTO_RENEW,
		/** Exclusive without expiry: only a release (by handle, lock ID or force) frees it. */
		NO_EXPIRY,
		/** Shared by up to {@link #MAX_CONCURRENT} holders; writers are exclusive leased locks. */
		SHARED,
		/** Exclusive leased, taken in a {@link LockGroup} under a fresh lock ID ({@code group(id).lock/lockAll}). */
		LOCK_ID,
		/** Exclusive leased, granted to the waiting call when another instance's holder releases (hand-off). */
		HAND_OFF,
		/** Exclusive leased with a minimum hold of {@link #MIN_HOLD}: a release shortens the lease to its end. */
		MIN_HOLD;

		/** The options of this kind, from a cell's leased exclusive options. */
		public LockOptions options(LockOptions base) {
			LockOptions.Builder builder = base.toBuilder();
			return switch (this) {
				case LEASED, LOCK_ID -> base;
				case AUTO_RENEW -> builder.timeout(RENEWED_LEASE).autoRenew(true).build();
				case NO_EXPIRY -> builder.noExpiry().build();
				case SHARED -> builder.shared(MAX_CONCURRENT).build();
				case HAND_OFF -> base.maxWait() != null || base.retries() > 0 ? base
						: builder.delay(Duration.ofMillis(20)).waitUpTo(Duration.ofSeconds(10)).build();
				case MIN_HOLD -> builder.holdAtLeast(MIN_HOLD_TIME).build();
			};
		}

	}

	/** The lease of {@link Kind#AUTO_RENEW}: renewed every third, short enough that a stranded one shows. */
	protected static final Duration RENEWED_LEASE = Duration.ofSeconds(3);

	/** The shared limit of {@link Kind#SHARED}. */
	protected static final int MAX_CONCURRENT = 2;

	/** The minimum hold of {@link Kind#MIN_HOLD}: well inside {@link #FREE_WITHIN}. */
	protected static final Duration MIN_HOLD_TIME = Duration.ofMillis(200);

	/**
	 * Every kind with every given entry; the leased exclusive kind with {@code leasedEntries} (the original cells),
	 * the others with {@code otherEntries}, except the kinds excluded.
	 */
	protected static Stream<Arguments> cells(EnumSet<Entry> leasedEntries, EnumSet<Entry> otherEntries,
			Kind... excluded) {
		List<Arguments> cells = new ArrayList<>();
		for (Kind kind : Kind.values()) {
			if (List.of(excluded).contains(kind)) {
				continue;
			}
			for (Entry entry : kind == Kind.LEASED ? leasedEntries : otherEntries) {
				cells.add(Arguments.of(kind, entry));
			}
		}
		return cells.stream();
	}

	static Stream<Arguments> everyEntry() {
		return cells(EnumSet.allOf(Entry.class), EnumSet.of(Entry.ACQUIRE, Entry.ACQUIRE_ALL));
	}

	static Stream<Arguments> waitingEntries() {
		// A hand-off kind adds nothing here: the waiter already waits on a holder that releases.
		return cells(EnumSet.allOf(Entry.class), EnumSet.of(Entry.ACQUIRE, Entry.ACQUIRE_ALL), Kind.HAND_OFF);
	}

	static Stream<Arguments> acquireOrGroup() {
		return cells(EnumSet.of(Entry.ACQUIRE, Entry.ACQUIRE_ALL), EnumSet.of(Entry.ACQUIRE, Entry.ACQUIRE_ALL));
	}

	static Stream<Arguments> acquireExecuteOrGroup() {
		return cells(EnumSet.of(Entry.ACQUIRE, Entry.EXECUTE, Entry.ACQUIRE_ALL), EnumSet.of(Entry.ACQUIRE));
	}

	static Stream<Arguments> acquireOrExecute() {
		return cells(EnumSet.of(Entry.ACQUIRE, Entry.EXECUTE), EnumSet.of(Entry.ACQUIRE));
	}

	/** How often a cheap cell repeats: {@code leased} times for the leased kind, once for the others. */
	protected static int repeats(Kind kind, int leased) {
		return kind == Kind.LEASED ? leased : 1;
	}

	/**
	 * Work done under the lock; gets the handles held.
	 */
	@FunctionalInterface
	protected interface Body {

		/** Runs with the lock held. */
		String run(List<LockHandle> held);

	}

	// ---- store hooks ----

	/**
	 * The provider under test, connected to the store (through {@link #proxy()} where there is one); called before
	 * every test.
	 */
	protected abstract LockProvider createProvider();

	/**
	 * The store's raw records, read around the provider (through the observer connection where there is one), for the
	 * leftover check after every cell. The default reads the observer provider's status, which sees held locks only;
	 * a store overrides it to list every record it keeps (see {@link StoreRecords}).
	 */
	protected StoreRecords storeRecords() {
		if (observerProvider instanceof OperatorSupport status) {
			return StoreRecords.viaStatus(status);
		}
		return marker -> List.of();
	}

	/**
	 * Closes what {@link #createProvider()} opened; called after every test.
	 */
	protected void destroyProvider(LockProvider provider) {
	}

	/**
	 * A provider on the same store for the second template that probes freeness and plays the other holder; by
	 * default the provider under test itself. Stores behind a proxy return one that bypasses it.
	 */
	protected LockProvider createObserverProvider(LockProvider provider) {
		return provider;
	}

	/**
	 * Whether the provider under test gives plain exclusive locks fencing tokens; true by default. A provider
	 * configured without them (Redis {@code fencing=false}) answers false: its plain grants carry the token 0, which
	 * the token checks then expect, while the tokens other grants carry must still increase.
	 */
	protected boolean fencingTokens() {
		return true;
	}

	/**
	 * The proxy between the provider under test and its store, or null for a store without a network; cells that cut
	 * connections are skipped without one.
	 */
	protected @Nullable TcpProxy proxy() {
		return null;
	}

	/**
	 * The store client's command timeout: a call to a stalled store fails after about this long.
	 */
	protected Duration commandTimeout() {
		return Duration.ofSeconds(1);
	}

	/**
	 * Makes the store stop answering for the duration, from now, and returns at once; commands sent meanwhile run
	 * when it resumes. The default stalls {@link #proxy()}.
	 * @return false when this store cannot be paused (the cell is skipped)
	 */
	protected boolean pauseStore(Duration duration) {
		TcpProxy proxy = proxy();
		if (proxy == null) {
			return false;
		}
		proxy.stall(duration);
		return true;
	}

	/**
	 * Ends a pause early (cleanup after a failed cell).
	 */
	protected void resumeStore() {
		TcpProxy proxy = proxy();
		if (proxy != null) {
			proxy.resume();
			proxy.disarm();
		}
	}

	// ---- lifecycle ----

	@BeforeEach
	void createTemplates() {
		provider = createProvider();
		observerProvider = createObserverProvider(provider);
		marker = UUID.randomUUID().toString().substring(0, 8);
		prefix = "seams:" + marker + ":";
		template = newTemplate(provider, OWNER);
		observer = newTemplate(observerProvider, OTHER);
		roundTrip = measureRoundTrip();
	}

	private Duration measureRoundTrip() {
		long[] took = new long[5];
		for (int i = 0; i < took.length; i++) {
			long start = System.nanoTime();
			observer.isLocked("round-trip");
			took[i] = System.nanoTime() - start;
		}
		java.util.Arrays.sort(took);
		return Duration.ofNanos(took[took.length / 2]); // the median: a first connect does not count
	}

	/**
	 * How soon after every party gave up the key must read free: {@link #FREE_WITHIN}, or
	 * {@value #ROUND_TRIPS_TO_FREE} round trips as measured before the test when the machine is loaded.
	 */
	protected Duration freeWithin() {
		Duration scaled = roundTrip.multipliedBy(ROUND_TRIPS_TO_FREE);
		return scaled.compareTo(FREE_WITHIN) > 0 ? scaled : FREE_WITHIN;
	}

	@AfterEach
	void closeTemplates() {
		Thread.interrupted(); // never leave the runner's thread interrupted
		resumeStore();
		try {
			assertNothingImmortalLeft();
		}
		finally {
			closeAll();
		}
	}

	private void closeAll() {
		try {
			if (template != null) {
				template.close();
			}
			if (observer != null) {
				observer.close();
			}
		}
		finally {
			if (observerProvider != null && observerProvider != provider) {
				destroyProvider(observerProvider);
			}
			if (provider != null) {
				destroyProvider(provider);
			}
		}
	}

	/**
	 * A template on the provider under test with this test's prefix and listener.
	 */
	protected LockTemplate newTemplate() {
		return newTemplate(provider, OWNER);
	}

	private LockTemplate newTemplate(LockProvider on, OwnerDetails owner) {
		return newTemplate(on, owner, LockTemplate.DEFAULT_HOLDER_CHECK_INTERVAL);
	}

	private LockTemplate newTemplate(LockProvider on, OwnerDetails owner, Duration holderCheckInterval) {
		return LockTemplate.builder(on).keyPrefix(prefix).owner(owner).holderCheckInterval(holderCheckInterval)
			.listener(new LockListener() {

			@Override
			public void onLost(LockHandle handle, LockLostException cause) {
				lostSignals.incrementAndGet();
			}

			@Override
			public void onAcquireFailed(LockAttempt attempt, int attempts, Duration waited, boolean skipped) {
				failedAttempts.set(attempts);
			}

		}).build();
	}

	// ---- interrupts ----

	/** Interrupt flag set before the call: a typed error, nothing held, the flag still set. */
	@ParameterizedTest(name = "{0} {1}")
	@MethodSource("everyEntry")
	void interruptFlagSetBeforeTheCallThrowsATypedErrorHoldsNothingAndKeepsTheFlag(Kind kind, Entry entry) {
		String key = "pre-interrupted";
		warmUp(kind, entry, key); // connections open, as in a running application
		Thread.currentThread().interrupt();
		Throwable thrown = catchThrowable(() -> enter(kind, entry, template, key, lease(), countingBody()));
		boolean flag = Thread.interrupted();
		SoftAssertions softly = new SoftAssertions();
		softly.assertThat(thrown).as("error of " + kind + " " + entry + " called with the interrupt flag set")
			.isInstanceOf(DistributedLockException.class);
		softly.assertThat(flag).as("interrupt flag after the call").isTrue();
		softly.assertThat(bodies.get()).as("bodies run").isZero();
		softly.assertThat(new LockOperations(template).heldLocks()).as("heldLocks()").isEmpty();
		softly.assertAll();
		assertFree(keys(entry, key));
	}

	/**
	 * A waiter interrupted while a holder holds gives up with a typed error and keeps its flag; once the holder
	 * releases, the key is free at once, never handed to the departed waiter. Repeated, with the interrupt landing at
	 * different points of the wait.
	 */
	@ParameterizedTest(name = "{0} {1}")
	@MethodSource("waitingEntries")
	void interruptWhileWaitingGivesUpTypedAndTheKeyIsNeverHandedToTheDepartedWaiter(Kind kind, Entry entry)
			throws Exception {
		int repeats = kind != Kind.LEASED ? 2 : entry == Entry.ACQUIRE ? 10 : 4;
		for (int i = 0; i < repeats; i++) {
			String key = "wait-" + i;
			LockHandle holder = observer.acquire(key, lease());
			Worker<String> waiter = new Worker<>("seams-waiter-" + i,
					() -> enter(kind, entry, template, key, waitUpTo(Duration.ofSeconds(10)), countingBody()));
			Thread.sleep(40 + (i * 37L) % 160);
			assertThat(waiter.isDone()).as("waiter %d finished while the key was held: %s", i, waiter).isFalse();
			waiter.interrupt();
			assertThat(waiter.await(GIVE_UP_WITHIN)).as("waiter %d gave up after its interrupt", i).isTrue();
			SoftAssertions softly = new SoftAssertions();
			softly.assertThat(waiter.thrown()).as("waiter %d's error", i).isInstanceOf(DistributedLockException.class);
			softly.assertThat(waiter.interruptedAfter()).as("waiter %d's interrupt flag afterwards", i).isTrue();
			softly.assertThat(bodies.get()).as("bodies run").isZero();
			softly.assertAll();
			holder.release();
			assertFree(keys(entry, key));
			assertThat(new LockOperations(template).heldLocks()).as("heldLocks() after waiter %d", i).isEmpty();
		}
	}

	/**
	 * A body that sets its own interrupt flag: the release still happens, the call returns the body's result with no
	 * error, and the flag is still set afterwards. Repeated: whether a client notices the flag can depend on whether
	 * the reply was already there.
	 */
	@ParameterizedTest(name = "{0} {1}")
	@MethodSource("everyEntry")
	void interruptInsideTheBodyStillReleasesReturnsTheResultAndKeepsTheFlag(Kind kind, Entry entry) {
		for (int i = 0; i < repeats(kind, REPEATS); i++) {
			interruptInsideTheBody(kind, entry, "body-interrupt-" + i);
		}
	}

	private void interruptInsideTheBody(Kind kind, Entry entry, String key) {
		AtomicReference<String> result = new AtomicReference<>();
		Throwable thrown = catchThrowable(() -> result.set(enter(kind, entry, template, key, lease(), held -> {
			countingBody().run(held);
			Thread.currentThread().interrupt();
			return "done";
		})));
		boolean flag = Thread.interrupted();
		SoftAssertions softly = new SoftAssertions();
		softly.assertThat(thrown).as("error of " + kind + " " + entry + " after a body that interrupted itself")
			.isNull();
		softly.assertThat(result.get()).as("result").isEqualTo("done");
		softly.assertThat(flag).as("interrupt flag after the call").isTrue();
		softly.assertThat(new LockOperations(template).heldLocks()).as("heldLocks()").isEmpty();
		softly.assertThat(lostSignals.get()).as("lock-lost signals").isZero();
		softly.assertAll();
		assertFree(keys(entry, key));
	}

	/**
	 * A body blocked in a sleep and interrupted from another thread: it ends early, the release works, the result is
	 * returned, the worker keeps its flag.
	 */
	@ParameterizedTest(name = "{0} {1}")
	@MethodSource("everyEntry")
	void bodyInterruptedFromAnotherThreadStillReleasesAndKeepsTheFlag(Kind kind, Entry entry) throws Exception {
		for (int i = 0; i < repeats(kind, REPEATS); i++) {
			bodyInterruptedFromAnotherThread(kind, entry, "body-woken-" + i);
		}
	}

	private void bodyInterruptedFromAnotherThread(Kind kind, Entry entry, String key) throws Exception {
		CountDownLatch entered = new CountDownLatch(1);
		Worker<String> worker = new Worker<>("seams-body", () -> enter(kind, entry, template, key, lease(), held -> {
			countingBody().run(held);
			entered.countDown();
			try {
				Thread.sleep(30_000);
				return "slept";
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return "woken";
			}
		}));
		assertThat(entered.await(GIVE_UP_WITHIN.toMillis(), TimeUnit.MILLISECONDS)).as("body entered").isTrue();
		worker.interrupt();
		assertThat(worker.await(GIVE_UP_WITHIN)).as("call returned after the body woke").isTrue();
		SoftAssertions softly = new SoftAssertions();
		softly.assertThat(worker.thrown()).as("error of " + kind + " " + entry + " after an interrupted body").isNull();
		softly.assertThat(worker.value()).as("result").isEqualTo("woken");
		softly.assertThat(worker.interruptedAfter()).as("worker's interrupt flag afterwards").isTrue();
		softly.assertThat(new LockOperations(template).heldLocks()).as("heldLocks()").isEmpty();
		softly.assertAll();
		assertFree(keys(entry, key));
	}

	/** The interrupt flag set right before the release: the release still happens, the flag is kept. */
	@ParameterizedTest(name = "{0} {1}")
	@MethodSource("acquireOrGroup")
	void interruptFlagSetRightBeforeReleaseStillReleasesAndKeepsTheFlag(Kind kind, Entry entry) {
		for (int i = 0; i < repeats(kind, REPEATS); i++) {
			interruptBeforeRelease(kind, entry, "release-interrupt-" + i);
		}
	}

	private void interruptBeforeRelease(Kind kind, Entry entry, String key) {
		Runnable release = hold(kind, entry, template, key);
		Thread.currentThread().interrupt();
		Throwable thrown = catchThrowable(release::run);
		boolean flag = Thread.interrupted();
		SoftAssertions softly = new SoftAssertions();
		softly.assertThat(thrown).as("error of a release with the interrupt flag set").isNull();
		softly.assertThat(flag).as("interrupt flag after the release").isTrue();
		softly.assertThat(new LockOperations(template).heldLocks()).as("heldLocks()").isEmpty();
		softly.assertThat(lostSignals.get()).as("lock-lost signals").isZero();
		softly.assertAll();
		assertFree(keys(entry, key));
	}

	/**
	 * Threads take turns on one key while another thread interrupts them at random: no two bodies ever overlap, the
	 * unguarded counter ends exact, every error is typed, and the key ends free. For the shared kind three readers
	 * and a writer take turns: at most {@link #MAX_CONCURRENT} readers are inside at once, and the writer alone.
	 */
	@ParameterizedTest(name = "{0} {1}")
	@MethodSource("acquireOrExecute")
	void interruptStormNeverLetsTwoHoldersInAndStrandsNothing(Kind kind, Entry entry) throws Exception {
		String key = "storm";
		SectionOracle oracle = new SectionOracle();
		SharedOracle readers = new SharedOracle();
		ConcurrentLinkedQueue<Throwable> untyped = new ConcurrentLinkedQueue<>();
		ConcurrentLinkedQueue<LockReleaseException> releaseErrors = new ConcurrentLinkedQueue<>();
		AtomicBoolean running = new AtomicBoolean(true);
		LockOptions options = LockOptions.builder()
			.timeout(LEASE)
			.delay(Duration.ofMillis(5))
			.waitUpTo(Duration.ofSeconds(3))
			.build();
		List<Worker<String>> workers = new ArrayList<>();
		int threads = kind == Kind.SHARED ? 4 : 3;
		for (int w = 0; w < threads; w++) {
			// shared: workers 0-2 read, worker 3 writes with a plain exclusive lock
			boolean reader = kind == Kind.SHARED && w < 3;
			Kind workerKind = kind == Kind.SHARED && !reader ? Kind.LEASED : kind;
			workers.add(new Worker<>("seams-storm-" + w, () -> {
				while (running.get()) {
					try {
						enter(workerKind, entry, template, key, options, held -> {
							countingBody().run(held);
							if (kind == Kind.SHARED) {
								readers.section(reader, 2);
							}
							else {
								oracle.section(2);
							}
							return "done";
						});
					}
					catch (LockReleaseException ex) {
						releaseErrors.add(ex);
					}
					catch (DistributedLockException ex) {
						// typed: an interrupted wait or a store call cut short
					}
					catch (RuntimeException ex) {
						untyped.add(ex);
					}
					Thread.interrupted();
				}
				return "stopped";
			}));
		}
		long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(kind == Kind.LEASED ? 2_500 : 1_200);
		while (System.nanoTime() - end < 0) {
			Thread.sleep(ThreadLocalRandom.current().nextInt(3, 15));
			workers.get(ThreadLocalRandom.current().nextInt(workers.size())).interrupt();
		}
		running.set(false);
		for (Worker<String> worker : workers) {
			assertThat(worker.await(Duration.ofSeconds(10))).as("storm worker stopped").isTrue();
		}
		SoftAssertions softly = new SoftAssertions();
		if (kind == Kind.SHARED) {
			// readers must get in (none: the key was stranded); whether the interrupted writer also got a turn in the
			// storm's second depends on the machine's load, so it is not asserted
			softly.assertThat(readers.readerSections()).as("reader sections run").isPositive();
			softly.assertThat(readers.maxReaders()).as("readers inside at once").isLessThanOrEqualTo(MAX_CONCURRENT);
			softly.assertThat(readers.writerOverlaps()).as("writer sections with anyone else inside").isZero();
		}
		else {
			softly.assertThat(oracle.sections()).as("sections run (none: the key was stranded early on)")
				.isPositive();
			softly.assertThat(oracle.maxInside()).as("bodies inside at once").isLessThanOrEqualTo(1);
			softly.assertThat(oracle.count()).as("unguarded counter").isEqualTo(oracle.sections());
		}
		softly.assertThat(bodiesWithoutLock.get()).as("bodies run without their lock").isZero();
		softly.assertThat(untyped).as("errors outside DistributedLockException").isEmpty();
		softly.assertThat(releaseErrors.stream().map(LockTemplateSeamsTest::withCauses).toList())
			.as("LockReleaseExceptions").isEmpty();
		softly.assertAll();
		assertFree(keys(entry, key));
		assertThat(new LockOperations(template).heldLocks()).as("heldLocks()").isEmpty();
	}

	// ---- Future.cancel(true) of a task running execute ----

	/** Cancelled before it starts: the body never runs and nothing is held. */
	@ParameterizedTest
	@EnumSource(Kind.class)
	void cancelBeforeTheTaskStartsNeverRunsTheBody(Kind kind) throws Exception {
		String key = "cancel-before";
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			CountDownLatch gate = new CountDownLatch(1);
			executor.submit(() -> gate.await(10, TimeUnit.SECONDS));
			Future<String> task = executor
				.submit(() -> enter(kind, Entry.EXECUTE, template, key, lease(), countingBody()));
			assertThat(task.cancel(true)).isTrue();
			gate.countDown();
			executor.shutdown();
			assertThat(executor.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
			assertThat(bodies.get()).as("bodies run").isZero();
			assertThat(new LockOperations(template).heldLocks()).as("heldLocks()").isEmpty();
			assertFree(List.of(key));
		}
		finally {
			executor.shutdownNow();
		}
	}

	/**
	 * Cancelled while waiting for a holder: the task gives up with a typed error and keeps its flag, the body never
	 * runs, and once the holder releases the key is free at once.
	 */
	@ParameterizedTest
	@EnumSource(value = Kind.class, mode = EnumSource.Mode.EXCLUDE, names = "HAND_OFF")
	void cancelDuringTheWaitGivesUpAndTheKeyIsNeverHandedToTheCancelledTask(Kind kind) throws Exception {
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			for (int i = 0; i < (kind == Kind.LEASED ? 4 : 2); i++) {
				String key = "cancel-wait-" + i;
				LockHandle holder = observer.acquire(key, lease());
				TaskProbe probe = new TaskProbe();
				Future<?> task = executor.submit(
						probe.wrap(() -> enter(kind, Entry.EXECUTE, template, key, waitUpTo(Duration.ofSeconds(10)),
								countingBody())));
				assertThat(probe.started.await(5, TimeUnit.SECONDS)).isTrue();
				Thread.sleep(60 + i * 50L);
				assertThat(task.cancel(true)).as("task %d still waiting when cancelled", i).isTrue();
				assertThat(probe.done.await(GIVE_UP_WITHIN.toMillis(), TimeUnit.MILLISECONDS))
					.as("cancelled task %d gave up", i)
					.isTrue();
				SoftAssertions softly = new SoftAssertions();
				softly.assertThat(probe.thrown.get()).as("cancelled task %d's error", i)
					.isInstanceOf(DistributedLockException.class);
				softly.assertThat(probe.interruptedAfter.get()).as("task %d's interrupt flag afterwards", i).isTrue();
				softly.assertThat(bodies.get()).as("bodies run").isZero();
				softly.assertAll();
				holder.release();
				assertFree(List.of(key));
				assertThat(new LockOperations(template).heldLocks()).as("heldLocks()").isEmpty();
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	/**
	 * Cancelled while its body runs: the lock stays held until the body truly ends (a body that finishes its work
	 * despite the interrupt), then is released with no error; the flag is kept.
	 */
	@ParameterizedTest
	@EnumSource(Kind.class)
	void cancelDuringTheBodyKeepsTheLockUntilTheBodyEndsThenReleases(Kind kind) throws Exception {
		String key = "cancel-body";
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			CountDownLatch entered = new CountDownLatch(1);
			SectionOracle oracle = new SectionOracle();
			TaskProbe probe = new TaskProbe();
			CountDownLatch probed = new CountDownLatch(1);
			Future<?> task = executor.submit(probe.wrap(() -> enter(kind, Entry.EXECUTE, template, key, lease(), held -> {
				countingBody().run(held);
				entered.countDown();
				// finishes its work even when interrupted, and runs until the other instance has probed, however
				// slow the machine
				awaitIgnoringInterrupts(probed, Duration.ofSeconds(20));
				oracle.section(1);
				return "done";
			})));
			assertThat(entered.await(5, TimeUnit.SECONDS)).isTrue();
			assertThat(task.cancel(true)).isTrue();
			Optional<LockHandle> intruder;
			try {
				intruder = observer.tryAcquire(key, lease());
			}
			finally {
				probed.countDown();
			}
			intruder.ifPresent(LockHandle::release);
			assertThat(intruder).as("another instance got in while the cancelled body still ran").isEmpty();
			assertThat(probe.done.await(GIVE_UP_WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
			SoftAssertions softly = new SoftAssertions();
			softly.assertThat(probe.thrown.get()).as("error of execute after its task was cancelled").isNull();
			softly.assertThat(probe.value.get()).as("result").isEqualTo("done");
			softly.assertThat(probe.interruptedAfter.get()).as("task's interrupt flag afterwards").isTrue();
			softly.assertThat(lostSignals.get()).as("lock-lost signals").isZero();
			softly.assertAll();
			assertFree(List.of(key));
			assertThat(new LockOperations(template).heldLocks()).as("heldLocks()").isEmpty();
		}
		finally {
			executor.shutdownNow();
		}
	}

	// ---- the store paused, connections cut ----

	/**
	 * The store stalls past the command timeout during the call: a typed error within about the timeout, and once the
	 * store resumes (running the acquire it had received) the key is free within a second: cleanup by owner token.
	 */
	@ParameterizedTest(name = "{0} {1}")
	@MethodSource("acquireExecuteOrGroup")
	void storePausedPastTheCommandTimeoutGivesATypedErrorAndLeavesNothingAfterItResumes(Kind kind, Entry entry)
			throws Exception {
		String key = "paused";
		warmUp(kind, entry, key);
		Duration pause = commandTimeout().plusMillis(1_500);
		long start = System.nanoTime();
		Assumptions.assumeTrue(pauseStore(pause), () -> provider.name() + " cannot be paused: no network in between");
		Throwable thrown = catchThrowable(() -> enter(kind, entry, template, key, lease(), countingBody()));
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		SoftAssertions softly = new SoftAssertions();
		softly.assertThat(thrown).as("error of " + kind + " " + entry + " against a paused store")
			.isInstanceOf(DistributedLockException.class);
		softly.assertThat(took).as("time to the error").isLessThan(commandTimeout().plusSeconds(4));
		softly.assertThat(bodies.get()).as("bodies run").isZero();
		softly.assertAll();
		long resumeIn = pause.toNanos() - (System.nanoTime() - start);
		if (resumeIn > 0) {
			TimeUnit.NANOSECONDS.sleep(resumeIn);
		}
		// Let the commands held during the pause reach the store first, so the probe cannot take the key before the
		// stale acquire lands (and hide it).
		Thread.sleep(SETTLE.toMillis());
		assertFree(keys(entry, key));
		assertThat(new LockOperations(template).heldLocks()).as("heldLocks()").isEmpty();
	}

	/**
	 * The store stalls past the command timeout while the holder releases: the release fails typed (or, where the
	 * client waits out the stall, succeeds), and once the store resumes the key is free, no lock-lost signal is sent,
	 * and the template lists nothing: the held-back release landed, or the template ran it again in the background
	 * (every third of the lease, at most every holder-check interval, here 200 ms) and heard that it had.
	 */
	@ParameterizedTest(name = "{0}")
	@EnumSource(value = Kind.class, mode = EnumSource.Mode.EXCLUDE, names = "HAND_OFF")
	void storePausedDuringTheReleaseFailsTypedAndLeavesNothingOnceItResumes(Kind kind) throws Exception {
		// HAND_OFF is left out: it differs from LEASED only in how the lock was granted, not in how it is released
		String key = "paused-release";
		try (LockTemplate retrying = newTemplate(provider, OWNER, Duration.ofMillis(200))) {
			Duration hold = kind.options(lease()).holdAtLeast();
			// A background run may first meet a connection the stall broke: one more command timeout.
			Duration bound = freeWithin().plus(commandTimeout().multipliedBy(2)).plus(hold != null ? hold : Duration.ZERO);
			enter(kind, Entry.ACQUIRE, retrying, key, lease(), countingBody()); // warm up
			assertFree(keys(Entry.ACQUIRE, key), bound); // a minimum hold keeps it a while
			Duration pause = commandTimeout().plusMillis(1_500);
			AtomicLong pausedAt = new AtomicLong();
			Throwable thrown = catchThrowable(() -> enter(kind, Entry.ACQUIRE, retrying, key, lease(), held -> {
				pausedAt.set(System.nanoTime());
				Assumptions.assumeTrue(pauseStore(pause),
						() -> provider.name() + " cannot be paused: no network in between");
				return "done";
			}));
			Duration took = Duration.ofNanos(System.nanoTime() - pausedAt.get());
			if (thrown instanceof org.opentest4j.TestAbortedException aborted) {
				throw aborted;
			}
			if (thrown != null) {
				assertThat(thrown).as("error of a " + kind + " release against a paused store")
					.isInstanceOf(LockReleaseException.class);
				assertThat(took).as("time to the error").isLessThan(commandTimeout().plusSeconds(4));
			}
			long resumeIn = pause.toNanos() - (System.nanoTime() - pausedAt.get());
			if (resumeIn > 0) {
				TimeUnit.NANOSECONDS.sleep(resumeIn);
			}
			Thread.sleep(SETTLE.toMillis());
			assertFree(keys(Entry.ACQUIRE, key), bound);
			long deadline = System.nanoTime() + bound.toNanos();
			while (!new LockOperations(retrying).heldLocks().isEmpty() && System.nanoTime() - deadline < 0) {
				sleep(20);
			}
			SoftAssertions softly = new SoftAssertions();
			softly.assertThat(new LockOperations(retrying).heldLocks()).as("heldLocks() once the store resumed")
				.isEmpty();
			if (kind.options(lease()).timeout().compareTo(pause) > 0) {
				// A stall longer than the lease (AUTO_RENEW's 3 s against a 2 s timeout) lets the lock expire in the
				// store while a renewal hangs: a lost signal is then the truth.
				softly.assertThat(lostSignals.get()).as("lock-lost signals").isZero();
			}
			softly.assertAll();
		}
	}

	/**
	 * A once-per-period lock reads the store's clock before it takes its key (the period's number goes into the key):
	 * against a paused store that read is a typed store error within about the command timeout, no body runs and no
	 * key is taken, as for any other store call.
	 */
	@Test
	void storeClockReadAgainstAPausedStoreIsATypedStoreErrorAndTakesNothing() throws Exception {
		Assumptions.assumeTrue(provider instanceof StoreClock, () -> provider.name() + " has no store clock");
		assertThat(template.storeTime()).isPresent(); // connections open, as in a running application
		Duration pause = commandTimeout().plusMillis(1_500);
		long start = System.nanoTime();
		Assumptions.assumeTrue(pauseStore(pause), () -> provider.name() + " cannot be paused: no network in between");
		Throwable thrown = catchThrowable(template::storeTime);
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		assertThat(thrown).as("clock read against a paused store").isInstanceOf(LockStoreException.class);
		assertThat(took).as("time to the error").isLessThan(commandTimeout().plusSeconds(4));
		long resumeIn = pause.toNanos() - (System.nanoTime() - start);
		if (resumeIn > 0) {
			TimeUnit.NANOSECONDS.sleep(resumeIn);
		}
		assertThat(template.storeTime()).as("clock read once the store resumed").isPresent();
		assertThat(new LockOperations(template).heldLocks()).as("heldLocks()").isEmpty();
	}

	/**
	 * The store's clock read with the interrupt flag set (a period lock's first step): a time or a typed error, never
	 * a raw one, and the flag is still set afterwards.
	 */
	@Test
	void storeClockReadWithTheInterruptFlagSetKeepsTheFlag() {
		Assumptions.assumeTrue(provider instanceof StoreClock, () -> provider.name() + " has no store clock");
		assertThat(template.storeTime()).isPresent();
		Thread.currentThread().interrupt();
		Throwable thrown = catchThrowable(template::storeTime);
		boolean flag = Thread.interrupted();
		if (thrown != null) {
			assertThat(thrown).as("error of a clock read with the flag set").isInstanceOf(DistributedLockException.class);
		}
		assertThat(flag).as("interrupt flag after the clock read").isTrue();
	}

	/**
	 * The connection is cut after the server ran the acquire and before its reply reached the client: the caller
	 * either holds the lock (and its release frees it) or gets a typed error, and either way nothing stays held.
	 */
	@ParameterizedTest(name = "{0} {1}")
	@MethodSource("acquireExecuteOrGroup")
	void connectionCutAfterTheServerRanTheAcquireLeavesNoStrandedLock(Kind kind, Entry entry) throws Exception {
		TcpProxy proxy = requireProxy();
		String key = "cut-acquire";
		warmUp(kind, entry, key);
		CountDownLatch cut = proxy.dropNextReplyAndCut(prefix + key);
		Throwable thrown = catchThrowable(() -> enter(kind, entry, template, key, lease(), countingBody()));
		assertThat(cut.await(5, TimeUnit.SECONDS)).as("the proxy cut the connection after the acquire ran").isTrue();
		SoftAssertions softly = new SoftAssertions();
		if (thrown != null) {
			softly.assertThat(thrown).as("error of " + kind + " " + entry + " whose reply was lost")
				.isInstanceOf(DistributedLockException.class)
				.isNotInstanceOf(LockReleaseException.class);
		}
		softly.assertThat(bodiesWithoutLock.get()).as("bodies run without their lock").isZero();
		softly.assertThat(lostSignals.get()).as("lock-lost signals").isZero();
		softly.assertAll();
		assertFree(keys(entry, key));
		assertThat(new LockOperations(template).heldLocks()).as("heldLocks()").isEmpty();
	}

	/**
	 * The connection is cut after the server ran the release and before its reply: the release is reported as the
	 * success it was (no {@link LockReleaseException}, no lock-lost signal), and the key is free.
	 */
	@ParameterizedTest(name = "{0} {1}")
	@MethodSource("acquireExecuteOrGroup")
	void connectionCutAfterTheServerRanTheReleaseReportsASuccessfulRelease(Kind kind, Entry entry) throws Exception {
		TcpProxy proxy = requireProxy();
		String key = "cut-release";
		warmUp(kind, entry, key);
		AtomicReference<CountDownLatch> cut = new AtomicReference<>();
		AtomicReference<String> result = new AtomicReference<>();
		Throwable thrown = catchThrowable(() -> result.set(enter(kind, entry, template, key, lease(), held -> {
			countingBody().run(held);
			cut.set(proxy.dropNextReplyAndCut(prefix + key)); // the next command naming the key is the release
			return "done";
		})));
		assertThat(cut.get()).as("body ran").isNotNull();
		assertThat(cut.get().await(5, TimeUnit.SECONDS)).as("the proxy cut the connection after the release ran")
			.isTrue();
		SoftAssertions softly = new SoftAssertions();
		softly.assertThat(thrown).as("error of a release whose reply was lost").isNull();
		softly.assertThat(result.get()).as("result").isEqualTo("done");
		softly.assertThat(lostSignals.get()).as("lock-lost signals").isZero();
		softly.assertAll();
		assertFree(keys(entry, key));
		assertThat(new LockOperations(template).heldLocks()).as("heldLocks()").isEmpty();
	}

	/**
	 * The connection is cut after the server ran an extend and before its reply: the extend succeeds (or fails
	 * typed), the lock is not reported lost, and a release still frees it.
	 */
	@ParameterizedTest
	@EnumSource(value = Kind.class, mode = EnumSource.Mode.EXCLUDE, names = "NO_EXPIRY")
	void connectionCutAfterTheServerRanAnExtendKeepsTheLock(Kind kind) throws Exception {
		// NO_EXPIRY is left out: a lock without expiry has no lease to extend
		TcpProxy proxy = requireProxy();
		String key = "cut-extend";
		warmUp(kind, Entry.ACQUIRE, key);
		LockHandle handle = acquireOne(kind, template, key);
		CountDownLatch cut = proxy.dropNextReplyAndCut(prefix + key);
		Throwable thrown = catchThrowable(() -> handle.extend(LEASE));
		assertThat(cut.await(5, TimeUnit.SECONDS)).as("the proxy cut the connection after the extend ran").isTrue();
		SoftAssertions softly = new SoftAssertions();
		softly.assertThat(thrown).as("error of an extend whose reply was lost").isNull();
		softly.assertThat(handle.isHeld()).as("handle held after the extend").isTrue();
		softly.assertThat(lostSignals.get()).as("lock-lost signals").isZero();
		softly.assertThat(catchThrowable(handle::release)).as("error of the release afterwards").isNull();
		softly.assertAll();
		assertFree(List.of(key));
	}

	// ---- shutdown ----

	/** Closing the template while it holds locks frees them in the store. */
	@ParameterizedTest(name = "{0} {1}")
	@MethodSource("acquireOrGroup")
	void closingTheTemplateWhileHoldingFreesTheKey(Kind kind, Entry entry) {
		String key = "close-holding";
		LockTemplate closing = newTemplate();
		hold(kind, entry, closing, key);
		Throwable thrown = catchThrowable(closing::close);
		assertThat(thrown).as("error of close()").isNull();
		assertThat(new LockOperations(closing).heldLocks()).as("heldLocks() after close()").isEmpty();
		assertFree(keys(entry, key));
	}

	/**
	 * Closing the template while an {@code execute} body runs frees the key; the body's call then ends without an
	 * untyped error.
	 */
	@ParameterizedTest
	@EnumSource(Kind.class)
	void closingTheTemplateWhileABodyRunsFreesTheKey(Kind kind) throws Exception {
		String key = "close-running";
		LockTemplate closing = newTemplate();
		CountDownLatch entered = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		Worker<String> worker = new Worker<>("seams-closing",
				() -> enter(kind, Entry.EXECUTE, closing, key, lease(), held -> {
			entered.countDown();
			try {
				finish.await(20, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return "done";
		}));
		try {
			assertThat(entered.await(5, TimeUnit.SECONDS)).isTrue();
			assertThat(catchThrowable(closing::close)).as("error of close()").isNull();
			assertFree(List.of(key));
		}
		finally {
			finish.countDown();
		}
		assertThat(worker.await(GIVE_UP_WITHIN)).isTrue();
		if (worker.thrown() != null) {
			assertThat(worker.thrown()).as("error of the body's call").isInstanceOf(DistributedLockException.class);
		}
	}

	// ---- handles (issue items 12 and 13) ----

	/** A handle whose lease ran out without a release leaves {@code heldLocks()} (item 12). */
	@Test
	void anExpiredNeverReleasedHandleLeavesHeldLocks() throws Exception {
		Duration shortLease = Duration.ofMillis(500);
		LockHandle handle = template.acquire("expiring", LockOptions.builder().timeout(shortLease).build());
		assertThat(new LockOperations(template).heldLocks()).contains(handle);
		long deadline = System.nanoTime() + shortLease.plusSeconds(1).toNanos();
		while (new LockOperations(template).heldLocks().contains(handle) && System.nanoTime() - deadline < 0) {
			Thread.sleep(20);
		}
		assertThat(handle.isHeld()).isFalse();
		assertThat(new LockOperations(template).heldLocks()).as("heldLocks() %d ms after the lease ran out", 1_000).doesNotContain(handle);
	}

	/**
	 * A grant whose reply arrives after its lease has run out locally is never returned as a handle with no time left
	 * (item 13): the store stalls longer than the lease during the acquire.
	 */
	@ParameterizedTest
	@EnumSource(value = Entry.class, names = { "ACQUIRE", "EXECUTE" })
	void aLeaseThatRanOutBeforeItsReplyArrivedIsNeverReturned(Entry entry) throws Exception {
		String key = "late-reply";
		warmUp(entry, key);
		Duration shortLease = Duration.ofMillis(100);
		Duration pause = Duration.ofMillis(400);
		Assumptions.assumeTrue(pause.compareTo(commandTimeout()) < 0, "the pause must stay below the command timeout");
		Assumptions.assumeTrue(pauseStore(pause), () -> provider.name() + " cannot be paused: no network in between");
		AtomicReference<Duration> remainingOnEntry = new AtomicReference<>();
		Throwable thrown = catchThrowable(() -> enter(entry, template, key,
				LockOptions.builder().timeout(shortLease).build(), held -> {
					remainingOnEntry.set(held.get(0).remaining());
					return "done";
				}));
		SoftAssertions softly = new SoftAssertions();
		if (thrown != null) {
			softly.assertThat(thrown).as("error of " + entry).isInstanceOf(DistributedLockException.class);
		}
		if (remainingOnEntry.get() != null) {
			softly.assertThat(remainingOnEntry.get()).as("remaining() of the handle returned").isPositive();
		}
		softly.assertAll();
		Thread.sleep(shortLease.toMillis());
		assertFree(List.of(key));
	}

	// ---- durations shorter than a round trip ----

	/**
	 * What a short-duration cell makes short.
	 */
	public enum Short {

		/** The lease of two instances taking turns on a key. */
		LEASE,
		/** The minimum hold, released just before it ends. */
		HOLD,
		/** An extension of a held lock. */
		EXTEND

	}

	static Stream<Arguments> shortDurations() {
		List<Arguments> cells = new ArrayList<>();
		for (Short what : Short.values()) {
			for (long millis : new long[] { 1, 2, 5, 20 }) {
				cells.add(Arguments.of(what, Duration.ofMillis(millis)));
			}
		}
		return cells.stream();
	}

	/**
	 * Leases, minimum holds and extensions from 1 ms up, shorter than a round trip: on a healthy store every outcome
	 * is "held", "not acquired" or "lost", never a store error; a release inside the minimum hold succeeds; fencing
	 * tokens are never issued twice; and the key ends free with nothing immortal left.
	 */
	@ParameterizedTest(name = "{0} {1}")
	@MethodSource("shortDurations")
	void durationsShorterThanARoundTripGiveTypedOutcomesNeverStoreErrors(Short what, Duration duration)
			throws Exception {
		String key = "short";
		warmUp(Entry.ACQUIRE, key);
		ConcurrentLinkedQueue<Throwable> wrong = new ConcurrentLinkedQueue<>();
		// fencing tokens are per key: each instance's tokens in the order it got them, with the key they are for
		Map<String, List<ConcurrentLinkedQueue<Long>>> tokensByKey = new TreeMap<>();
		List<Worker<String>> workers = new ArrayList<>();
		for (LockTemplate on : List.of(template, observer)) {
			// minimum holds on a key of each instance's own, so the hold is counted from this call's send
			String roundKey = what == Short.HOLD ? key + "." + workers.size() : key;
			ConcurrentLinkedQueue<Long> tokens = new ConcurrentLinkedQueue<>();
			tokensByKey.computeIfAbsent(roundKey, k -> new ArrayList<>()).add(tokens);
			workers.add(new Worker<>("seams-short", () -> {
				for (int i = 0; i < 10; i++) {
					try {
						shortRound(what, duration, i, on, roundKey, tokens);
					}
					catch (LockAcquisitionException | LockLostException | LockReleaseException
							| dev.distlock.core.LockExtendException ex) {
						// typed "not acquired" or "lost": what a lease shorter than a round trip may give
						if (what == Short.HOLD && ex instanceof LockReleaseException) {
							wrong.add(ex); // a release inside the minimum hold, on a lease of 20 s, must work
						}
					}
					catch (Throwable ex) {
						wrong.add(ex);
					}
				}
				return "done";
			}));
		}
		for (Worker<String> worker : workers) {
			assertThat(worker.await(Duration.ofSeconds(30))).as("short-duration worker finished").isTrue();
		}
		assertThat(wrong).as("errors other than 'not acquired' or 'lost' with %s %s on a healthy store", what,
				duration).isEmpty();
		if (what != Short.LEASE) {
			// a lease shorter than a round trip may never be granted in time; a long one with a short hold or
			// extension always is (counted when the lock is got: on a loaded machine a round's extension to 1 ms
			// may run out before its release arrives, which is "lost", a typed outcome, not a missed grant)
			int got = tokensByKey.values().stream().flatMap(List::stream).mapToInt(ConcurrentLinkedQueue::size).sum();
			assertThat(got).as("rounds that got the lock").isPositive();
		}
		tokensByKey.forEach((tokenKey, perInstance) -> {
			List<Long> all = new ArrayList<>();
			for (ConcurrentLinkedQueue<Long> got : perInstance) {
				// Without fencing tokens a plain grant carries 0; the tokens of the others (hand-offs) still increase.
				List<Long> tokens = got.stream().filter(token -> fencingTokens() || token != 0).toList();
				assertThat(tokens).as("fencing tokens on %s one instance got, in order", tokenKey)
					.isSortedAccordingTo(Comparator.naturalOrder())
					.doesNotHaveDuplicates();
				all.addAll(tokens);
			}
			assertThat(all).as("fencing tokens issued on %s (never twice)", tokenKey).doesNotHaveDuplicates();
		});
		Thread.sleep(duration.toMillis());
		assertFree(what == Short.HOLD ? List.of(key + ".0", key + ".1") : List.of(key));
		assertThat(new LockOperations(template).heldLocks()).as("heldLocks()").isEmpty();
	}

	private static void shortRound(Short what, Duration duration, int round, LockTemplate on, String key,
			ConcurrentLinkedQueue<Long> tokens) {
		LockOptions waiting = LockOptions.builder()
			.timeout(LEASE)
			.delay(Duration.ofMillis(1))
			.waitUpTo(Duration.ofSeconds(2))
			.build();
		switch (what) {
			case LEASE -> {
				LockHandle handle = on.acquire(key, waiting.toBuilder().timeout(duration).build());
				tokens.add(handle.fencingToken());
				handle.close();
			}
			case HOLD -> {
				long start = System.nanoTime();
				LockHandle handle = on.acquire(key, waiting.toBuilder().holdAtLeast(duration).build());
				tokens.add(handle.fencingToken());
				// release 50 to 400 us before the hold ends (counted from the send): the lease the release shortens
				// the lock to is then under a round trip
				long[] before = { 50_000, 100_000, 200_000, 400_000 };
				long end = start + duration.toNanos() - before[round % before.length];
				while (System.nanoTime() - end < 0) {
					Thread.onSpinWait();
				}
				handle.release();
			}
			case EXTEND -> {
				LockHandle handle = on.acquire(key, waiting);
				tokens.add(handle.fencingToken());
				try {
					handle.extend(duration);
				}
				finally {
					handle.close();
				}
			}
			default -> throw new IllegalArgumentException(what.name());
		}
	}

	// ---- lock IDs: unlock and renew by ID from another instance racing the adds ----

	/**
	 * One instance adds locks under a lock ID while another loops {@code unlock(id)} and {@code renew(id)}; after the
	 * adds stop, one more {@code unlock(id)} from the other instance frees every key, and nothing immortal is left
	 * (issue 19, case 1: an unlock or renew running during an add must not make the member unreachable by its ID).
	 */
	@ParameterizedTest(name = "noExpiry={0}")
	@org.junit.jupiter.params.provider.ValueSource(booleans = { false, true })
	void unlockAndRenewByIdRacingTheAddsLeaveNoLockUnreachable(boolean noExpiry) throws Exception {
		String lockId = newLockId();
		LockOptions options = noExpiry ? LockOptions.noExpiry() : lease();
		LockGroup group = template.group(lockId);
		AtomicBoolean adding = new AtomicBoolean(true);
		ConcurrentLinkedQueue<Throwable> untyped = new ConcurrentLinkedQueue<>();
		List<String> added = new java.util.concurrent.CopyOnWriteArrayList<>();
		Worker<String> adder = new Worker<>("seams-id-adder", () -> {
			for (int i = 0; i < 300 && adding.get(); i++) {
				String key = "by-id-" + i;
				try {
					group.lock(key, options);
				}
				catch (DistributedLockException ex) {
					// a typed refusal is allowed; what matters is what stays in the store
				}
				added.add(key);
			}
			return "added";
		});
		List<Worker<String>> racers = new ArrayList<>();
		for (int r = 0; r < 2; r++) {
			boolean renewing = r == 1;
			racers.add(new Worker<>("seams-id-racer-" + r, () -> {
				while (!adder.isDone()) {
					try {
						if (renewing) {
							observer.renew(lockId, LEASE);
						}
						else {
							observer.unlock(lockId);
						}
					}
					catch (DistributedLockException ex) {
						// typed
					}
					catch (RuntimeException ex) {
						untyped.add(ex);
					}
				}
				return "raced";
			}));
		}
		Thread.sleep(1_500);
		adding.set(false);
		assertThat(adder.await(Duration.ofSeconds(20))).as("adder stopped").isTrue();
		for (Worker<String> racer : racers) {
			assertThat(racer.await(Duration.ofSeconds(20))).as("racer stopped").isTrue();
		}
		try {
			observer.unlock(lockId);
			List<String> stranded = new ArrayList<>();
			for (String key : added) {
				if (observer.isLocked(key)) {
					stranded.add(key);
				}
			}
			assertThat(untyped).as("errors outside DistributedLockException").isEmpty();
			assertThat(stranded).as("keys still held after a final unlock(id) by the other instance, of %d added",
					added.size()).isEmpty();
		}
		finally {
			// the adder's own handles: each was released by ID, so its release reports it lost
			for (LockHandle handle : group.handles()) {
				catchThrowable(handle::close);
			}
		}
	}

	/**
	 * A lock without expiry released by its ID from another instance, which then takes the key: the first holder's
	 * handle finds its lock gone ({@code isHeld()} false or {@code assertHeld()} throwing {@link LockLostException})
	 * within a generous bound, as the Javadoc promises other processes' handles do (issue 19, case 7).
	 */
	@Test
	void aNoExpiryHandleFindsItsLockGoneAfterAnotherInstanceUnlockedItsId() throws Exception {
		String key = "taken-away";
		String lockId = newLockId();
		LockHandle first = template.group(lockId).lock(key, LockOptions.noExpiry());
		assertThat(observer.unlock(lockId)).as("locks released by unlock(id)").hasSize(1);
		LockHandle second = observer.acquire(key, lease());
		try {
			if (fencingTokens()) {
				assertThat(second.fencingToken()).as("the new holder's fencing token")
					.isGreaterThan(first.fencingToken());
			}
			else {
				assertThat(second.fencingToken()).as("a plain grant without fencing tokens").isZero();
			}
			Duration bound = slack(Duration.ofSeconds(10));
			long deadline = System.nanoTime() + bound.toNanos();
			boolean gone = false;
			while (!gone && System.nanoTime() - deadline < 0) {
				gone = !first.isHeld() || catchThrowable(first::assertHeld) instanceof LockLostException;
				if (!gone) {
					sleep(100);
				}
			}
			assertThat(gone).as("the first holder's handle still says held %d ms after another instance unlocked its "
					+ "ID and took the key", bound.toMillis()).isTrue();
		}
		finally {
			second.release();
			catchThrowable(first::close);
		}
	}

	/**
	 * A lock ID or an owner name with a lone UTF-16 surrogate is refused with a typed error, or else works end to end:
	 * {@code unlock(id)} from the other instance frees the key (issue 19, case 11: a lock the ID can never reach again,
	 * forever without expiry).
	 */
	@Test
	void aLockIdOrOwnerWithBrokenUnicodeIsRefusedTypedOrReachable() {
		String lockId = newLockId() + "\uD800";
		Throwable thrown = catchThrowable(() -> template.group(lockId).lock("broken-id", LockOptions.noExpiry()));
		if (thrown != null) {
			assertThat(thrown).as("error of a lock ID with a lone surrogate").isInstanceOf(DistributedLockException.class);
		}
		else {
			catchThrowable(() -> observer.unlock(lockId));
			assertFree(List.of("broken-id"));
		}
		Throwable ownerThrown = catchThrowable(() -> {
			try (LockTemplate brokenOwner = LockTemplate.builder(provider)
				.keyPrefix(prefix)
				.owner(new OwnerDetails("seams-\uDC00-owner", "host-\uD800"))
				.build()) {
				brokenOwner.acquire("broken-owner", lease()).release();
			}
		});
		if (ownerThrown != null) {
			assertThat(ownerThrown).as("error of an owner name with a lone surrogate")
				.isInstanceOf(DistributedLockException.class);
		}
		assertFree(List.of("broken-owner"));
	}

	/**
	 * A lock without expiry granted by a store that stalled past the command timeout and past the request's unused
	 * lease ({@link LockOptions#noExpiry()}'s default of 10 s): nothing will ever expire that grant, so the clean-up by
	 * owner token must not stop when that lease has passed, and the key is free soon after the store resumes (issue
	 * 19, case 2). Slow (the pause outlasts the 10 s), so it runs once, for this kind only.
	 */
	@Test
	void aNoExpiryGrantMadeByAStorePausedPastItsNominalLeaseIsReleased() throws Exception {
		String key = "paused-forever";
		LockOptions options = LockOptions.noExpiry();
		template.acquire(key, options).release(); // warm up
		Duration pause = options.timeout().plus(commandTimeout()).plusMillis(1_000);
		long start = System.nanoTime();
		Assumptions.assumeTrue(pauseStore(pause), () -> provider.name() + " cannot be paused: no network in between");
		Throwable thrown = catchThrowable(() -> template.acquire(key, options).release());
		assertThat(thrown).as("error of a lock without expiry against a paused store")
			.isInstanceOf(DistributedLockException.class);
		long resumeIn = pause.toNanos() - (System.nanoTime() - start);
		if (resumeIn > 0) {
			TimeUnit.NANOSECONDS.sleep(resumeIn);
		}
		Thread.sleep(SETTLE.toMillis());
		// A clean-up retries about a second apart while the store does not answer, so the one after the resume may
		// start up to a second later and then wait for a core on a loaded machine: two more seconds for that.
		assertFree(List.of(key), freeWithin().plusSeconds(2));
		assertThat(new LockOperations(template).heldLocks()).as("heldLocks()").isEmpty();
	}

	// ---- exact retries and bounded waits (item 15) ----

	/** Retries 3 against a held key: exactly 4 attempts, also on the first contended wait on the key. */
	@ParameterizedTest
	@EnumSource(Entry.class)
	void retriesAreExactOnTheFirstContendedWait(Entry entry) {
		String key = "retries";
		observer.acquire(key, lease());
		LockOptions options = LockOptions.builder().timeout(LEASE).retries(3).delay(Duration.ofMillis(20)).build();
		AtomicReference<String> result = new AtomicReference<>();
		Throwable thrown = catchThrowable(() -> result.set(enter(entry, template, key, options, countingBody())));
		assertThat(bodies.get()).as("bodies run").isZero();
		if (entry == Entry.TRY_ACQUIRE) {
			assertThat(thrown).isNull();
			assertThat(result.get()).isEqualTo(NOT_ACQUIRED);
			assertThat(failedAttempts.get()).as("attempts reported for retries=3").isEqualTo(4);
		}
		else {
			assertThat(thrown).isInstanceOfSatisfying(LockAcquisitionException.class,
					error -> assertThat(error.attempts()).as("attempts() for retries=3").isEqualTo(4));
		}
	}

	/**
	 * maxWait 300 ms against a held key (leased for 20 s): the wait ends within 300 ms plus a slack for a loaded
	 * machine, far below the lease a wait without the bound would run to.
	 */
	@ParameterizedTest
	@EnumSource(value = Entry.class, names = { "ACQUIRE", "EXECUTE", "ACQUIRE_ALL" })
	void maxWaitBoundsTheWaitOnTheFirstContendedWait(Entry entry) {
		String key = "max-wait";
		observer.acquire(key, lease());
		Duration maxWait = Duration.ofMillis(300);
		LockOptions options = LockOptions.builder().timeout(LEASE).delay(Duration.ofMillis(50)).waitUpTo(maxWait).build();
		Throwable thrown = catchThrowable(() -> enter(entry, template, key, options, countingBody()));
		assertThat(bodies.get()).as("bodies run").isZero();
		assertThat(thrown).isInstanceOfSatisfying(LockAcquisitionException.class,
				error -> assertThat(error.waited()).as("waited() for maxWait=300ms")
					.isLessThan(maxWait.plus(slack(Duration.ofSeconds(1)))));
	}

	// ---- helpers ----

	/**
	 * Runs the body under a lock of the kind through the entry point, releasing afterwards as a caller would: a
	 * {@link Kind#LOCK_ID} lock is taken in a fresh group, a {@link Kind#HAND_OFF} call first finds the keys held by
	 * the other instance, which releases them about 60 ms later.
	 * @return the body's result, or {@link #NOT_ACQUIRED} when the lock stayed held
	 */
	protected String enter(Kind kind, Entry entry, LockTemplate on, String key, LockOptions base, Body body) {
		LockOptions options = kind.options(base);
		if (kind == Kind.HAND_OFF) {
			holdBriefly(keys(entry, key));
		}
		if (kind != Kind.LOCK_ID) {
			return enter(entry, on, key, options, body);
		}
		LockGroup group = on.group(newLockId());
		switch (entry) {
			case ACQUIRE, EXECUTE -> {
				// a group has no execute; its handle is closed as execute closes it
				try (LockHandle handle = group.lock(key, options)) {
					return body.run(List.of(handle));
				}
			}
			case TRY_ACQUIRE -> {
				Optional<LockHandle> acquired = group.tryLock(key, options);
				if (acquired.isEmpty()) {
					return NOT_ACQUIRED;
				}
				try (LockHandle handle = acquired.get()) {
					return body.run(List.of(handle));
				}
			}
			case ACQUIRE_ALL -> {
				try (LockGroup all = group.lockAll(keys(entry, key), options)) {
					return body.run(all.handles());
				}
			}
			default -> throw new IllegalArgumentException(entry.name());
		}
	}

	/**
	 * Takes the cell's keys as a caller of the kind would and returns how to release them (cells that release by
	 * hand).
	 */
	protected Runnable hold(Kind kind, Entry entry, LockTemplate on, String key) {
		LockOptions options = kind.options(lease());
		if (kind == Kind.HAND_OFF) {
			holdBriefly(keys(entry, key));
		}
		if (kind == Kind.LOCK_ID) {
			LockGroup group = on.group(newLockId());
			if (entry == Entry.ACQUIRE_ALL) {
				group.lockAll(keys(entry, key), options);
			}
			else {
				group.lock(key, options);
			}
			return group::release;
		}
		if (entry == Entry.ACQUIRE_ALL) {
			LockGroup group = on.acquireAll(keys(entry, key), options);
			return group::release;
		}
		LockHandle handle = acquireOne(kind, on, key);
		return handle::release;
	}

	/** Takes one key as a caller of the kind would and returns its handle. */
	protected LockHandle acquireOne(Kind kind, LockTemplate on, String key) {
		LockOptions options = kind.options(lease());
		if (kind == Kind.HAND_OFF) {
			holdBriefly(List.of(key));
		}
		return kind == Kind.LOCK_ID ? on.group(newLockId()).lock(key, options) : on.acquire(key, options);
	}

	/**
	 * Warms up as {@link #warmUp(Entry, String)} does, with the kind's options; a hand-off kind and a minimum hold
	 * warm up as leased (a minimum hold would keep the key held into the cell).
	 */
	protected void warmUp(Kind kind, Entry entry, String key) {
		Kind warm = kind == Kind.HAND_OFF || kind == Kind.MIN_HOLD ? Kind.LEASED : kind;
		enter(warm, entry, template, key, lease(), held -> "warm");
	}

	/** A fresh lock ID carrying this test's {@link #marker}. */
	protected String newLockId() {
		return "seams-" + marker + "-" + lockIds.incrementAndGet();
	}

	/**
	 * Has the other instance take the keys now and release them about 60 ms later on its own thread, so the caller
	 * that follows waits and is granted the lock by the release (a hand-off where the store hands off). Does nothing
	 * when the keys are already held or the caller's thread is interrupted.
	 */
	private void holdBriefly(List<String> keys) {
		if (Thread.currentThread().isInterrupted()) {
			return;
		}
		Optional<Runnable> release = keys.size() == 1
				? observer.tryAcquire(keys.get(0), lease()).map(handle -> (Runnable) handle::release)
				: observer.tryAcquireAll(keys, lease()).map(group -> (Runnable) group::release);
		release.ifPresent(releaser -> new Worker<>("seams-hand-off", () -> {
			Thread.sleep(60);
			releaser.run();
			return "released";
		}));
	}

	/**
	 * A bound that holds on a healthy machine, grown on a loaded one: {@code healthy}, or 10 measured round trips if
	 * that is longer.
	 */
	protected Duration slack(Duration healthy) {
		Duration scaled = roundTrip.multipliedBy(10);
		return scaled.compareTo(healthy) > 0 ? scaled : healthy;
	}

	/**
	 * The leftover check: within {@link #freeWithin()} plus {@link #SETTLE}, no record of this test in the store is
	 * immortal unless a live handle without expiry (of either template) explains it by its key or lock ID.
	 */
	protected void assertNothingImmortalLeft() {
		StoreRecords records = storeRecords();
		long deadline = System.nanoTime() + freeWithin().plus(SETTLE).toNanos();
		List<StoreRecord> unexplained;
		List<StoreRecord> all;
		while (true) {
			all = records.list(marker);
			List<String> explaining = liveWithoutExpiry();
			unexplained = all.stream()
				.filter(StoreRecord::immortal)
				.filter(record -> explaining.stream().noneMatch(record.name()::contains))
				.toList();
			if (unexplained.isEmpty() || System.nanoTime() - deadline > 0) {
				break;
			}
			sleep(50);
		}
		assertThat(unexplained)
			.as("records of this test the store keeps forever with no live lock without expiry to explain them "
					+ "(every record: %s)", all)
			.isEmpty();
	}

	private List<String> liveWithoutExpiry() {
		List<String> names = new ArrayList<>();
		for (LockTemplate on : new LockTemplate[] { template, observer }) {
			if (on == null) {
				continue;
			}
			for (LockHandle handle : new LockOperations(on).heldLocks()) {
				if (handle.isHeld() && handle.remaining().equals(LockInfo.NO_EXPIRY)) {
					names.add(handle.key());
					if (handle.groupId() != null) {
						names.add(handle.groupId());
					}
				}
			}
		}
		return names;
	}

	/**
	 * Runs the body under the lock through the entry point, releasing afterwards as a caller would.
	 * @return the body's result, or {@link #NOT_ACQUIRED} when {@code tryAcquire} came back empty
	 */
	protected static String enter(Entry entry, LockTemplate on, String key, LockOptions options, Body body) {
		switch (entry) {
			case ACQUIRE -> {
				try (LockHandle handle = on.acquire(key, options)) {
					return body.run(List.of(handle));
				}
			}
			case TRY_ACQUIRE -> {
				Optional<LockHandle> acquired = on.tryAcquire(key, options);
				if (acquired.isEmpty()) {
					return NOT_ACQUIRED;
				}
				try (LockHandle handle = acquired.get()) {
					return body.run(List.of(handle));
				}
			}
			case EXECUTE -> {
				return on.execute(key, options, handle -> body.run(List.of(handle)));
			}
			case ACQUIRE_ALL -> {
				try (LockGroup group = on.acquireAll(keys(entry, key), options)) {
					return body.run(group.handles());
				}
			}
			default -> throw new IllegalArgumentException(entry.name());
		}
	}

	/**
	 * The keys an entry point locks for a cell's key: two for a group.
	 */
	protected static List<String> keys(Entry entry, String key) {
		return entry == Entry.ACQUIRE_ALL ? List.of(key, key + ".2") : List.of(key);
	}

	/** The cells' lease, with no retries. */
	protected static LockOptions lease() {
		return LockOptions.builder().timeout(LEASE).build();
	}

	/** The cells' lease, waiting up to {@code maxWait}. */
	protected static LockOptions waitUpTo(Duration maxWait) {
		return LockOptions.builder().timeout(LEASE).delay(Duration.ofMillis(20)).waitUpTo(maxWait).build();
	}

	/**
	 * A body that counts itself, checks its handles are held and registers for their lock-lost signal.
	 */
	protected Body countingBody() {
		return held -> {
			bodies.incrementAndGet();
			for (LockHandle handle : held) {
				if (!handle.isHeld()) {
					bodiesWithoutLock.incrementAndGet();
				}
				handle.onLost(lostSignals::incrementAndGet);
			}
			return "done";
		};
	}

	/**
	 * Takes and releases the cell's keys once through the template under test, so connections are open, scripts
	 * cached and documents present before a fault is injected.
	 */
	protected void warmUp(Entry entry, String key) {
		enter(entry, template, key, lease(), held -> "warm");
	}

	private TcpProxy requireProxy() {
		TcpProxy proxy = proxy();
		Assumptions.assumeTrue(proxy != null, () -> provider.name() + " has no connection to cut");
		return proxy;
	}

	/**
	 * Asserts each key reads free within {@link #freeWithin()}: the template under test says it is not locked, and a
	 * second template takes it at once (and gives it back).
	 */
	protected void assertFree(List<String> keys) {
		assertFree(keys, freeWithin());
	}

	private void assertFree(List<String> keys, Duration freeWithin) {
		long deadline = System.nanoTime() + freeWithin.toNanos();
		for (String key : keys) {
			String held;
			while ((held = stillHeld(key)) != null) {
				if (System.nanoTime() - deadline > 0) {
					fail("Stranded lock: '" + prefix + key + "' still held " + freeWithin.toMillis()
							+ " ms after every party gave up (" + held + ")");
				}
				sleep(20);
			}
		}
	}

	private @Nullable String stillHeld(String key) {
		try {
			if (template.isLocked(key)) {
				return "isLocked() is true";
			}
		}
		catch (DistributedLockException ex) {
			return "isLocked() failed: " + ex.getMessage();
		}
		Optional<LockHandle> probe;
		try {
			probe = observer.tryAcquire(key, lease());
		}
		catch (DistributedLockException ex) {
			return "a second template's tryAcquire failed: " + ex.getMessage();
		}
		if (probe.isEmpty()) {
			return "a second template's tryAcquire was refused";
		}
		probe.get().release();
		return null;
	}

	private static void awaitIgnoringInterrupts(CountDownLatch latch, Duration max) {
		long deadline = System.nanoTime() + max.toNanos();
		boolean interrupted = false;
		while (latch.getCount() > 0 && System.nanoTime() - deadline < 0) {
			try {
				latch.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while polling the store", ex);
		}
	}

	/**
	 * A call on its own thread, with its outcome and the thread's interrupt flag right after the call.
	 */
	protected static final class Worker<T> {

		private final Thread thread;

		private final CountDownLatch done = new CountDownLatch(1);

		private volatile @Nullable T value;

		private volatile @Nullable Throwable thrown;

		private volatile boolean interruptedAfter;

		/**
		 * Starts the call on a new daemon thread.
		 */
		public Worker(String name, Callable<T> call) {
			this.thread = new Thread(() -> {
				try {
					value = call.call();
				}
				catch (Throwable ex) {
					thrown = ex;
				}
				finally {
					interruptedAfter = Thread.currentThread().isInterrupted();
					done.countDown();
				}
			}, name);
			thread.setDaemon(true);
			thread.start();
		}

		/** Interrupts the worker's thread. */
		public void interrupt() {
			thread.interrupt();
		}

		/** Whether the call has ended. */
		public boolean isDone() {
			return done.getCount() == 0;
		}

		/** Waits for the call to end. */
		public boolean await(Duration max) throws InterruptedException {
			return done.await(max.toMillis(), TimeUnit.MILLISECONDS);
		}

		/** The call's result, or null. */
		public @Nullable T value() {
			return value;
		}

		/** What the call threw, or null. */
		public @Nullable Throwable thrown() {
			return thrown;
		}

		/** Whether the thread's interrupt flag was set right after the call. */
		public boolean interruptedAfter() {
			return interruptedAfter;
		}

		@Override
		public String toString() {
			return "Worker[done=" + isDone() + ", value=" + value + ", thrown=" + thrown + "]";
		}

	}

	/**
	 * Records what a task submitted to an executor did: started, its result or error, its interrupt flag after.
	 */
	private static final class TaskProbe {

		final CountDownLatch started = new CountDownLatch(1);

		final CountDownLatch done = new CountDownLatch(1);

		final AtomicReference<@Nullable Object> value = new AtomicReference<>();

		final AtomicReference<@Nullable Throwable> thrown = new AtomicReference<>();

		final AtomicBoolean interruptedAfter = new AtomicBoolean();

		Runnable wrap(Callable<?> call) {
			return () -> {
				started.countDown();
				try {
					value.set(call.call());
				}
				catch (Throwable ex) {
					thrown.set(ex);
				}
				finally {
					interruptedAfter.set(Thread.currentThread().isInterrupted());
					done.countDown();
				}
			};
		}

	}

	/** An error and its causes on one line, so that a failed assertion says where it came from. */
	private static String withCauses(Throwable error) {
		StringBuilder text = new StringBuilder(error.toString());
		for (Throwable cause = error.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
			text.append(" <- ").append(cause);
		}
		return text.toString();
	}

}
