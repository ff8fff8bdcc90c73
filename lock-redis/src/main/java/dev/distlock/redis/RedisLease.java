package dev.distlock.redis;

import java.time.Duration;

import dev.distlock.core.spi.Lease;

/**
 * A lock Redis granted. Release and extend run one script each, comparing the owner token.
 */
final class RedisLease implements Lease {

	private final LockScripts scripts;

	private final String key;

	private final String token;

	private final long fencingToken;

	private final boolean shared;

	private final Duration lease;

	RedisLease(LockScripts scripts, String key, String token, long fencingToken, boolean shared, Duration lease) {
		this.scripts = scripts;
		this.key = key;
		this.token = token;
		this.fencingToken = fencingToken;
		this.shared = shared;
		this.lease = lease;
	}

	@Override
	public long fencingToken() {
		return fencingToken;
	}

	@Override
	public boolean extend(Duration newLease) {
		return scripts.extend(key, token, shared, newLease);
	}

	@Override
	public boolean release() {
		return scripts.release(key, token, shared, lease);
	}

	@Override
	public String toString() {
		return "RedisLease[key=" + key + ", fencingToken=" + fencingToken + (shared ? ", shared" : "") + "]";
	}

}
