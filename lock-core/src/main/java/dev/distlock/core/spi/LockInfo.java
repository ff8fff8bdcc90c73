package dev.distlock.core.spi;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.LockMode;

/**
 * One lock as the store sees it. Owner tokens are never exposed; the lock ID is, as status readers may already force
 * a release.
 * @param key the store key
 * @param mode exclusive or shared
 * @param owner the owner name of the (first) holder, if stored
 * @param host the host of the (first) holder, if stored
 * @param fencingToken the latest fencing token issued for the key
 * @param acquiredAt when the current holder acquired it (its creation time), if known
 * @param remaining the time left on the lease by the store's clock; zero or negative when expired; {@link #NO_EXPIRY}
 * for a lock that never expires
 * @param holders how many holders are in: 1 for exclusive, up to maxConcurrent for shared, 0 when expired
 * @param lockId the lock ID the (first) holder was taken under, or null for a lock taken without one
 * @param renewedAt when the lease was last extended or renewed, or null if never (or not recorded)
 * @param ttl the lease set at the grant or the last renewal, or null for a lock without expiry
 */
public record LockInfo(String key, LockMode mode, @Nullable String owner, @Nullable String host, long fencingToken,
		@Nullable Instant acquiredAt, Duration remaining, int holders, @Nullable String lockId,
		@Nullable Instant renewedAt, @Nullable Duration ttl) {

	/** The {@link #remaining()} of a lock that never expires: the longest {@link Duration}. */
	public static final Duration NO_EXPIRY = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);

	/**
	 * The info of a store that records no lock IDs or renewal times: the TTL is taken as the remaining lease (a
	 * lower bound of the real one).
	 */
	public LockInfo(String key, LockMode mode, @Nullable String owner, @Nullable String host, long fencingToken,
			@Nullable Instant acquiredAt, Duration remaining, int holders) {
		this(key, mode, owner, host, fencingToken, acquiredAt, remaining, holders, null, null, remaining);
	}

	/**
	 * Whether the lock is currently held.
	 */
	public boolean held() {
		return holders > 0 && !remaining.isNegative() && !remaining.isZero();
	}

	/**
	 * Whether the lock expires at all; false for a lock taken with {@link dev.distlock.core.LockOptions#noExpiry()}.
	 */
	public boolean expires() {
		return ttl != null;
	}

	/**
	 * When the lock was created, for callers that filter by creation time: the same as {@link #acquiredAt()}.
	 */
	public @Nullable Instant createdAt() {
		return acquiredAt;
	}

	/**
	 * The TTL as status shows it: the duration, or {@code none} for a lock without expiry.
	 */
	public String ttlText() {
		return ttl != null ? ttl.toString() : "none";
	}

	@Override
	public String toString() {
		return "LockInfo[key=" + key + ", mode=" + mode + ", lockId=" + lockId + ", owner=" + owner + ", host=" + host
				+ ", fencingToken=" + fencingToken + ", createdAt=" + acquiredAt + ", renewedAt=" + renewedAt
				+ ", ttl=" + ttlText() + ", remaining=" + (expires() ? remaining : "none") + ", holders=" + holders
				+ "]";
	}

}
