package dev.distlock.core.memory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.LockIds;
import dev.distlock.core.spi.Acquisition;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockIdSupport;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockRenewal;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.OperatorSupport;
import dev.distlock.core.spi.StatusQuery;
import dev.distlock.core.spi.StoreClock;
import dev.distlock.core.spi.WaitingLockProvider;
import dev.distlock.core.memory.MemorySlot.Holder;

/**
 * Locks inside one JVM, for tests and single-instance applications. Leases expire on the monotonic clock; fencing
 * tokens come from one counter for the whole provider, so they increase per key even after a key's record is gone.
 * Waiters are woken on release; a waiting exclusive request keeps new shared holders out (writer priority). Locks may
 * carry a lock ID and may have no expiry; an expired lock of an ID stays on record for {@link #unlock(String)} and
 * {@link #renew(String, Duration)} until its ID is unlocked or for an hour.
 * <p>
 * This class is the SPI face and the map of {@link MemorySlot}s, one per key; {@link MemoryLease} (a grant),
 * {@link MemoryAcquisition} (a waiter) and {@link MemoryLockIds} (unlock and renew by lock ID, and the records of
 * expired locks) work on the slots through its package-private methods.
 */
public final class InMemoryLockProvider
		implements WaitingLockProvider, OperatorSupport, StoreClock, LockIdSupport {

	private static final int SWEEP_EVERY = 1024;

	private final Map<String, MemorySlot> slots = new ConcurrentHashMap<>();

	/** The waiters of each key, woken when the key is released. */
	private final Map<String, Set<MemoryAcquisition>> watches = new ConcurrentHashMap<>();

	private final MemoryLockIds lockIds = new MemoryLockIds(this);

	private final AtomicLong fencing = new AtomicLong();

	private final AtomicLong acquisitions = new AtomicLong();

	private final LongSupplier nanoClock;

	// The store time of a provider on its own nanosecond clock: the wall time at construction, moved on by that clock.
	private final @Nullable Instant startTime;

	private final long startNanos;

	/**
	 * A provider on {@link System#nanoTime()}; its store time is the JVM's clock.
	 */
	public InMemoryLockProvider() {
		this.nanoClock = System::nanoTime;
		this.startTime = null;
		this.startNanos = 0;
	}

	/**
	 * A provider on the given monotonic nanosecond clock; its store time is the JVM's clock at construction, moved on
	 * by that clock, so a test that moves the clock moves the store time with its leases.
	 */
	public InMemoryLockProvider(LongSupplier nanoClock) {
		this.nanoClock = nanoClock;
		this.startTime = Instant.now();
		this.startNanos = nanoClock.getAsLong();
	}

	@Override
	public String name() {
		return "in-memory";
	}

	@Override
	public Optional<Lease> tryAcquire(LockRequest request) {
		return tryAcquire(request, null);
	}

	/**
	 * One attempt; a refused exclusive attempt of a waiting acquisition ({@code writer}) registers it in the slot.
	 */
	Optional<Lease> tryAcquire(LockRequest request, @Nullable MemoryAcquisition writer) {
		if (acquisitions.incrementAndGet() % SWEEP_EVERY == 0) {
			sweep();
		}
		while (true) {
			MemorySlot slot = slots.computeIfAbsent(request.key(), key -> new MemorySlot());
			synchronized (slot) {
				if (slot.removed) {
					continue; // raced with the last release of this key; take the fresh slot
				}
				long now = now();
				prune(request.key(), slot, now);
				if (!slot.grantable(request)) {
					if (writer != null) {
						slot.writers.add(writer);
					}
					return Optional.empty();
				}
				if (writer != null) {
					slot.writers.remove(writer);
				}
				long token = fencing.incrementAndGet();
				slot.mode = request.mode();
				slot.lastFencing = token;
				slot.holders.put(request.token(), new Holder(request, token, now));
				if (request.lockId() != null) {
					lockIds.granted(request.lockId(), request.key());
				}
				return Optional.of(new MemoryLease(this, request.key(), request.token(), token));
			}
		}
	}

	@Override
	public boolean isLocked(String key) {
		MemorySlot slot = slots.get(key);
		if (slot == null) {
			return false;
		}
		synchronized (slot) {
			prune(key, slot, now());
			return !slot.holders.isEmpty();
		}
	}

	@Override
	public List<LockInfo> status(StatusQuery query) {
		long now = now();
		List<LockInfo> result = new ArrayList<>();
		slots.forEach((key, slot) -> {
			List<LockInfo> infos = new ArrayList<>();
			synchronized (slot) {
				if (slot.removed || slot.holders.isEmpty()) {
					return;
				}
				if (query.lockId() == null) {
					infos.add(slot.info(key, now));
				}
				else {
					slot.holders.values().stream()
						.filter(holder -> query.lockId().equals(holder.lockId))
						.forEach(holder -> infos.add(slot.info(key, holder, now)));
				}
			}
			infos.stream().filter(query::matches).forEach(result::add);
		});
		result.sort(Comparator.comparing(LockInfo::key));
		return result;
	}

	@Override
	public boolean forceRelease(String key) {
		MemorySlot slot = slots.get(key);
		if (slot == null) {
			return false;
		}
		boolean removed;
		synchronized (slot) {
			removed = !slot.removed && !slot.holders.isEmpty();
			slot.holders.clear();
			removeIfIdle(key, slot);
		}
		signalRelease(key);
		return removed;
	}

	@Override
	public List<LockInfo> unlock(String lockId) {
		return lockIds.unlock(LockIds.validate(lockId));
	}

	@Override
	public LockRenewal renew(String lockId, Duration lease) {
		return lockIds.renew(LockIds.validate(lockId), lease);
	}

	@Override
	public Duration ping() {
		return Duration.ZERO;
	}

	/**
	 * The JVM's clock, or for a provider on its own nanosecond clock that clock's time since construction added to
	 * the JVM's clock then.
	 */
	@Override
	public Instant storeTime() {
		return startTime == null ? Instant.now() : startTime.plusNanos(nanoClock.getAsLong() - startNanos);
	}

	/**
	 * Watches the key from the start, so a release between a refused attempt and the wait is never missed. An
	 * exclusive acquisition also keeps new shared holders out while it waits.
	 */
	@Override
	public Acquisition begin(LockRequest request) {
		MemoryAcquisition acquisition = new MemoryAcquisition(this, request);
		watches.computeIfAbsent(request.key(), k -> ConcurrentHashMap.newKeySet()).add(acquisition);
		return acquisition;
	}

	/**
	 * Drops records whose holders have all expired (their fencing tokens stay covered by the provider's counter), and
	 * expired-lock records past their retention.
	 */
	void sweep() {
		long now = now();
		slots.forEach((key, slot) -> {
			synchronized (slot) {
				prune(key, slot, now);
				removeIfIdle(key, slot);
			}
		});
		lockIds.dropOldRecords(now);
	}

	/** Now on the provider's monotonic clock. */
	long now() {
		return nanoClock.getAsLong();
	}

	/** The key's slot, or null when nothing holds or waits for the key. */
	@Nullable MemorySlot slot(String key) {
		return slots.get(key);
	}

	/** Calls the action for each slot, outside its monitor. */
	void forEachSlot(BiConsumer<String, MemorySlot> action) {
		slots.forEach(action);
	}

	/** Prunes the slot's expired holders, keeping a record of those with a lock ID. Under the slot's monitor. */
	void prune(String key, MemorySlot slot, long now) {
		for (Holder holder : slot.prune(now)) {
			if (holder.lockId != null) {
				lockIds.expired(holder.lockId, slot.info(key, holder, now), now);
			}
		}
	}

	/** Drops the slot from the map once nothing holds or waits for it. Under the slot's monitor. */
	void removeIfIdle(String key, MemorySlot slot) {
		if (slot.idle()) {
			slot.removed = true;
			slots.remove(key, slot);
		}
	}

	/** Wakes every waiter of the key. */
	void signalRelease(String key) {
		Set<MemoryAcquisition> waiters = watches.get(key);
		if (waiters != null) {
			waiters.forEach(MemoryAcquisition::signal);
		}
	}

	/** Stops waking the waiter. */
	void unwatch(String key, MemoryAcquisition acquisition) {
		watches.computeIfPresent(key, (k, waiters) -> {
			waiters.remove(acquisition);
			return waiters.isEmpty() ? null : waiters;
		});
	}

}
