package dev.distlock.redis;

import java.time.Duration;
import java.util.List;

import io.lettuce.core.cluster.SlotHash;
import org.jspecify.annotations.Nullable;

import dev.distlock.core.InvalidLockKeyException;

/**
 * The Redis key layout of one namespace. The lock key is wrapped in a hash tag, so a lock, its fence hash and its
 * release channel map to one cluster slot and every script touching them runs on one node.
 *
 * <ul>
 * <li>{@code <namespace>:{<key>}}: the lock, a string holding the owner token (exclusive) or a sorted set of owner
 * tokens scored by lease end in server milliseconds (shared)</li>
 * <li>{@code <namespace>:{<key>}:fence}: a hash with the fencing counter {@code n}, the last first-holder {@code h}
 * ({@code <owner>\n<host>}, plus {@code \n<grant time ms>} when that is not {@code n / 1000}), the last exclusive
 * release {@code r} ({@code <token>}, or
 * {@code <token> unlocked} by lock ID) and the recent shared releases {@code rs} (a JSON list, at most 64, of the last
 * twice the command timeout or 10 s), so a replayed release answers as its first run did; it expires after the fence
 * retention, counted from the last grant, and never before the lock (persistent while the lock has no expiry)</li>
 * <li>{@code <namespace>:{<key>}:holders}: a shared lock's holders' details (a hash: owner token -> JSON fencing token,
 * owner, host, grant time); it lives exactly as long as the set of holders</li>
 * <li>{@code <namespace>:{<key>}:queue} and {@code <namespace>:{<key>}:waiters}: the FIFO of waiting owner tokens
 * (a sorted set by arrival) and their entries (a hash: deadline, attempt, lease, owner, host, grant channel); they
 * exist only while
 * someone waits, and expire with their last entry</li>
 * <li>{@code <namespace>:{<key>}:waiting}: the waiting mark, a string set by every refused attempt of a caller that
 * waits (for its queue entry's life, or the holder's remaining lease if longer); a release deletes it with the lock
 * and looks at the queue and publishes only if it was there</li>
 * <li>{@code <namespace>:{<key>}:ids}: the lock-ID records of the key's holders taken under a lock ID (a hash: owner
 * token -> JSON lock ID, owner, host, created, lease, renewed, mode); it lives as long as its longest-lived record, and
 * for ever while one has no expiry</li>
 * <li>{@code <namespace>:id:{<lock ID>}}: a lock ID's index of members with a lease, a sorted set of
 * {@code <owner token> <key>} by write time (server microseconds), written before each grant; in the ID's own slot,
 * so in a cluster apart from the lock keys; it lives at least as long as its members' leases, never without a TTL</li>
 * <li>{@code <namespace>:id:{<lock ID>}:forever}: the same for the ID's members without expiry; no TTL, and it exists
 * only while it lists one</li>
 * <li>{@code <namespace>:{<key>}:released}: the pub/sub channel a release publishes on</li>
 * <li>{@code <namespace>:grants:<client id>}: the pub/sub channel a release hands a lock to one of that client's
 * queued waiters on</li>
 * </ul>
 */
final class RedisKeys {

	/**
	 * How long a waiter's queue entry (and the waiting mark it sets) stays valid without a fresh attempt. Longer than
	 * usual retry delays, so a live waiter keeps its place; short, so a waiter that died stops being handed locks soon
	 * (a lock handed to a dead waiter is held until its lease ends, as a dead holder's is).
	 */
	static final Duration QUEUE_STAY = Duration.ofSeconds(2);

	private final String namespace;

	RedisKeys(String namespace) {
		this.namespace = namespace;
	}

	/**
	 * The Redis key of the lock; rejects keys that would break the hash tag.
	 */
	String lock(String key) {
		// "ns:{}..." is an empty hash tag, which Redis ignores: the lock and its fence would land in different slots.
		if (key.startsWith("}")) {
			throw new InvalidLockKeyException(key, "Lock key '" + key + "' must not start with '}' on Redis");
		}
		return namespace + ":{" + key + "}";
	}

	/**
	 * The Redis keys of one lock key; rejects keys that would break the hash tag. Only the lock's name is built here,
	 * the others when asked for, as each script uses a few of them (building all eight was a fifth of the allocation
	 * of an uncontended cycle).
	 */
	OfLock of(String key) {
		return new OfLock(lock(key));
	}

	/**
	 * A lock ID's index; the hash tag puts it in the ID's slot.
	 */
	String index(String lockId) {
		return namespace + ":id:{" + lockId + "}";
	}

