package dev.distlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.distlock.core.internal.HandleRegistry;
import dev.distlock.core.internal.StoreErrors;
import dev.distlock.core.internal.WaitLoop;
import dev.distlock.core.spi.Acquisition;
import dev.distlock.core.spi.FirstAttempt;
import dev.distlock.core.spi.Interrupts;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.WaitingLockProvider;

/**
 * How a {@link LockTemplate} takes locks, read top-down: one {@link WaitLoop} per call says when to attempt, and each
 * attempt calls the provider here, through its own {@link Acquisition} when it can wait better than polling and the
 * caller may wait (started by the first attempt, and made only when that one is refused), else through plain
 * attempts; a provider's error becomes the store error in {@link StoreErrors#error}. Each granted lease becomes a
 * registered handle unless its lease already ran out on the way.
 */
final class LockAcquirer {

	private static final Log logger = LogFactory.getLog(LockAcquirer.class);

	private final LockProvider provider;

	private final StoreErrors store;

	private final HandleRegistry handles;

	private final LongSupplier nanoClock;

	LockAcquirer(LockProvider provider, StoreErrors store, HandleRegistry handles, LongSupplier nanoClock) {
		this.provider = provider;
		this.store = store;
		this.handles = handles;
		this.nanoClock = nanoClock;
	}

	Optional<LockHandle> acquire(LockRequest request, LockOptions options, boolean skip) {
		@Nullable WaitingLockProvider waiting = mayWait(options) && provider instanceof WaitingLockProvider provides
				? provides : null;
		List<LockHandle> held = take(List.of(request), request.lockId(), false, waiting, options, skip);
		return held != null ? Optional.of(held.get(0)) : Optional.empty();
	}

	/**
	 * Takes every request's key at once, all under one owner token; the handles come back in the requests' order
	 * (key order), each with {@code groupId} as its group.
	 */
	Optional<List<LockHandle>> acquireAll(List<LockRequest> group, LockOptions options, String groupId,
			boolean skip) {
		// Groups poll with backoff: a release signal on one key says little about the others.
		return Optional.ofNullable(take(group, groupId, true, null, options, skip));
	}

	void awaitFree(String key, LockOptions options) {
		WaitLoop loop = WaitLoop.start(key, options, nanoClock, null);
		try {
			while (loop.next()) {
				boolean locked;
				try {
					locked = provider.isLocked(key);
				}
				catch (RuntimeException ex) {
					throw loop.failed(store.error(key, "check", ex));
				}
				if (!locked) {
					return;
				}
			}
		}
		finally {
			loop.close();
		}
		throw new LockHeldException(key, loop.attempts(), loop.waited());
	}

	/**
	 * One acquisition between its start and end events (the end is heard exactly once, whichever way it ends): the
	 * wait loop's attempts until one is granted, the loop gives up, or an error ends it.
	 * @param waiting the provider that starts an {@link Acquisition} at the first attempt, or null to poll
	 * @return the handles, or null when the lock stayed held and the caller skips
	 */
	private @Nullable List<LockHandle> take(List<LockRequest> requests, @Nullable String groupId, boolean group,
			@Nullable WaitingLockProvider waiting, LockOptions options, boolean skip) {
		String label = requests.size() == 1 ? requests.get(0).key()
				: requests.stream().map(LockRequest::key).collect(Collectors.joining(","));
		// The event exists only for listeners: without one, an acquisition makes none.
		@Nullable LockAttempt attempt = handles.listening() ? new LockAttempt(
				requests.stream().map(LockRequest::key).toList(), options.mode(), options.name()) : null;
		LockListener listeners = handles.listeners();
		// Read only for the listeners' end event.
		long start = attempt != null ? nanoClock.getAsLong() : 0;
		if (attempt != null) {
			listeners.onAcquireStarted(attempt);
		}
		WaitLoop loop = WaitLoop.start(label, options, nanoClock, null);
		LockAttempt.Outcome ended = LockAttempt.Outcome.ERROR;
		try {
			List<LockHandle> held = null;
			try {
				try {
					while (held == null && loop.next()) {
						try {
							held = tryOnce(requests, groupId, group, waiting, label, loop, options);
						}
						catch (RuntimeException ex) {
							throw loop.failed(ex);
						}
					}
				}
				finally {
					loop.close();
				}
			}
			catch (LockStoreException ex) {
				if (attempt != null) {
					listeners.onAcquireError(attempt, ex);
				}
				ended = LockAttempt.Outcome.STORE_ERROR;
				throw ex;
			}
			catch (LockAcquisitionException ex) {
				// The wait loop throws it only for an interrupt; a lock that stayed held is told below.
				ended = LockAttempt.Outcome.INTERRUPTED;
				throw ex;
			}
			if (held != null) {
				ended = LockAttempt.Outcome.ACQUIRED;
				return held;
			}
			ended = skip ? LockAttempt.Outcome.SKIPPED : LockAttempt.Outcome.TIMED_OUT;
			return notTaken(attempt, label, loop.attempts(), loop.waited(), skip);
		}
		finally {
			if (attempt != null) {
				listeners.onAcquireEnded(attempt, ended, loop.attempts(),
						Duration.ofNanos(nanoClock.getAsLong() - start));
			}
		}
	}

