package dev.distlock.core;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.distlock.core.memory.InMemoryLockProvider;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockIdSupport;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRenewal;
import dev.distlock.core.spi.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A release the store cannot take (the store unreachable, or a storm of interrupts) leaves the handle held, and the
 * template runs the release again in the background until it lands: a lock is not left in the store for the rest of
 * its lease, or for good without expiry, because its release failed once. The waits below are bounds on something
 * that happens within a few holder-check intervals of 50 ms, far inside the leases, which are what would free the key
 * without the retries.
 */
class FailedReleaseRetryTest {

	private static final Duration CHECK = Duration.ofMillis(50);

	private static final long BOUND_MILLIS = 30_000;

	private final InMemoryLockProvider store = new InMemoryLockProvider();

	/** While set, every release call fails as a store that cannot be reached does. */
	private final AtomicBoolean storeDown = new AtomicBoolean();

	/** While set, every release call is cut short by an interrupt, again and again. */
	private final AtomicBoolean interruptEveryRelease = new AtomicBoolean();

	private final AtomicInteger releaseCalls = new AtomicInteger();

	/** The template's renewal executor, one thread: a task submitted to it runs after any background run under way. */
	private final ExecutorService renewals = Executors.newSingleThreadExecutor();

	private final List<String> events = new CopyOnWriteArrayList<>();

	private final LockTemplate template = LockTemplate.builder(new FlakyReleases())
		.holderCheckInterval(CHECK)
		.renewalExecutor(renewals)
		.listener(new LockListener() {
			@Override
			public void onReleased(LockHandle handle, Duration heldFor) {
				events.add("released " + handle.key());
			}

			@Override
			public void onReleaseFailed(LockHandle handle, DistributedLockException error) {
				events.add("releaseFailed " + handle.key());
			}

			@Override
			public void onLost(LockHandle handle, LockLostException cause) {
				events.add("lost " + handle.key());
			}
		})
		.build();

	@AfterEach
	void close() {
		template.close();
		renewals.shutdownNow();
	}

	@Test
	void aReleaseTheStoreCouldNotTakeIsRunAgainInTheBackgroundAndFreesTheKeyLongBeforeItsLease() throws Exception {
		LockHandle handle = template.acquire("job", LockOptions.builder().timeout(Duration.ofMinutes(10)).build());
		storeDown.set(true);
		assertThatThrownBy(handle::release).isInstanceOf(LockReleaseException.class)
			.hasCauseInstanceOf(LockStoreException.class);
		assertThat(handle.isHeld()).as("the store may still hold it").isTrue();
		assertThat(store.isLocked("job")).isTrue();
		awaitCalls(3); // the background runs fail while the store is down, and are retried
		assertThat(store.isLocked("job")).isTrue();

		storeDown.set(false);
		awaitFree("job");
		awaitEvents(2); // the listener hears the release just after the store freed the key
		assertThat(handle.isHeld()).isFalse();
		assertThat(new LockOperations(template).heldLocks()).isEmpty();
		assertThat(events).as("listeners hear the caller's failed release, then the release that landed, once")
			.containsExactly("releaseFailed job", "released job");
		int calls = releaseCalls.get();
		Thread.sleep(CHECK.toMillis() * 4);
		assertThat(releaseCalls).as("no run after the release landed").hasValue(calls);
		assertThatThrownBy(handle::release).isInstanceOf(LockReleaseException.class).hasMessageContaining("released");
	}

	@Test
	void aLockWithoutExpiryWhoseReleaseFailedIsNotLeftInTheStoreForGood() throws Exception {
		LockHandle handle = template.acquire("forever", LockOptions.builder().noExpiry().build());
		storeDown.set(true);
		assertThatThrownBy(handle::release).isInstanceOf(LockReleaseException.class);
		awaitCalls(3);
		storeDown.set(false);
		awaitFree("forever");
		awaitEvents(2); // the listener hears the release just after the store freed the key
		assertThat(handle.isHeld()).isFalse();
		assertThat(events).containsExactly("releaseFailed forever", "released forever");
	}

	@Test
	void aReleaseInterruptedOnEveryRunIsRunAgainLaterAndKeepsTheCallersInterrupt() throws Exception {
		LockHandle handle = template.acquire("storm", LockOptions.builder().timeout(Duration.ofMinutes(10)).build());
		interruptEveryRelease.set(true);
		assertThatThrownBy(handle::release).isInstanceOf(LockReleaseException.class);
		assertThat(Thread.interrupted()).as("the caller's interrupt is kept").isTrue();
		interruptEveryRelease.set(false);
		awaitFree("storm");
		awaitEvents(2); // the listener hears the release just after the store freed the key
		assertThat(events).containsExactly("releaseFailed storm", "released storm");
	}

	@Test
	void theCallerMayReleaseAgainWhileTheBackgroundRunsWaitAndOnlyOneReleaseLands() throws Exception {
		LockHandle handle = template.acquire("again", LockOptions.builder().timeout(Duration.ofMinutes(10)).build());
		storeDown.set(true);
		assertThatThrownBy(handle::release).isInstanceOf(LockReleaseException.class);
		storeDown.set(false);
		try {
			handle.release();
		}
		catch (LockReleaseException alreadyReleasedInTheBackground) {
			assertThat(alreadyReleasedInTheBackground).hasMessageContaining("already released");
		}
		awaitFree("again");
		awaitEvents(2); // the listener hears the release just after the store freed the key
		assertThat(events).containsExactly("releaseFailed again", "released again");
	}