	/**
	 * A lock ID's index of members without expiry, in the same slot as {@link #index(String)}.
	 */
	String foreverIndex(String lockId) {
		return index(lockId) + ":forever";
	}

	/**
	 * A client's grant channel: hand-offs to that client's queued waiters are published here, not on the key's channel,
	 * so other clients' waiters are not woken by them.
	 */
	String grantChannel(String clientId) {
		return namespace + ":grants:" + clientId;
	}

	/**
	 * The SCAN pattern matching the lock keys of every lock whose key starts with the prefix. Lock keys are the only
	 * keys of the layout that start with the namespace, a colon and the hash tag's opening brace and end with its
	 * closing brace; fence, queue, waiter and ids keys end with a suffix and ID indexes start with
	 * {@code <namespace>:id:}, so the server
	 * already leaves them out of every page.
	 */
	String lockPattern(String keyPrefix) {
		return escapeGlob(namespace + ":{" + keyPrefix) + "*}";
	}

	/**
	 * The lock key a Redis key names, or null when it is not a lock key of this namespace.
	 */
	@Nullable String keyOfLock(String redisKey) {
		String start = namespace + ":{";
		if (!redisKey.startsWith(start) || !redisKey.endsWith("}") || redisKey.length() == start.length() + 1) {
			return null;
		}
		String key = redisKey.substring(start.length(), redisKey.length() - 1);
		return key.startsWith("}") ? null : key; // not a key lock() accepts, so not one of ours
	}

	/**
	 * Whether all lock keys map to one cluster slot, so one script may touch them all.
	 */
	boolean sameSlot(List<String> keys) {
		int slot = SlotHash.getSlot(lock(keys.get(0)));
		for (String key : keys) {
			if (SlotHash.getSlot(lock(key)) != slot) {
				return false;
			}
		}
		return true;
	}

	private static String escapeGlob(String text) {
		StringBuilder escaped = new StringBuilder(text.length() + 8);
		for (char c : text.toCharArray()) {
			if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
				escaped.append('\\');
			}
			escaped.append(c);
		}
		return escaped.toString();
	}

	/**
	 * The Redis keys of one lock key, as the class comment describes them; scripts take them in the order their
	 * {@code KEYS} list. Each name but the lock's is built on every call of its method.
	 * @param lock the lock: a string (exclusive) or a sorted set (shared)
	 */
	record OfLock(String lock) {

		/** The order of {@link #scriptKeys(int)}. */
		private static final Suffix[] SCRIPT_ORDER = { Suffix.FENCE, Suffix.WAITING, Suffix.QUEUE, Suffix.WAITERS,
				Suffix.IDS };

		/**
		 * The first {@code count} of lock, fence, waiting mark, queue, waiters and ids, as the lock-script connection
		 * writes them ({@link ScriptArguments}): the lock's name, then the {@link Suffix} of each other key, which
		 * stands for the lock's name followed by it, so those names are never built:
		 * the {@code KEYS} of {@code acquire.lua} (2, 5 or 6) and of {@code release.lua} (6).
		 */
		Object[] scriptKeys(int count) {
			Object[] keys = new Object[count];
			keys[0] = lock;
			System.arraycopy(SCRIPT_ORDER, 0, keys, 1, count - 1);
			return keys;
		}

		/** The fence hash. */
		String fence() {
			return lock + Suffix.FENCE.text();
		}

		/** The waiting mark. */
		String waiting() {
			return lock + Suffix.WAITING.text();
		}

		/** The FIFO of waiting owner tokens. */
		String queue() {
			return lock + Suffix.QUEUE.text();
		}

		/** The waiters' entries. */
		String waiters() {
			return lock + Suffix.WAITERS.text();
		}

		/** The lock-ID records of the key's holders. */
		String ids() {
			return lock + Suffix.IDS.text();
		}

		/** A shared lock's holders' details. */
		String holders() {
			return lock + ":holders";
		}

		/** The pub/sub channel a release publishes on. */
		String released() {
			return lock + ":released";
		}

	}

	/**
	 * The suffixes of a lock's other keys, with their bytes (ASCII, so the UTF-8 of the joined name is the lock's
	 * followed by these). In a script's keys ({@link OfLock#scriptKeys(int)}) a suffix stands for the first key's name
	 * followed by it.
	 */
	enum Suffix {

		FENCE(":fence"), WAITING(":waiting"), QUEUE(":queue"), WAITERS(":waiters"), IDS(":ids");

		private final String text;

		private final byte[] bytes;

		Suffix(String text) {
			this.text = text;
			this.bytes = text.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
		}

		String text() {
			return text;
		}

		byte[] bytes() {
			return bytes;
		}

	}

}
