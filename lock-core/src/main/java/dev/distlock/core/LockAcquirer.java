package dev.distlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.distlock.core.internal.HandleRegistry;
import dev.distlock.core.spi.Interrupts;
import dev.distlock.core.internal.OwnerTokens;
import dev.distlock.core.internal.StoreCalls;
import dev.distlock.core.internal.WaitLoop;
import dev.distlock.core.spi.Acquisition;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.WaitingLockProvider;

/**
 * How a {@link LockTemplate} takes locks: one {@link WaitLoop} per call, fed by the provider's own
 * {@link Acquisition} when it can wait better than polling and the caller may wait, else by plain attempts; each
 * granted lease becomes a registered handle unless its lease already ran out on the way.
 */
final class LockAcquirer {

	private static final Log logger = LogFactory.getLog(LockAcquirer.class);

	private final LockProvider provider;

	private final StoreCalls store;

	private final HandleRegistry handles;

	private final LongSupplier nanoClock;

	LockAcquirer(LockProvider provider, StoreCalls store, HandleRegistry handles, LongSupplier nanoClock) {
		this.provider = provider;
		this.store = store;
		this.handles = handles;
		this.nanoClock = nanoClock;
	}

	Optional<LockHandle> acquire(LockRequest request, LockOptions options, boolean skip) {
		String groupId = request.lockId();
		String key = request.key();
		WaitLoop.Waiter<LockHandle> waiter;
		if (mayWait(options) && provider instanceof WaitingLockProvider waiting) {
			Acquisition acquisition = waiting.begin(request);
			waiter = new WaitLoop.Waiter<>() {
				@Override
				public @Nullable LockHandle tryOnce(long attemptNanos, long loopNanos) {
					return store.call(key, "acquire", acquisition::tryOnce)
						.map(granted -> held(request, granted.lease(), Math.min(attemptNanos,
								granted.leaseStartNanos()), loopNanos, options, groupId))
						.orElse(null);
				}

				@Override
				public @Nullable Duration longestWait() {
					return acquisition.longestWait();
				}

				@Override
				public void awaitSignal(Duration max) throws InterruptedException {
					acquisition.awaitSignal(max);
				}

				@Override
				public void close() {
					acquisition.close();
				}
			};
		}
		else {
			waiter = (attemptNanos, loopNanos) -> store.call(key, "acquire", () -> provider.tryAcquire(request))
				.map(lease -> held(request, lease, attemptNanos, loopNanos, options, groupId))
				.orElse(null);
		}
		LockAttempt attempt = new LockAttempt(List.of(key), options.mode(), options.name());
		return attempt(attempt, key, options, waiter, skip);
	}

	/**
	 * Takes every key at once; the handles come back in key order, each with {@code groupId} as its group.
	 */
	Optional<List<LockHandle>> acquireAll(List<String> sortedKeys, LockOptions options, String groupId,
			LockRequests requests, boolean skip) {
		String token = OwnerTokens.next();
		List<LockRequest> group = sortedKeys.stream().map(key -> requests.request(key, token, options)).toList();
		String label = String.join(",", sortedKeys);
		// Groups poll with backoff: a release signal on one key says little about the others.
		WaitLoop.Waiter<List<LockHandle>> waiter = (attemptNanos, loopNanos) -> store
			.call(label, "acquire", () -> provider.tryAcquireAll(group))
			.map(leases -> held(group, leases, groupId, attemptNanos, loopNanos, options))
			.orElse(null);
		LockAttempt attempt = new LockAttempt(sortedKeys, options.mode(), options.name());
		return attempt(attempt, label, options, waiter, skip);
	}

	void awaitFree(String key, LockOptions options) {
		WaitLoop.Outcome<Boolean> outcome = WaitLoop.run(key, options, nanoClock,
				(attemptNanos, loopNanos) -> store.call(key, "check", () -> provider.isLocked(key)) ? null : Boolean.TRUE);
		if (outcome.value() == null) {
			throw new LockHeldException(key, outcome.attempts(), outcome.waited());
		}
	}

	/**
	 * The handle for a granted lease, or null (and the lease released) when the lease already ran out by this JVM's
	 * count: a grant that reached the caller late is never handed out as held.
	 */
	private @Nullable LockHandle held(LockRequest request, Lease lease, long startNanos, long loopNanos,
			LockOptions options, @Nullable String groupId) {
		if (ranOut(request, startNanos)) {
			releaseQuietly(request.key(), lease);
			return null;
		}
		return handles.register(request, lease, options, groupId, startNanos, loopNanos);
	}

