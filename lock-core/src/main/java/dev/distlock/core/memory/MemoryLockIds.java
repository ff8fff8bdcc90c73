package dev.distlock.core.memory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.distlock.core.memory.MemorySlot.Holder;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockRenewal;

/**
 * The lock-ID side of the in-memory provider: unlock and renew every lock of an ID, whatever key it is on and
 * whichever handle took it, and the records of an ID's locks that expired, kept for {@link #renew} to report until
 * the ID is unlocked, the key is taken again under the ID, or an hour has passed.
 */
final class MemoryLockIds {

	private static final Duration EXPIRED_RECORD_RETENTION = Duration.ofHours(1);

	private final InMemoryLockProvider provider;

	/** Lock ID to key to the record of its lock that expired there. */
	private final Map<String, Map<String, Expired>> expiredById = new ConcurrentHashMap<>();

	MemoryLockIds(InMemoryLockProvider provider) {
		this.provider = provider;
	}

	/**
	 * Releases the live locks of the ID, newest grant first, and forgets its expired ones.
	 * @return the locks released
	 */
	List<LockInfo> unlock(String lockId) {
		expiredById.remove(lockId);
		record Member(String key, MemorySlot slot, String token, long fencing) {
		}
		List<Member> members = new ArrayList<>();
		provider.forEachSlot((key, slot) -> {
			synchronized (slot) {
				provider.prune(key, slot, provider.now());
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
				long now = provider.now();
				if (member.slot().removed || holder == null || !holder.live(now)) {
					continue; // released by its handle meanwhile, or just expired
				}
				released.add(member.slot().info(member.key(), holder, now));
				member.slot().holders.remove(member.token());
				provider.removeIfIdle(member.key(), member.slot());
			}
			provider.signalRelease(member.key());
		}
		return released;
	}

	/**
	 * Sets the lease of every live lock of the ID to {@code lease} from now, newest grant first, and lists the ID's
	 * expired locks on record by key.
	 */
	LockRenewal renew(String lockId, Duration lease) {
		record Renewed(LockInfo info, long fencing) {
		}
		List<Renewed> renewed = new ArrayList<>();
		provider.forEachSlot((key, slot) -> {
			synchronized (slot) {
				long now = provider.now();
				provider.prune(key, slot, now);
				for (Holder holder : slot.holders.values()) {
					if (lockId.equals(holder.lockId)) {
						holder.renew(lease, now);
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

	/** Keeps the record of a lock of the ID found expired at {@code now}, replacing an older one on the same key. */
	void expired(String lockId, LockInfo info, long now) {
		expiredById.computeIfAbsent(lockId, id -> new ConcurrentHashMap<>()).put(info.key(), new Expired(info, now));
	}

	/** The key was granted under the ID again: its expired record is stale. */
	void granted(String lockId, String key) {
		expiredById.computeIfPresent(lockId, (id, records) -> {
			records.remove(key);
			return records.isEmpty() ? null : records;
		});
	}

	/** Drops the expired-lock records past their retention. */
	void dropOldRecords(long now) {
		long retention = EXPIRED_RECORD_RETENTION.toNanos();
		expiredById.values().forEach(records -> records.values().removeIf(record -> now - record.at() > retention));
		expiredById.values().removeIf(Map::isEmpty);
	}

	/** The record of a lock of some ID that expired on a key, and when it was found expired. */
	private record Expired(LockInfo info, long at) {
	}

}
