package dev.distlock.core.memory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
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

import dev.distlock.core.spi.Acquisition;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockIdSupport;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockRenewal;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.LockStatusSource;
import dev.distlock.core.spi.StatusQuery;
import dev.distlock.core.spi.StoreHealth;
import dev.distlock.core.spi.WaitingLockProvider;
import dev.distlock.core.spi.WriterPriority;
import dev.distlock.core.memory.MemorySlot.Holder;

/**
 * Locks inside one JVM, for tests and single-instance applications. Leases expire on the monotonic clock; fencing
 * tokens come from one counter for the whole provider, so they increase per key even after a key's record is gone.
 * Waiters are woken on release; a waiting exclusive request keeps new shared holders out (writer priority). Locks may
 * carry a lock ID and may have no expiry; an expired lock of an ID stays on record for {@link #unlock(String)} and
 * {@link #renew(String, Duration)} until its ID is unlocked or for an hour.
 */
public final class InMemoryLockProvider
		implements WaitingLockProvider, LockStatusSource, StoreHealth, LockIdSupport, WriterPriority {

	private static final int SWEEP_EVERY = 1024;

	private static final Duration EXPIRED_RECORD_RETENTION = Duration.ofHours(1);

	private final Map<String, MemorySlot> slots = new ConcurrentHashMap<>();

	private final Map<String, Set<Signal>> watches = new ConcurrentHashMap<>();

	/** Lock ID to key to the record of its lock that expired there. */
	private final Map<String, Map<String, Expired>> expiredById = new ConcurrentHashMap<>();

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
		return tryAcquire(request, null);
	}

	/**
	 * One attempt; a refused exclusive attempt of a waiting acquisition ({@code writer}) registers it in the slot.
	 */
	private Optional<Lease> tryAcquire(LockRequest request, @Nullable Object writer) {
		if (acquisitions.incrementAndGet() % SWEEP_EVERY == 0) {
			sweep();
		}
		while (true) {
			MemorySlot slot = slots.computeIfAbsent(request.key(), key -> new MemorySlot());
			synchronized (slot) {
				if (slot.removed) {
					continue; // raced with the last release of this key; take the fresh slot
				}
				long now = nanoClock.getAsLong();
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
					forgetExpired(request.lockId(), request.key());
				}
				return Optional.of(new MemoryLease(request.key(), request.token(), token));
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
			prune(key, slot, nanoClock.getAsLong());
			return !slot.holders.isEmpty();
		}
	}

	@Override
	public List<LockInfo> status(StatusQuery query) {
		long now = nanoClock.getAsLong();
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
		expiredById.remove(lockId);
		record Member(String key, MemorySlot slot, String token, long fencing) {
		}
		List<Member> members = new ArrayList<>();
		slots.forEach((key, slot) -> {
			synchronized (slot) {
				prune(key, slot, nanoClock.getAsLong());
				slot.holders.forEach((token, holder) -> {
					if (lockId.equals(holder.lockId)) {
						members.add(new Member(key, slot, token, holder.fencing));
					}
				});
			}
		});
		expiredById.remove(lockId); // what expired while looking
		members.sort(Comparator.comparingLong(Member::fencing).reversed()); // newest first
		List<LockInfo> released = new ArrayList<>();
		for (Member member : members) {
			synchronized (member.slot()) {
				Holder holder = member.slot().holders.get(member.token());
				long now = nanoClock.getAsLong();
				if (member.slot().removed || holder == null || !holder.live(now)) {
					continue; // released by its handle meanwhile, or just expired
				}
				released.add(member.slot().info(member.key(), holder, now));
				member.slot().holders.remove(member.token());
				removeIfIdle(member.key(), member.slot());
			}
			signalRelease(member.key());
		}
		return released;
	}

	@Override
	public LockRenewal renew(String lockId, Duration ttl) {
		record Renewed(LockInfo info, long fencing) {
		}
		List<Renewed> renewed = new ArrayList<>();
		slots.forEach((key, slot) -> {
			synchronized (slot) {
				long now = nanoClock.getAsLong();
				prune(key, slot, now);
				for (Holder holder : slot.holders.values()) {
					if (lockId.equals(holder.lockId)) {
						holder.renew(ttl, now);
						renewed.add(new Renewed(slot.info(key, holder, now), holder.fencing));
					}
				}
			}
		});
		renewed.sort(Comparator.comparingLong(Renewed::fencing).reversed());
		List<LockInfo> expired = expiredById.getOrDefault(lockId, Map.of()).values().stream()
			.map(Expired::info)
			.sorted(Comparator.comparing(LockInfo::key))
			.toList();
		return new LockRenewal(lockId, renewed.stream().map(Renewed::info).toList(), expired);
	}

	@Override
	public Duration ping() {
		return Duration.ZERO;
	}

	/**
	 * Watches the key from the start, so a release between a refused attempt and the wait is never missed. An
	 * exclusive acquisition also keeps new shared holders out while it waits.
	 */
	@Override
	public Acquisition begin(LockRequest request) {
		Signal signal = new Signal(request);
		watches.computeIfAbsent(request.key(), k -> ConcurrentHashMap.newKeySet()).add(signal);
		return signal;
	}

	/**
	 * Drops records whose holders have all expired (their fencing tokens stay covered by the provider's counter), and
	 * expired-lock records past their retention.
	 */
	void sweep() {
		long now = nanoClock.getAsLong();
		slots.forEach((key, slot) -> {
			synchronized (slot) {
				prune(key, slot, now);
				removeIfIdle(key, slot);
			}
		});
		long retention = EXPIRED_RECORD_RETENTION.toNanos();
		expiredById.values().forEach(records -> records.values().removeIf(record -> now - record.at() > retention));
		expiredById.values().removeIf(Map::isEmpty);
	}

	/** Prunes the slot's expired holders, keeping a record of those with a lock ID. Under the slot's monitor. */
	private void prune(String key, MemorySlot slot, long now) {
		for (Holder holder : slot.prune(now)) {
			if (holder.lockId != null) {
				expiredById.computeIfAbsent(holder.lockId, id -> new ConcurrentHashMap<>())
					.put(key, new Expired(slot.info(key, holder, now), now));
			}
		}
	}

	private void forgetExpired(String lockId, String key) {
		expiredById.computeIfPresent(lockId, (id, records) -> {
			records.remove(key);
			return records.isEmpty() ? null : records;
		});
	}

	/** Under the slot's monitor. */
	private void removeIfIdle(String key, MemorySlot slot) {
		if (slot.idle()) {
			slot.removed = true;
			slots.remove(key, slot);
		}
	}

	private void signalRelease(String key) {
		Set<Signal> signals = watches.get(key);
		if (signals != null) {
			signals.forEach(signal -> signal.permits.release());
		}
	}

	/** The record of a lock of some ID that expired on a key, and when it was found expired. */
	private record Expired(LockInfo info, long at) {
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
			MemorySlot slot = slots.get(key);
			if (slot == null) {
				return false;
			}
			synchronized (slot) {
				long now = nanoClock.getAsLong();
				prune(key, slot, now);
				Holder holder = slot.removed ? null : slot.holders.get(token);
				if (holder == null) {
					return false;
				}
				holder.renew(lease, now);
				return true;
			}
		}

		@Override
		public boolean release() {
			if (released) {
				return true;
			}
			MemorySlot slot = slots.get(key);
			if (slot == null) {
				return false;
			}
			synchronized (slot) {
				prune(key, slot, nanoClock.getAsLong());
				if (slot.removed || slot.holders.remove(token) == null) {
					return false;
				}
				removeIfIdle(key, slot);
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
			return tryAcquire(request, request.shared() ? null : this).map(lease -> new Granted(lease, sent));
		}

		@Override
		public boolean awaitSignal(Duration max) throws InterruptedException {
			return permits.tryAcquire(max.toNanos(), TimeUnit.NANOSECONDS);
		}

		/**
		 * Stops watching and, for an exclusive acquisition, leaves the writers of its slot, waking the shared
		 * requests it kept out.
		 */
		@Override
		public void close() {
			watches.computeIfPresent(request.key(), (k, signals) -> {
				signals.remove(this);
				return signals.isEmpty() ? null : signals;
			});
			MemorySlot slot = request.shared() ? null : slots.get(request.key());
			if (slot == null) {
				return;
			}
			boolean left;
			synchronized (slot) {
				left = slot.writers.remove(this);
				removeIfIdle(request.key(), slot);
			}
			if (left) {
				signalRelease(request.key());
			}
		}

	}

}
