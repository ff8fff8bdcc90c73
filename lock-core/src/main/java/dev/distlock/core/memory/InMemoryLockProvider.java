package dev.distlock.core.memory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.LockMode;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Acquisition;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.LockStatusSource;
import dev.distlock.core.spi.WaitingLockProvider;
import dev.distlock.core.spi.StatusQuery;
import dev.distlock.core.spi.StoreHealth;

/**
 * Locks inside one JVM, for tests and single-instance applications. Leases expire on the monotonic clock; fencing
 * tokens come from one counter for the whole provider, so they increase per key even after a key's record is gone.
 * Waiters are woken on release.
 */
public final class InMemoryLockProvider implements WaitingLockProvider, LockStatusSource, StoreHealth {

	private static final int SWEEP_EVERY = 1024;

	private final Map<String, Slot> slots = new ConcurrentHashMap<>();

	private final Map<String, Set<Signal>> watches = new ConcurrentHashMap<>();

	private final AtomicLong fencing = new AtomicLong();

	private final AtomicLong acquisitions = new AtomicLong();

	private final LongSupplier nanoClock;

	/**
	 * A provider on {@link System#nanoTime()}.
	 */
	public InMemoryLockProvider() {
		this(System::nanoTime);
	}

	/**
	 * A provider on the given monotonic nanosecond clock.
	 */
	public InMemoryLockProvider(LongSupplier nanoClock) {
		this.nanoClock = nanoClock;
	}

	@Override
	public String name() {
		return "in-memory";
	}

	@Override
	public Optional<Lease> tryAcquire(LockRequest request) {
		if (acquisitions.incrementAndGet() % SWEEP_EVERY == 0) {
			sweep();
		}
		while (true) {
			Slot slot = slots.computeIfAbsent(request.key(), key -> new Slot());
			synchronized (slot) {
				if (slot.removed) {
					continue; // raced with the last release of this key; take the fresh slot
				}
				long now = nanoClock.getAsLong();
				slot.prune(now);
				// Three cases: free, shared with room for a shared request, or held.
				boolean free = slot.holders.isEmpty();
				boolean roomToShare = request.shared() && slot.mode == LockMode.SHARED
						&& slot.holders.size() < request.maxConcurrent();
				if (!free && !roomToShare) {
					return Optional.empty();
				}
				long token = fencing.incrementAndGet();
				slot.mode = request.mode();
				slot.lastFencing = token;
				slot.holders.put(request.token(), new Holder(request.owner(), Instant.now(),
						now + request.lease().toNanos()));
				return Optional.of(new MemoryLease(request.key(), request.token(), token));
			}
		}
	}

	@Override
	public boolean isLocked(String key) {
		Slot slot = slots.get(key);
		if (slot == null) {
			return false;
		}
		synchronized (slot) {
			slot.prune(nanoClock.getAsLong());
			return !slot.holders.isEmpty();
		}
	}

	@Override
	public List<LockInfo> status(StatusQuery query) {
		long now = nanoClock.getAsLong();
		List<LockInfo> result = new ArrayList<>();
		slots.forEach((key, slot) -> {
			LockInfo info;
			synchronized (slot) {
				if (slot.removed || slot.holders.isEmpty()) {
					return;
				}
				info = slot.info(key, now);
			}
			if (query.matches(info)) {
				result.add(info);
			}
		});
		result.sort(Comparator.comparing(LockInfo::key));
		return result;
	}

	@Override
	public boolean forceRelease(String key) {
		Slot slot = slots.get(key);
		if (slot == null) {
			return false;
		}
		boolean removed;
		synchronized (slot) {
			removed = !slot.removed && !slot.holders.isEmpty();
			slot.holders.clear();
			slot.removed = true;
			slots.remove(key, slot);
		}
		signalRelease(key);
		return removed;
	}

	@Override
	public Duration ping() {
		return Duration.ZERO;
	}

