package dev.distlock.autoconfigure.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockMode;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.StatusQuery;

/**
 * The body of {@code GET /actuator/locks}: the locks this instance holds and what the store reports.
 * @param provider the provider's short name
 * @param keyPrefix the template's key prefix
 * @param forceReleaseEnabled whether {@code DELETE /actuator/locks/{key}} is offered
 * @param held the locks this instance holds, by key
 * @param store the store's status query result
 */
public record LocksDescriptor(String provider, String keyPrefix, boolean forceReleaseEnabled, List<HeldLock> held,
		StoreLocks store) {

	/**
	 * A lock this instance holds. Owner tokens are never shown.
	 * @param key the store key, prefix included
	 * @param fencingToken the fencing token of this hold
	 * @param mode exclusive or shared
	 * @param group the group id when taken as part of a group
	 * @param acquiredAt when it was acquired, by this JVM's clock
	 * @param waited how long the caller waited for it
	 * @param remaining the lease left, by this JVM's clock; null for a lock without expiry
	 */
	public record HeldLock(String key, long fencingToken, LockMode mode, @Nullable String group, Instant acquiredAt,
			Duration waited, @Nullable Duration remaining) {

		static HeldLock of(LockHandle handle) {
			Duration remaining = handle.remaining();
			return new HeldLock(handle.key(), handle.fencingToken(), handle.mode(), handle.groupId(),
					handle.acquiredAt(), handle.waited(), remaining.equals(LockInfo.NO_EXPIRY) ? null : remaining);
		}

	}

	/**
	 * The store's answer to the status query.
	 * @param supported whether the provider has a status query at all
	 * @param query the filter applied
	 * @param count how many locks matched, counted up to {@code status-limit + 1}: stores that honour the query's
	 * limit stop looking there
	 * @param truncated whether {@code locks} was cut to {@code distributed-lock.actuator.status-limit}
	 * @param locks the matching locks, by key
	 * @param error why the store could not be asked, if it could not
	 */
	public record StoreLocks(boolean supported, Query query, int count, boolean truncated, List<StoreLock> locks,
			@Nullable String error) {

		static StoreLocks of(StatusQuery query, List<LockInfo> infos, int limit) {
			List<StoreLock> locks = infos.stream().limit(limit).map(StoreLock::of).toList();
			return new StoreLocks(true, Query.of(query), infos.size(), infos.size() > limit, locks, null);
		}

		static StoreLocks unavailable(StatusQuery query, boolean supported, @Nullable String error) {
			return new StoreLocks(supported, Query.of(query), 0, false, List.of(), error);
		}

	}

	/**
	 * The filter of a status query.
	 * @param keyPrefix store keys starting with this
	 * @param owner owner name, or all
	 * @param state held, expired or any
	 */
	public record Query(@Nullable String keyPrefix, @Nullable String owner, StatusQuery.State state) {

		static Query of(StatusQuery query) {
			return new Query(query.keyPrefix(), query.owner(), query.state());
		}

	}

	/**
	 * One lock as the store sees it.
	 * @param key the store key
	 * @param mode exclusive or shared
	 * @param held whether it has a live holder
	 * @param owner the holder's owner name, if stored
	 * @param host the holder's host, if stored
	 * @param fencingToken the latest fencing token issued for the key
	 * @param acquiredAt when the current holder acquired it, if known
	 * @param remaining the lease left by the store's clock; zero or negative once expired; null for a lock without
	 * expiry
	 * @param holders how many holders are in
	 * @param lockId the lock ID it was taken under, if any
	 */
	public record StoreLock(String key, LockMode mode, boolean held, @Nullable String owner, @Nullable String host,
			long fencingToken, @Nullable Instant acquiredAt, @Nullable Duration remaining, int holders,
			@Nullable String lockId) {

		static StoreLock of(LockInfo info) {
			return new StoreLock(info.key(), info.mode(), info.held(), info.owner(), info.host(), info.fencingToken(),
					info.acquiredAt(), info.expires() ? info.remaining() : null, info.holders(), info.lockId());
		}

	}

}