	/**
	 * One attempt, straight to the provider: a waiting acquisition's, a plain acquire, or a group's.
	 * @return the handles, or null when the lock is held elsewhere or its lease ran out before it was granted
	 */
	private @Nullable List<LockHandle> tryOnce(List<LockRequest> requests, @Nullable String groupId, boolean group,
			@Nullable WaitingLockProvider waiting, String label, WaitLoop loop, LockOptions options) {
		long attemptNanos = loop.attemptNanos();
		long startNanos = attemptNanos;
		@Nullable List<Lease> leases;
		try {
			if (waiting != null) {
				Acquisition.Granted granted = waitingAttempt(waiting, requests.get(0), loop);
				if (granted != null) {
					startNanos = Math.min(attemptNanos, granted.leaseStartNanos());
				}
				leases = granted != null ? List.of(granted.lease()) : null;
			}
			else if (group) {
				leases = provider.tryAcquireAll(requests).orElse(null);
			}
			else {
				Optional<Lease> lease = provider.tryAcquire(requests.get(0));
				leases = lease.isPresent() ? List.of(lease.get()) : null;
			}
		}
		catch (RuntimeException ex) {
			throw store.error(label, "acquire", ex);
		}
		return leases != null ? held(requests, leases, groupId, startNanos, loop.startNanos(), options) : null;
	}

	/**
	 * An attempt of a waiting acquisition: the first starts it, and when refused hands the loop the acquisition that
	 * goes on from it (nothing is made for waiting when it wins); later ones go through that acquisition.
	 * @return the grant, or null while others hold the lock
	 */
	private static Acquisition.@Nullable Granted waitingAttempt(WaitingLockProvider waiting, LockRequest request,
			WaitLoop loop) {
		Acquisition acquisition = loop.acquisition();
		if (acquisition != null) {
			return acquisition.tryOnce().orElse(null);
		}
		FirstAttempt first = waiting.start(request);
		if (first instanceof Acquisition refused) {
			loop.waitOn(refused);
			return null;
		}
		return (Acquisition.Granted) first;
	}

	/**
	 * The handles for granted leases, or null (and the leases released) when the leases already ran out by this JVM's
	 * count: a grant that reached the caller late is never handed out as held.
	 */
	private @Nullable List<LockHandle> held(List<LockRequest> group, List<Lease> leases, @Nullable String groupId,
			long startNanos, long loopNanos, LockOptions options) {
		// One clock read after the grant: whether the lease ran out on the way, and how long the caller waited.
		long now = nanoClock.getAsLong();
		if (ranOut(group.get(0), startNanos, now)) {
			for (int i = 0; i < leases.size(); i++) {
				releaseQuietly(group.get(i).key(), leases.get(i));
			}
			return null;
		}
		long waitedNanos = now - loopNanos;
		if (leases.size() == 1) {
			return List.of(handles.register(group.get(0), leases.get(0), options, groupId, startNanos, waitedNanos));
		}
		List<LockHandle> members = new ArrayList<>(leases.size());
		for (int i = 0; i < leases.size(); i++) {
			members.add(handles.register(group.get(i), leases.get(i), options, groupId, startNanos, waitedNanos));
		}
		return members;
	}

	private static boolean ranOut(LockRequest request, long startNanos, long now) {
		return !request.noExpiry() && startNanos + request.lease().toNanos() - now <= 0;
	}

	private void releaseQuietly(String key, Lease lease) {
		try {
			Interrupts.uninterruptibly(lease::release);
		}
		catch (RuntimeException ex) {
			logger.debug("Could not release lock '" + key + "' whose lease ran out before it was granted", ex);
		}
	}

	private @Nullable List<LockHandle> notTaken(@Nullable LockAttempt attempt, String label, int attempts,
			Duration waited, boolean skip) {
		if (attempt != null) {
			handles.listeners().onAcquireFailed(attempt, attempts, waited, skip);
		}
		if (skip) {
			logger.debug("Lock '" + label + "' is held elsewhere; skipping after " + attempts + " attempt(s)");
			return null;
		}
		throw new LockAcquisitionException(label, attempts, waited, null);
	}

	private static boolean mayWait(LockOptions options) {
		return options.retries() > 0 && (options.maxWait() == null || !options.maxWait().isZero());
	}

}