	private @Nullable List<LockHandle> held(List<LockRequest> group, List<Lease> leases, String groupId, long startNanos,
			long loopNanos, LockOptions options) {
		if (ranOut(group.get(0), startNanos)) {
			for (int i = 0; i < leases.size(); i++) {
				releaseQuietly(group.get(i).key(), leases.get(i));
			}
			return null;
		}
		List<LockHandle> members = new ArrayList<>(leases.size());
		for (int i = 0; i < leases.size(); i++) {
			members.add(handles.register(group.get(i), leases.get(i), options, groupId, startNanos, loopNanos));
		}
		return members;
	}

	private boolean ranOut(LockRequest request, long startNanos) {
		return !request.noExpiry() && startNanos + request.lease().toNanos() - nanoClock.getAsLong() <= 0;
	}

	private void releaseQuietly(String key, Lease lease) {
		try {
			Interrupts.uninterruptibly(lease::release);
		}
		catch (RuntimeException ex) {
			logger.debug("Could not release lock '" + key + "' whose lease ran out before it was granted", ex);
		}
	}

	/**
	 * One acquisition between its start and end events: the end is heard exactly once, whichever way it ends.
	 */
	private <T> Optional<T> attempt(LockAttempt attempt, String label, LockOptions options, WaitLoop.Waiter<T> waiter,
			boolean skip) {
		LockListener listeners = handles.listeners();
		CountedWaiter<T> counted = new CountedWaiter<>(waiter);
		long start = nanoClock.getAsLong();
		listeners.onAcquireStarted(attempt);
		LockAttempt.Outcome ended = LockAttempt.Outcome.ERROR;
		try {
			WaitLoop.Outcome<T> outcome;
			try {
				outcome = run(attempt, label, options, counted);
			}
			catch (LockStoreException ex) {
				ended = LockAttempt.Outcome.STORE_ERROR;
				throw ex;
			}
			catch (LockAcquisitionException ex) {
				// The wait loop throws it only for an interrupt; a lock that stayed held is told below.
				ended = LockAttempt.Outcome.INTERRUPTED;
				throw ex;
			}
			ended = outcome.value() != null ? LockAttempt.Outcome.ACQUIRED
					: skip ? LockAttempt.Outcome.SKIPPED : LockAttempt.Outcome.TIMED_OUT;
			return finish(attempt, label, options, outcome, skip);
		}
		finally {
			listeners.onAcquireEnded(attempt, ended, counted.attempts,
					Duration.ofNanos(nanoClock.getAsLong() - start));
		}
	}

	private <T> WaitLoop.Outcome<T> run(LockAttempt attempt, String label, LockOptions options,
			WaitLoop.Waiter<T> waiter) {
		try {
			return WaitLoop.run(label, options, nanoClock, waiter);
		}
		catch (LockStoreException ex) {
			handles.listeners().onAcquireError(attempt, ex);
			throw ex;
		}
	}

	private <T> Optional<T> finish(LockAttempt attempt, String key, LockOptions options, WaitLoop.Outcome<T> outcome,
			boolean skip) {
		if (outcome.value() != null) {
			return Optional.of(outcome.value());
		}
		handles.listeners().onAcquireFailed(attempt, outcome.attempts(), outcome.waited(), skip);
		if (skip) {
			logger.debug("Lock '" + key + "' is held elsewhere; skipping after " + outcome.attempts() + " attempt(s)");
			return Optional.empty();
		}
		throw new LockAcquisitionException(key, outcome.attempts(), outcome.waited(), null);
	}

	private static boolean mayWait(LockOptions options) {
		return options.retries() > 0 && (options.maxWait() == null || !options.maxWait().isZero());
	}

	/**
	 * Counts the attempts, so that an acquisition ended by an error still tells how many it made.
	 */
	private static final class CountedWaiter<T> implements WaitLoop.Waiter<T> {

		private final WaitLoop.Waiter<T> waiter;

		private int attempts;

		CountedWaiter(WaitLoop.Waiter<T> waiter) {
			this.waiter = waiter;
		}

		@Override
		public @Nullable T tryOnce(long attemptNanos, long loopNanos) {
			attempts++;
			return waiter.tryOnce(attemptNanos, loopNanos);
		}

		@Override
		public void awaitSignal(Duration max) throws InterruptedException {
			waiter.awaitSignal(max);
		}

		@Override
		public @Nullable Duration longestWait() {
			return waiter.longestWait();
		}

		@Override
		public void close() {
			waiter.close();
		}

	}

	/**
	 * Builds the request for one key.
	 */
	@FunctionalInterface
	interface LockRequests {

		LockRequest request(String fullKey, String token, LockOptions options);

	}

}
