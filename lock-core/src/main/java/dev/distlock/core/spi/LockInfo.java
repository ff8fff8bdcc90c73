package dev.distlock.core.spi;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.LockMode;

/**
 * One lock as the store sees it. Owner tokens are never exposed.
 * @param key the store key
 * @param mode exclusive or shared
 * @param owner the owner name of the (first) holder, if stored
 * @param host the host of the (first) holder, if stored
 * @param fencingToken the latest fencing token issued for the key
 * @param acquiredAt when the current holder acquired it, if known
 * @param remaining the time left on the lease by the store's clock; zero or negative when expired
 * @param holders how many holders are in: 1 for exclusive, up to maxConcurrent for shared, 0 when expired
 */
public record LockInfo(String key, LockMode mode, @Nullable String owner, @Nullable String host, long fencingToken,
		@Nullable Instant acquiredAt, Duration remaining, int holders) {

	/**
	 * Whether the lock is currently held.
	 */
	public boolean held() {
		return holders > 0 && !remaining.isNegative() && !remaining.isZero();
	}

}
