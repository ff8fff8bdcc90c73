package dev.distlock.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.LockMode;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockRenewal;
import dev.distlock.core.spi.LockRequest;

/**
 * Lock IDs on Redis: the one place that knows the KEYS and ARGV of {@code index.lua} and {@code id-member.lua} and
 * reads and trims an ID's index ({@code ZREVRANGE}, {@code ZREM}), and the SPI's unlock and renew by ID. An ID's index
 * is in the ID's own slot and each holder's record in its lock's slot, so every step here is its own call; each step
 * acts on one owner token that is never reused, so a retried call changes nothing more.
 */
final class RedisLockIds {

	private final LockScripts scripts;

	private final RedisKeys keys;

	private final Duration retention;

	RedisLockIds(LockScripts scripts, RedisKeys keys, Duration fenceRetention) {
		this.scripts = scripts;
		this.keys = keys;
		this.retention = fenceRetention;
	}

	/**
	 * Writes the members of requests with a lock ID to their IDs' indexes, before the grant: a crash after it leaves
	 * an entry without a lock (dropped by the next unlock or renew by ID), never a lock its ID cannot find. A request
	 * without a lock ID costs nothing here. A member with a lease goes into the index that lives as long as the lease
	 * plus the queue stay (a hand-off may grant that long after the attempt); one without expiry into the ID's index
	 * of such members, which has no TTL and is gone once it lists none.
	 */
	void index(List<LockRequest> requests, long until) {
		for (LockRequest request : requests) {
			if (request.lockId() == null) {
				continue;
			}
			List<LockRequest> same = requests.stream()
				.filter(other -> request.lockId().equals(other.lockId()))
				.toList();
			if (same.get(0) != request) {
				continue; // written with the first request of its ID
			}
			// As long as the ids records (the retention, never less than the lease), so renew can report expired ones.
			long ttl = Math.max(retention.toMillis(),
					same.stream().mapToLong(other -> other.lease().toMillis()).max().orElse(0))
					+ RedisKeys.QUEUE_STAY.toMillis();
			String[] args = new String[2 * same.size() + 1];
			args[0] = String.valueOf(ttl);
			for (int i = 0; i < same.size(); i++) {
				args[2 * i + 1] = member(same.get(i).token(), same.get(i).key());
				args[2 * i + 2] = same.get(i).noExpiry() ? "1" : "0";
			}
			scripts.run(LuaSources.INDEX, indexKeys(request.lockId()), args, until);
		}
	}

	/**
	 * A handle's extend of a lock taken under a lock ID: the index first, so it never ends before the lock (a member
	 * without expiry moves to the members with a lease); then the lease and the record's TTL in one script. Whether
	 * the token still held the lock.
	 */
	boolean extend(String key, String token, String lockId, Duration lease, long until) {
		scripts.run(LuaSources.INDEX, indexKeys(lockId),
				new String[] { String.valueOf(indexTtl(lease)), member(token, key), "x" }, until);
		IdMember member = idMember(key, token, lockId, Math.max(1, lease.toMillis()));
		return member != null && member.held();
	}

	/** Removes one lock's entry from its lock ID's index: its holder, or its refused or withdrawn caller, is done. */
	void unindex(String lockId, String token, String key, long until) {
		scripts.unindex(List.of(indexKeys(lockId)), List.of(member(token, key)), until);
	}

	/**
	 * Reads the ID's index newest first, then per member checks its record (owner token and ID, in the lock's slot)
	 * and releases it through the ordinary release script (so a queued waiter is handed the lock); records of expired
	 * members are dropped. Entries whose lock was released or dropped leave the index; an entry without a record stays
	 * while its acquire may still be in flight ({@link #trim}), so a lock granted meanwhile stays reachable by its ID.
	 */
	List<LockInfo> unlock(String lockId) {
		List<LockInfo> released = new ArrayList<>();
		List<Map.Entry<String, Double>> entries = members(lockId);
		List<String> trim = new ArrayList<>();
		for (Map.Entry<String, Double> entry : entries) {
			String member = entry.getKey();
			int space = member.indexOf(' ');
			boolean resolved = true;
			if (space > 0) {
				String token = member.substring(0, space);
				String key = member.substring(space + 1);
				IdMember found = idMember(key, token, lockId, -1);
				if (found == null) {
					resolved = false;
				}
				else if (found.held() && scripts.releaseById(key, token, found.shared(), lockId)) {
					released.add(info(found, lockId));
				}
			}
			addTrim(trim, entry, resolved ? "r" : "p");
		}
		trim(lockId, trim, 0, scripts.deadline(scripts.timeout()));
		return released;
	}

	/**
	 * Reads the ID's index newest first, then per member moves the lease of a lock its token still holds, recording
	 * the lease and renewal time; members recorded but no longer held are reported as expired. Entries without a record
	 * leave the index once their acquire can no longer be in flight ({@link #trim}); entries of locks without expiry
	 * that were renewed (or found expired) move to the members with a lease, whose index lives the new TTL.
	 */
	LockRenewal renew(String lockId, Duration lease) {
		List<LockInfo> renewed = new ArrayList<>();
		List<LockInfo> expired = new ArrayList<>();
		List<String> trim = new ArrayList<>();
		long until = scripts.deadline(scripts.timeout());
		List<Map.Entry<String, Double>> entries = members(lockId);
		extendIndex(lockId, lease, until);
		for (Map.Entry<String, Double> entry : entries) {
			String member = entry.getKey();
			int space = member.indexOf(' ');
			IdMember found = space <= 0 ? null : idMember(member.substring(space + 1), member.substring(0, space),
					lockId, Math.max(1, lease.toMillis()));
			if (found == null) {
				addTrim(trim, entry, space <= 0 ? "r" : "p");
			}
			else {
				(found.held() ? renewed : expired).add(info(found, lockId));
				addTrim(trim, entry, "n");
			}
		}
		trim(lockId, trim, indexTtl(lease), until);
		return new LockRenewal(lockId, renewed, expired);
	}

