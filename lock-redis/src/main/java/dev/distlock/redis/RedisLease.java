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

	RedisLease(RedisLockProvider provider, String key, String token, long fencingToken, boolean shared) {
		this.provider = provider;
		this.key = key;
		this.token = token;
		this.fencingToken = fencingToken;
		this.shared = shared;
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
