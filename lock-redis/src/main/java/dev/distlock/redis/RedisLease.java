package dev.distlock.redis;

import java.time.Duration;

import dev.distlock.core.spi.Lease;

/**
 * A lock Redis granted. Release and extend run one script each, comparing the owner token.
 */
final class RedisLease implements Lease {

	private final RedisLockProvider provider;

	private final String key;

	private final String token;

	private final long fencingToken;

	private final boolean shared;

	private final long leaseStartNanos;

	RedisLease(RedisLockProvider provider, String key, String token, long fencingToken, boolean shared) {
		this(provider, key, token, fencingToken, shared, Long.MAX_VALUE);
	}

	/**
	 * A lease that may have started before the attempt that returned it: a hand-off to a queued waiter.
	 * @param leaseStartNanos when the queued attempt the hand-off served was sent
	 */
	RedisLease(RedisLockProvider provider, String key, String token, long fencingToken, boolean shared,
			long leaseStartNanos) {
		this.provider = provider;
		this.key = key;
		this.token = token;
		this.fencingToken = fencingToken;
		this.shared = shared;
		this.leaseStartNanos = leaseStartNanos;
	}

	@Override
	public String key() {
		return key;
	}

	@Override
	public String token() {
		return token;
	}

	@Override
	public long fencingToken() {
		return fencingToken;
	}

	@Override
	public long leaseStartNanos(long attemptNanos) {
		return Math.min(attemptNanos, leaseStartNanos);
	}

	@Override
	public boolean extend(Duration lease) {
		return provider.extend(key, token, lease, shared);
	}

	@Override
	public boolean release() {
		return provider.release(key, token, shared);
	}

	@Override
	public String toString() {
		return "RedisLease[key=" + key + ", fencingToken=" + fencingToken + (shared ? ", shared" : "") + "]";
	}

}