	@Test
	void aBackgroundRunThatFindsAnotherHolderEndsTheRunsWithoutALostSignalAndLeavesTheirLock() throws Exception {
		LockHandle handle = template.acquire("taken", LockOptions.builder().timeout(Duration.ofMinutes(10)).build());
		storeDown.set(true);
		assertThatThrownBy(handle::release).isInstanceOf(LockReleaseException.class);
		assertThat(store.forceRelease("taken")).isTrue();
		Optional<Lease> other = store.tryAcquire(new LockRequest("taken", "other-owner",
				Duration.ofMinutes(10), LockMode.EXCLUSIVE, 1, OwnerDetails.local()));
		assertThat(other).isPresent();
		storeDown.set(false);
		long deadline = System.currentTimeMillis() + BOUND_MILLIS;
		while (handle.isHeld() && System.currentTimeMillis() < deadline) {
			Thread.sleep(10);
		}
		assertThat(handle.isHeld()).isFalse();
		assertThat(events).as("no lock-lost signal: the held-back first run may be what freed the key")
			.containsExactly("releaseFailed taken");
		assertThat(new LockOperations(template).heldLocks()).isEmpty();
		assertThat(store.isLocked("taken")).as("the other holder's lock stays").isTrue();
		assertThat(other.get().release()).isTrue();
	}

	@Test
	void aLeaseThatRunsOutEndsTheRunsWithoutAnotherStoreCall() throws Exception {
		LockHandle handle = template.acquire("short", LockOptions.builder().timeout(Duration.ofMillis(300)).build());
		// The handle counts its lease from before the acquire was sent: 300 ms from now, it has run out for certain.
		long runOut = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
		storeDown.set(true);
		assertThatThrownBy(handle::release).isInstanceOf(LockReleaseException.class);
		// Not handle.isHeld(): it is false also while a background run is under way, which puts the handle back as
		// held when the store fails it again.
		while (System.nanoTime() - runOut < 0) {
			Thread.sleep(10);
		}
		// A run that had started when the lease ran out ends first; every later one finds the lease run out.
		renewals.submit(() -> { }).get(BOUND_MILLIS, TimeUnit.MILLISECONDS);
		int calls = releaseCalls.get();
		Thread.sleep(CHECK.toMillis() * 4);
		assertThat(releaseCalls).as("the store let the lock go by itself; nothing more to run").hasValue(calls);
		assertThat(events).containsExactly("releaseFailed short");
		assertThat(new LockOperations(template).heldLocks()).isEmpty();
	}

	private void awaitCalls(int atLeast) throws InterruptedException {
		long deadline = System.currentTimeMillis() + BOUND_MILLIS;
		while (releaseCalls.get() < atLeast && System.currentTimeMillis() < deadline) {
			Thread.sleep(5);
		}
		assertThat(releaseCalls.get()).isGreaterThanOrEqualTo(atLeast);
	}

	private void awaitEvents(int count) throws InterruptedException {
		long deadline = System.currentTimeMillis() + BOUND_MILLIS;
		while (events.size() < count && System.currentTimeMillis() < deadline) {
			Thread.sleep(5);
		}
	}

	private void awaitFree(String key) throws InterruptedException {
		long deadline = System.currentTimeMillis() + BOUND_MILLIS;
		while (store.isLocked(key) && System.currentTimeMillis() < deadline) {
			Thread.sleep(5);
		}
		assertThat(store.isLocked(key)).as("freed by a background run, minutes before its lease").isFalse();
	}

	/** The in-memory store, whose releases fail while {@link #storeDown} or {@link #interruptEveryRelease} is set. */
	private final class FlakyReleases implements LockProvider, LockIdSupport {

		@Override
		public Optional<Lease> tryAcquire(LockRequest request) {
			return store.tryAcquire(request).map(FlakyLease::new);
		}

		@Override
		public boolean isLocked(String key) {
			return store.isLocked(key);
		}

		@Override
		public List<LockInfo> unlock(String lockId) {
			return store.unlock(lockId);
		}

		@Override
		public LockRenewal renew(String lockId, Duration lease) {
			return store.renew(lockId, lease);
		}

	}

	private final class FlakyLease implements Lease {

		private final Lease delegate;

		FlakyLease(Lease delegate) {
			this.delegate = delegate;
		}

		@Override
		public long fencingToken() {
			return delegate.fencingToken();
		}

		@Override
		public boolean extend(Duration lease) {
			return delegate.extend(lease);
		}

		@Override
		public boolean isHeld() {
			return delegate.isHeld();
		}

		@Override
		public boolean release() {
			releaseCalls.incrementAndGet();
			if (storeDown.get()) {
				throw new IllegalStateException("connection refused");
			}
			if (interruptEveryRelease.get()) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("interrupted during the call");
			}
			return delegate.release();
		}

	}

}
