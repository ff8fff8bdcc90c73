package dev.distlock.redis;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;

/**
 * A lock Redis granted. Release and extend run one script each, comparing the owner token; a lock taken under a
 * lock ID also keeps its ID's index in step (one more call). It keeps its own count of its lease, from before the
 * request that granted or last extended it, for the release of a lean lock ({@link LockScripts#lean}), which finds no
 * record of an earlier run: a key gone while that count runs was released by an earlier run of this release (a reply
 * lost, the command replayed), as the store's lease cannot have ended before it.
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

	/** When the lease ends by this lease's own count, which runs out no later than the store's. */
	private volatile long leaseEndNanos;

	/**
	 * @param leaseStartNanos when the request that granted it was sent, or earlier
	 */
	RedisLease(LockScripts scripts, LockRequest request, long fencingToken, long leaseStartNanos) {
		this.scripts = scripts;
		this.key = request.key();
		this.token = request.token();
		this.fencingToken = fencingToken;
		this.shared = request.shared();
		this.lease = request.lease();
		this.lockId = request.lockId();
		this.noExpiry = request.noExpiry();
		this.leaseEndNanos = leaseStartNanos + lease.toNanos();
	}

	@Override
	public long fencingToken() {
		return fencingToken;
	}

	@Override
	public boolean extend(Duration newLease) {
		long sent = System.nanoTime();
		boolean extended = scripts.extend(key, token, shared, newLease, lockId);
		if (extended) {
			leaseEndNanos = sent + newLease.toNanos();
		}
		return extended;
	}

	@Override
	public boolean isHeld() {
		return scripts.held(key, token);
	}

	@Override
	public boolean release() {
		long answer = scripts.release(key, token, shared, lease, lockId, noExpiry);
		// A lean lock's key gone: released by an earlier run while this lease runs, else expired (or forced out).
		return answer == 1 || answer == LockScripts.GONE && System.nanoTime() - leaseEndNanos < 0;
	}

	@Override
	public String toString() {
		return "RedisLease[key=" + key + ", fencingToken=" + fencingToken + (shared ? ", shared" : "") + "]";
	}

}