	/**
	 * Makes a lock ID's index of members with a lease live at least {@code lease} (never less than the retention) plus
	 * the queue stay more.
	 */
	private void extendIndex(String lockId, Duration lease, long until) {
		scripts.run(LuaSources.INDEX, indexKeys(lockId), new String[] { String.valueOf(indexTtl(lease)) }, until);
	}

	private long indexTtl(Duration lease) {
		return Math.max(lease.toMillis(), retention.toMillis()) + RedisKeys.QUEUE_STAY.toMillis();
	}

	/** A lock ID's two index keys: its members with a lease, and those without expiry (one slot). */
	private String[] indexKeys(String lockId) {
		return new String[] { keys.index(lockId), keys.foreverIndex(lockId) };
	}

	/** One {@code index-trim.lua} triple: the member, its score as read, what the caller found (see the script). */
	private static void addTrim(List<String> trim, Map.Entry<String, Double> entry, String found) {
		trim.add(entry.getKey());
		trim.add(score(entry.getValue()));
		trim.add(found);
	}

	/**
	 * {@code index-trim.lua}: drops the entries no lock can still be granted under, and moves renewed ones to the
	 * members with a lease. The grace is the longest an acquire may still write its record after its index entry: its
	 * call (at most the command timeout) and then a hand-off to its queue entry (at most the queue stay), plus a second
	 * for clock granularity.
	 * @param indexTtlMs the TTL of the members with a lease once a renewed member moved there, or 0
	 */
	private void trim(String lockId, List<String> trim, long indexTtlMs, long until) {
		if (trim.isEmpty()) {
			return;
		}
		long graceMicros = TimeUnit.NANOSECONDS.toMicros(scripts.timeout().toNanos()
				+ RedisKeys.QUEUE_STAY.toNanos() + TimeUnit.SECONDS.toNanos(1));
		String[] args = new String[trim.size() + 2];
		args[0] = String.valueOf(graceMicros);
		args[1] = String.valueOf(indexTtlMs);
		for (int i = 0; i < trim.size(); i++) {
			args[i + 2] = trim.get(i);
		}
		scripts.run(LuaSources.INDEX_TRIM, indexKeys(lockId), args, until);
	}

	/** A score as index.lua wrote it: integer microseconds, exact in a double. */
	private static String score(@Nullable Double score) {
		return score == null ? "0" : String.format(Locale.ROOT, "%.0f", score);
	}

	/** The index entry of one lock: its owner token (no spaces), a space, its key. */
	private static String member(String token, String key) {
		return token + " " + key;
	}

	/**
	 * The entries of a lock ID's index with their scores, newest first.
	 */
	private List<Map.Entry<String, Double>> members(String lockId) {
		return scripts.newestFirst(List.of(indexKeys(lockId)), scripts.deadline(scripts.timeout()));
	}

	/**
	 * {@code id-member.lua}: one member's details, renewed to {@code leaseMs} when above zero, or its record dropped if
	 * no longer held when {@code leaseMs} is negative; null when the store has no record of the token under the ID.
	 */
	private @Nullable IdMember idMember(String key, String token, String lockId, long leaseMs) {
		RedisKeys.OfLock redisKeys = keys.of(key);
		List<?> reply = scripts.run(LuaSources.ID_MEMBER,
				new String[] { redisKeys.lock(), redisKeys.fence(), redisKeys.ids(), redisKeys.holders() },
				new String[] { token, lockId, String.valueOf(leaseMs), String.valueOf(retention.toMillis()) },
				scripts.deadline(scripts.timeout()));
		if (reply == null || reply.isEmpty() || "-1".equals(String.valueOf(reply.get(0)))) {
			return null;
		}
		return new IdMember(key, token, "1".equals(reply.get(0)), "s".equals(reply.get(1)),
				(String) reply.get(2), (String) reply.get(3), Long.parseLong((String) reply.get(4)),
				(String) reply.get(5), Long.parseLong((String) reply.get(6)), (String) reply.get(7),
				Long.parseLong((String) reply.get(8)));
	}

	private static LockInfo info(IdMember member, String lockId) {
		Duration remaining = !member.held() ? Duration.ZERO
				: member.remainingMillis() < 0 ? LockInfo.NO_EXPIRY : Duration.ofMillis(member.remainingMillis());
		return new LockInfo(member.key(), member.shared() ? LockMode.SHARED : LockMode.EXCLUSIVE,
				member.owner().isEmpty() ? null : member.owner(), member.host().isEmpty() ? null : member.host(),
				member.fence(), instant(member.createdAt()), remaining, member.held() ? 1 : 0, lockId,
				instant(member.renewedAt()),
				member.nominalLeaseMs() < 0 ? null : Duration.ofMillis(member.nominalLeaseMs()));
	}

	private static @Nullable Instant instant(String millis) {
		return millis.isEmpty() ? null : Instant.ofEpochMilli(Long.parseLong(millis));
	}

	/**
	 * One lock of a lock ID as {@code id-member.lua} saw it.
	 * @param held whether the token still held it (and, for a renewal, now has the new lease)
	 * @param nominalLeaseMs the lease set at the grant or the last renewal, -1 for none
	 * @param remainingMillis the time left, -1 for no expiry
	 */
	private record IdMember(String key, String token, boolean held, boolean shared, String owner, String host,
			long fence, String createdAt, long nominalLeaseMs, String renewedAt, long remainingMillis) {
	}

}
