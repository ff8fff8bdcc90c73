package dev.distlock.redis;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;

/**
 * A lock Redis granted. Release and extend run one script each, comparing the owner token; a lock taken under a
 * lock ID also keeps its ID's index in step (one more call).
 */
final class RedisLease implements Lease {

	private final LockScripts scripts;

	private final String key;

	private final String token;

	private final long fencingToken;

	private final boolean shared;

	private final Duration lease;

	private final @Nullable String lockId;

	private final boolean noExpiry;

	RedisLease(LockScripts scripts, LockRequest request, long fencingToken) {
		this.scripts = scripts;
		this.key = request.key();
		this.token = request.token();
		this.fencingToken = fencingToken;
		this.shared = request.shared();
		this.lease = request.lease();
		this.lockId = request.lockId();
		this.noExpiry = request.noExpiry();
	}

	@Override
	public long fencingToken() {
		return fencingToken;
	}

	@Override
	public boolean extend(Duration newLease) {
		return scripts.extend(key, token, shared, newLease, lockId);
	}

	@Override
	public boolean isHeld() {
		return scripts.held(key, token);
	}

	@Override
	public boolean release() {
		return scripts.release(key, token, shared, lease, lockId, noExpiry);
	}

	@Override
	public String toString() {
		return "RedisLease[key=" + key + ", fencingToken=" + fencingToken + (shared ? ", shared" : "") + "]";
	}

}