	/**
	 * Watches the key from the start, so a release between a refused attempt and the wait is never missed.
	 */
	@Override
	public Acquisition begin(LockRequest request) {
		Signal signal = new Signal(request);
		watches.computeIfAbsent(request.key(), k -> ConcurrentHashMap.newKeySet()).add(signal);
		return signal;
	}

	/**
	 * Drops records whose holders have all expired; their fencing tokens stay covered by the provider's counter.
	 */
	void sweep() {
		long now = nanoClock.getAsLong();
		slots.forEach((key, slot) -> {
			synchronized (slot) {
				slot.prune(now);
				if (slot.holders.isEmpty()) {
					slot.removed = true;
					slots.remove(key, slot);
				}
			}
		});
	}

	private void signalRelease(String key) {
		Set<Signal> signals = watches.get(key);
		if (signals != null) {
			signals.forEach(signal -> signal.permits.release());
		}
	}

	private static final class Slot {

		private final Map<String, Holder> holders = new LinkedHashMap<>();

		private LockMode mode = LockMode.EXCLUSIVE;

		private long lastFencing;

		private boolean removed;

		void prune(long now) {
			holders.values().removeIf(holder -> now - holder.expiresAt >= 0);
		}

		LockInfo info(String key, long now) {
			Holder first = holders.values().iterator().next();
			long latest = holders.values().stream().mapToLong(holder -> holder.expiresAt).max().orElse(now);
			int live = (int) holders.values().stream().filter(holder -> now - holder.expiresAt < 0).count();
			return new LockInfo(key, mode, first.owner.owner(), first.owner.host(), lastFencing, first.acquiredAt,
					Duration.ofNanos(latest - now), live);
		}

	}

	private static final class Holder {

		private final OwnerDetails owner;

		private final Instant acquiredAt;

		private long expiresAt;

		Holder(OwnerDetails owner, Instant acquiredAt, long expiresAt) {
			this.owner = owner;
			this.acquiredAt = acquiredAt;
			this.expiresAt = expiresAt;
		}

	}

	private final class MemoryLease implements Lease {

		private final String key;

		private final String token;

		private final long fencingToken;

		/** Set once this lease released its lock, so a second release answers as the first did. */
		private volatile boolean released;

		MemoryLease(String key, String token, long fencingToken) {
			this.key = key;
			this.token = token;
			this.fencingToken = fencingToken;
		}

		@Override
		public long fencingToken() {
			return fencingToken;
		}

		@Override
		public boolean extend(Duration lease) {
			Slot slot = slots.get(key);
			if (slot == null) {
				return false;
			}
			synchronized (slot) {
				long now = nanoClock.getAsLong();
				slot.prune(now);
				Holder holder = slot.removed ? null : slot.holders.get(token);
				if (holder == null) {
					return false;
				}
				holder.expiresAt = now + lease.toNanos();
				return true;
			}
		}

		@Override
		public boolean release() {
			if (released) {
				return true;
			}
			Slot slot = slots.get(key);
			if (slot == null) {
				return false;
			}
			synchronized (slot) {
				slot.prune(nanoClock.getAsLong());
				if (slot.removed || slot.holders.remove(token) == null) {
					return false;
				}
				if (slot.holders.isEmpty()) {
					slot.removed = true;
					slots.remove(key, slot);
				}
				released = true;
			}
			signalRelease(key);
			return true;
		}

	}

	private final class Signal implements Acquisition {

		private final LockRequest request;

		private final Semaphore permits = new Semaphore(0);

		Signal(LockRequest request) {
			this.request = request;
		}

		@Override
		public Optional<Granted> tryOnce() {
			long sent = System.nanoTime();
			return tryAcquire(request).map(lease -> new Granted(lease, sent));
		}

		@Override
		public boolean awaitSignal(Duration max) throws InterruptedException {
			return permits.tryAcquire(max.toNanos(), TimeUnit.NANOSECONDS);
		}

		@Override
		public void close() {
			watches.computeIfPresent(request.key(), (k, signals) -> {
				signals.remove(this);
				return signals.isEmpty() ? null : signals;
			});
		}

	}

}
