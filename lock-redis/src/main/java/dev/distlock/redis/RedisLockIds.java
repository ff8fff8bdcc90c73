package dev.distlock.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

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

	private final ScriptRunner runner;

	private final RedisKeys keys;

	private final Duration retention;

	RedisLockIds(ScriptRunner runner, RedisKeys keys, Duration fenceRetention) {
		this.runner = runner;
		this.keys = keys;
		this.retention = fenceRetention;
	}

	/**
	 * Writes the members of requests with a lock ID to their IDs' indexes, before the grant: a crash after it leaves
	 * an entry without a lock (dropped by the next unlock or renew by ID), never a lock its ID cannot find. A request
	 * without a lock ID costs nothing here. The index lives as long as the lease plus the queue stay (a hand-off may
	 * grant that long after the attempt), or for ever for a lock without expiry.
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
			boolean forever = same.stream().anyMatch(LockRequest::noExpiry);
			// As long as the ids records (the retention, never less than the lease), so renew can report expired ones.
			long ttl = Math.max(retention.toMillis(),
					same.stream().mapToLong(other -> other.lease().toMillis()).max().orElse(0))
					+ RedisAcquisition.QUEUE_STAY.toMillis();
			String[] args = new String[same.size() + 1];
			args[0] = forever ? "-1" : String.valueOf(ttl);
			for (int i = 0; i < same.size(); i++) {
				args[i + 1] = member(same.get(i).token(), same.get(i).key());
			}
			runner.run(RedisScripts.INDEX, new String[] { keys.index(request.lockId()) }, args, until);
		}
	}

	/**
	 * A handle's extend of a lock taken under a lock ID: the index first, so it never ends before the lock; then the
	 * lease and the record's TTL in one script. Whether the token still held the lock.
	 */
	boolean extend(String key, String token, String lockId, Duration lease, long until) {
		extendIndex(lockId, lease, until);
		IdMember member = idMember(key, token, lockId, Math.max(1, lease.toMillis()));
		return member != null && member.held();
	}

	/** Removes one lock's entry from its lock ID's index. */
	void unindex(String lockId, String token, String key, long until) {
		unindex(lockId, List.of(member(token, key)), until);
	}

	/**
	 * Reads the ID's index newest first, then per member checks its record (owner token and ID, in the lock's slot)
	 * and releases it through the ordinary release script (so a queued waiter is handed the lock); records of expired
	 * members are dropped, and every entry read leaves the index. Not atomic across slots: a lock added under the ID
	 * after the index was read stays.
	 */
	List<LockInfo> unlock(String lockId, ReleaseScripts releases) {
		List<LockInfo> released = new ArrayList<>();
		List<String> done = new ArrayList<>();
		for (String member : members(lockId)) {
			int space = member.indexOf(' ');
			if (space > 0) {
				String token = member.substring(0, space);
				String key = member.substring(space + 1);
				IdMember found = idMember(key, token, lockId, -1);
				if (found != null && found.held() && releases.releaseById(key, token, found.shared(), lockId)) {
					released.add(info(found, lockId));
				}
			}
			done.add(member);
		}
		unindex(lockId, done, runner.deadline(runner.timeout()));
		return released;
	}

	/**
	 * Reads the ID's index newest first, then per member moves the lease of a lock its token still holds, recording
	 * the TTL and renewal time; members recorded but no longer held are reported as expired, and entries without a
	 * record leave the index.
	 */
	LockRenewal renew(String lockId, Duration ttl) {
		List<LockInfo> renewed = new ArrayList<>();
		List<LockInfo> expired = new ArrayList<>();
		List<String> gone = new ArrayList<>();
		long until = runner.deadline(runner.timeout());
		List<String> members = members(lockId);
		extendIndex(lockId, ttl, until);
		for (String member : members) {
			int space = member.indexOf(' ');
			IdMember found = space <= 0 ? null : idMember(member.substring(space + 1), member.substring(0, space),
					lockId, Math.max(1, ttl.toMillis()));
			if (found == null) {
				gone.add(member);
			}
			else {
				(found.held() ? renewed : expired).add(info(found, lockId));
			}
		}
		unindex(lockId, gone, until);
		return new LockRenewal(lockId, renewed, expired);
	}

	/**
	 * Makes a lock ID's index live at least {@code ttl} (never less than the retention) plus the queue stay more; a
	 * persistent one stays so.
	 */
	private void extendIndex(String lockId, Duration ttl, long until) {
		runner.run(RedisScripts.INDEX, new String[] { keys.index(lockId) },
				new String[] { String.valueOf(Math.max(ttl.toMillis(), retention.toMillis())
						+ RedisAcquisition.QUEUE_STAY.toMillis()) }, until);
	}

	/** Removes members from a lock ID's index. */
	private void unindex(String lockId, List<String> members, long until) {
		if (!members.isEmpty()) {
			runner.unindex(keys.index(lockId), members, until);
		}
	}

	/** The index entry of one lock: its owner token (no spaces), a space, its key. */
	private static String member(String token, String key) {
		return token + " " + key;
	}

	/**
	 * The members of a lock ID, newest first.
	 */
	private List<String> members(String lockId) {
		return runner.newestFirst(keys.index(lockId), runner.deadline(runner.timeout()));
	}

	/**
	 * {@code id-member.lua}: one member's details, renewed to {@code ttl} when above zero, or its record dropped if
	 * no longer held when {@code ttl} is negative; null when the store has no record of the token under the ID.
	 */
	private @Nullable IdMember idMember(String key, String token, String lockId, long ttlMillis) {
		String lock = keys.lock(key);
		List<?> reply = runner.run(RedisScripts.ID_MEMBER, new String[] { lock, lock + RedisKeys.FENCE,
				lock + RedisKeys.IDS }, new String[] { token, lockId, String.valueOf(ttlMillis) },
				runner.deadline(runner.timeout()));
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
				instant(member.renewedAt()), member.ttlMillis() < 0 ? null : Duration.ofMillis(member.ttlMillis()));
	}

	private static @Nullable Instant instant(String millis) {
		return millis.isEmpty() ? null : Instant.ofEpochMilli(Long.parseLong(millis));
	}

	/**
	 * One lock of a lock ID as {@code id-member.lua} saw it.
	 * @param held whether the token still held it (and, for a renewal, now has the new lease)
	 * @param ttlMillis the lease set at the grant or the last renewal, -1 for none
	 * @param remainingMillis the time left, -1 for no expiry
	 */
	private record IdMember(String key, String token, boolean held, boolean shared, String owner, String host,
			long fence, String createdAt, long ttlMillis, String renewedAt, long remainingMillis) {
	}

}
