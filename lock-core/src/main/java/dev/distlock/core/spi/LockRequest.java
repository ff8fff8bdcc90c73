package dev.distlock.core.spi;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.LockIds;
import dev.distlock.core.LockMode;
import dev.distlock.core.OwnerDetails;

/**
 * One attempt's parameters, as a provider sees them.
 * @param key the full store key (prefix applied, validated)
 * @param token the owner token, unique per acquisition; release and extend compare it
 * @param lease how long the store keeps the lock without an extend; ignored when {@code noExpiry}
 * @param mode exclusive or shared
 * @param maxConcurrent for shared mode, how many holders may share the key; 1 for exclusive
 * @param owner owner name and host, stored with the lock for status queries
 * @param lockId the caller's lock ID, stored beside the token; only sent to a {@link LockIdSupport} provider
 * @param noExpiry whether the lock is kept until released, without a lease; only sent to a {@link LockIdSupport}
 * provider
 */
public record LockRequest(String key, String token, Duration lease, LockMode mode, int maxConcurrent,
		OwnerDetails owner, @Nullable String lockId, boolean noExpiry) {

	/**
	 * Checks the lock ID ({@link LockIds}), so no provider stores one it could not find again.
	 * @throws dev.distlock.core.InvalidLockOptionException naming {@code lockId}
	 */
	public LockRequest {
		if (lockId != null) {
			LockIds.validate(lockId);
		}
	}

	/**
	 * A request without lock ID, with a lease.
	 */
	public LockRequest(String key, String token, Duration lease, LockMode mode, int maxConcurrent,
			OwnerDetails owner) {
		this(key, token, lease, mode, maxConcurrent, owner, null, false);
	}

	/**
	 * Whether this request is for a shared lock.
	 */
	public boolean shared() {
		return mode == LockMode.SHARED;
	}

}
