package dev.distlock.core.spi;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.InvalidLockOptionException;

/**
 * A filter for {@link OperatorSupport#status(StatusQuery)}: a lock is listed when it meets every condition given; a
 * condition left null does not filter.
 * @param keyPrefix only keys starting with this (the store key, prefix included), or all
 * @param owner only locks whose owner name equals this, or all
 * @param state held, expired or both
 * @param ttlBelow only locks whose remaining lease is below this, or all
 * @param limit at most this many locks; a store that honours it stops looking once it has found this many matches,
 * so which ones are returned is then up to the store ({@link #UNLIMITED} by default)
 * @param lockId only locks taken under this lock ID, each reported as its own holder sees it, or all
 * @param createdBefore only locks acquired before this instant, or all
 * @param createdAfter only locks acquired after this instant, or all
 * @param ttlAtLeast only locks whose remaining lease is at least this (a lock without expiry always is), or all
 */
public record StatusQuery(@Nullable String keyPrefix, @Nullable String owner, State state,
		@Nullable Duration ttlBelow, int limit, @Nullable String lockId, @Nullable Instant createdBefore,
		@Nullable Instant createdAfter, @Nullable Duration ttlAtLeast) {

	/** No limit: every matching lock. */
	public static final int UNLIMITED = Integer.MAX_VALUE;

	/**
	 * Checks the limit.
	 */
	public StatusQuery {
		if (limit < 1) {
			throw new InvalidLockOptionException("StatusQuery.limit", "must be at least 1, was " + limit);
		}
	}

	/**
	 * A query by key prefix, owner, state, TTL below and limit.
	 */
	public StatusQuery(@Nullable String keyPrefix, @Nullable String owner, State state, @Nullable Duration ttlBelow,
			int limit) {
		this(keyPrefix, owner, state, ttlBelow, limit, null, null, null, null);
	}

	/**
	 * A query without a limit.
	 */
	public StatusQuery(@Nullable String keyPrefix, @Nullable String owner, State state, @Nullable Duration ttlBelow) {
		this(keyPrefix, owner, state, ttlBelow, UNLIMITED);
	}

	/**
	 * Every lock the store still has, held or expired.
	 */
	public static StatusQuery all() {
		return new StatusQuery(null, null, State.ANY, null);
	}

	/**
	 * Held locks only.
	 */
	public static StatusQuery held() {
		return new StatusQuery(null, null, State.HELD, null);
	}

	/**
	 * A copy restricted to keys starting with the prefix.
	 */
	public StatusQuery withKeyPrefix(@Nullable String prefix) {
		return new StatusQuery(prefix, owner, state, ttlBelow, limit, lockId, createdBefore, createdAfter, ttlAtLeast);
	}

	/**
	 * A copy restricted to one owner name.
	 */
	public StatusQuery withOwner(@Nullable String ownerName) {
		return new StatusQuery(keyPrefix, ownerName, state, ttlBelow, limit, lockId, createdBefore, createdAfter,
				ttlAtLeast);
	}

	/**
	 * A copy restricted to locks whose remaining lease is below the bound.
	 */
	public StatusQuery withTtlBelow(@Nullable Duration bound) {
		return new StatusQuery(keyPrefix, owner, state, bound, limit, lockId, createdBefore, createdAfter, ttlAtLeast);
	}

	/**
	 * A copy asking for at most {@code max} locks (at least 1).
	 */
	public StatusQuery withLimit(int max) {
		return new StatusQuery(keyPrefix, owner, state, ttlBelow, max, lockId, createdBefore, createdAfter, ttlAtLeast);
	}

	/**
	 * A copy restricted to the locks of one lock ID.
	 */
	public StatusQuery withLockId(@Nullable String id) {
		return new StatusQuery(keyPrefix, owner, state, ttlBelow, limit, id, createdBefore, createdAfter, ttlAtLeast);
	}

	/**
	 * A copy restricted to locks acquired before the instant.
	 */
	public StatusQuery withCreatedBefore(@Nullable Instant instant) {
		return new StatusQuery(keyPrefix, owner, state, ttlBelow, limit, lockId, instant, createdAfter, ttlAtLeast);
	}

	/**
	 * A copy restricted to locks acquired after the instant.
	 */
	public StatusQuery withCreatedAfter(@Nullable Instant instant) {
		return new StatusQuery(keyPrefix, owner, state, ttlBelow, limit, lockId, createdBefore, instant, ttlAtLeast);
	}

	/**
	 * A copy restricted to locks whose remaining lease is at least the bound.
	 */
	public StatusQuery withTtlAtLeast(@Nullable Duration bound) {
		return new StatusQuery(keyPrefix, owner, state, ttlBelow, limit, lockId, createdBefore, createdAfter, bound);
	}

	/**
	 * Whether the info passes this filter; stores that cannot filter server-side use this.
	 */
	public boolean matches(LockInfo info) {
		if (keyPrefix != null && !info.key().startsWith(keyPrefix)) {
			return false;
		}
		if (owner != null && !owner.equals(info.owner())) {
			return false;
		}
		if (ttlBelow != null && info.remaining().compareTo(ttlBelow) >= 0) {
			return false;
		}
		if (ttlAtLeast != null && info.remaining().compareTo(ttlAtLeast) < 0) {
			return false;
		}
		if (lockId != null && !lockId.equals(info.lockId())) {
			return false;
		}
		Instant created = info.acquiredAt();
		if (createdBefore != null && (created == null || !created.isBefore(createdBefore))) {
			return false;
		}
		if (createdAfter != null && (created == null || !created.isAfter(createdAfter))) {
			return false;
		}
		return switch (state) {
			case HELD -> info.held();
			case EXPIRED -> !info.held();
			case ANY -> true;
		};
	}

	/**
	 * Which locks a query returns.
	 */
	public enum State {

		/** Locks with a live holder. */
		HELD,
		/**
		 * Locks whose lease ran out but whose record is still in the store. What a store keeps differs: MongoDB
		 * keeps the document until the purger removes it; Redis expires a lock key with its lease, so there it only
		 * finds a key that exists without a live holder.
		 */
		EXPIRED,
		/** Both. */
		ANY

	}

}
