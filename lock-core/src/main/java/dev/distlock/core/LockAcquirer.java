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
import dev.distlock.core.internal.StoreErrors;
import dev.distlock.core.internal.WaitLoop;
import dev.distlock.core.spi.Acquisition;
import dev.distlock.core.spi.Interrupts;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.WaitingLockProvider;

/**
 * How a {@link LockTemplate} takes locks, read top-down: one {@link WaitLoop} per call says when to attempt, and each
 * attempt calls the provider here, through its own {@link Acquisition} when it can wait better than polling and the
 * caller may wait, else through plain attempts; a provider's error becomes the store error in
 * {@link StoreErrors#error}. Each granted lease becomes a registered handle unless its lease already ran out on the
 * way.
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
		@Nullable Acquisition acquisition = mayWait(options) && provider instanceof WaitingLockProvider waiting
				? waiting.begin(request) : null;
		return take(List.of(request), request.lockId(), false, acquisition, options, skip)
			.map(held -> held.get(0));
	}

	/**
	 * Takes every request's key at once, all under one owner token; the handles come back in the requests' order
	 * (key order), each with {@code groupId} as its group.
	 */
	Optional<List<LockHandle>> acquireAll(List<LockRequest> group, LockOptions options, String groupId,
			boolean skip) {
		// Groups poll with backoff: a release signal on one key says little about the others.
		return take(group, groupId, true, null, options, skip);
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
	 */
	private Optional<List<LockHandle>> take(List<LockRequest> requests, @Nullable String groupId, boolean group,
			@Nullable Acquisition acquisition, LockOptions options, boolean skip) {
		String label;
		List<String> keys;
		if (requests.size() == 1) {
			label = requests.get(0).key();
			keys = List.of(label);
		}
		else {
			keys = requests.stream().map(LockRequest::key).toList();
			label = String.join(",", keys);
		}
		LockAttempt attempt = new LockAttempt(keys, options.mode(), options.name());
		LockListener listeners = handles.listeners();
		long start = nanoClock.getAsLong();
		listeners.onAcquireStarted(attempt);
		WaitLoop loop = WaitLoop.start(label, options, nanoClock, acquisition);
		LockAttempt.Outcome ended = LockAttempt.Outcome.ERROR;
		try {
			List<LockHandle> held = null;
			try {
				try {
					while (held == null && loop.next()) {
						try {
							held = tryOnce(requests, groupId, group, acquisition, label, loop, options);
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
				listeners.onAcquireError(attempt, ex);
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
				return Optional.of(held);
			}
			ended = skip ? LockAttempt.Outcome.SKIPPED : LockAttempt.Outcome.TIMED_OUT;
			return notTaken(attempt, label, loop.attempts(), loop.waited(), skip);
		}
		finally {
			if (handles.listening()) {
				listeners.onAcquireEnded(attempt, ended, loop.attempts(),
						Duration.ofNanos(nanoClock.getAsLong() - start));
			}
		}
	}

	/**
	 * One attempt, straight to the provider: the acquisition's, a plain acquire, or a group's.
	 * @return the handles, or null when the lock is held elsewhere or its lease ran out before it was granted
	 */
	private @Nullable List<LockHandle> tryOnce(List<LockRequest> requests, @Nullable String groupId, boolean group,
			@Nullable Acquisition acquisition, String label, WaitLoop loop, LockOptions options) {
		long attemptNanos = loop.attemptNanos();
		long startNanos = attemptNanos;
		Optional<List<Lease>> leases;
		try {
			if (acquisition != null) {
				Optional<Acquisition.Granted> granted = acquisition.tryOnce();
				if (granted.isPresent()) {
					startNanos = Math.min(attemptNanos, granted.get().leaseStartNanos());
				}
				leases = granted.map(g -> List.of(g.lease()));
			}
			else if (group) {
				leases = provider.tryAcquireAll(requests);
			}
			else {
				leases = provider.tryAcquire(requests.get(0)).map(List::of);
			}
		}
		catch (RuntimeException ex) {
			throw store.error(label, "acquire", ex);
		}
		return leases.isPresent() ? held(requests, leases.get(), groupId, startNanos, loop.startNanos(), options)
				: null;
	}

	/**
	 * The handles for granted leases, or null (and the leases released) when the leases already ran out by this JVM's
	 * count: a grant that reached the caller late is never handed out as held.
	 */
	private @Nullable List<LockHandle> held(List<LockRequest> group, List<Lease> leases, @Nullable String groupId,
			long startNanos, long loopNanos, LockOptions options) {
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

	private <T> Optional<T> notTaken(LockAttempt attempt, String label, int attempts, Duration waited, boolean skip) {
		handles.listeners().onAcquireFailed(attempt, attempts, waited, skip);
		if (skip) {
			logger.debug("Lock '" + label + "' is held elsewhere; skipping after " + attempts + " attempt(s)");
			return Optional.empty();
		}
		throw new LockAcquisitionException(label, attempts, waited, null);
	}

	private static boolean mayWait(LockOptions options) {
		return options.retries() > 0 && (options.maxWait() == null || !options.maxWait().isZero());
	}

}
