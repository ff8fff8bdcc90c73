package dev.distlock.mongo;

import java.time.Duration;
import java.util.function.Supplier;

import org.bson.Document;
import org.bson.conversions.Bson;
import org.jspecify.annotations.Nullable;

import com.mongodb.client.MongoCollection;

import dev.distlock.core.spi.Lease;

/**
 * A lock granted by {@link MongoLockProvider}. Extend and release are one update each, filtered on the owner token
 * and on a lease still running by the database clock, so a stale holder touches nothing. Each call is bounded by the
 * time left on the lease as this JVM counts it (see {@link TimeLimits}), and neither can be defeated by the caller's
 * interrupt: both also serve releasing (a release with a minimum hold is an extend).
 */
final class MongoLease implements Lease {

	private final MongoCollection<Document> collection;

	private final String key;

	private final String token;

	private final boolean shared;

	private final @Nullable String lockId;

	private final long fencingToken;

	/** Tells the acquirer this grant is over, so a later acquire with its token is no replay of it. */
	private final Runnable onRelease;

	private final Duration callTimeout;

	/** Set once this lease released its lock, so a second release answers as the first did. */
	private volatile boolean released;

	/** {@link System#nanoTime()} at which the lease ends as this JVM counts it: from before the granting send. */
	private volatile long expiresAtNanos;

	MongoLease(MongoCollection<Document> collection, String key, String token, boolean shared, @Nullable String lockId,
			long fencingToken, long expiresAtNanos, Duration callTimeout, Runnable onRelease) {
		this.collection = collection;
		this.onRelease = onRelease;
		this.callTimeout = callTimeout;
		this.key = key;
		this.token = token;
		this.shared = shared;
		this.lockId = lockId;
		this.fencingToken = fencingToken;
		this.expiresAtNanos = expiresAtNanos;
	}

	@Override
	public long fencingToken() {
		return fencingToken;
	}

	/**
	 * {@inheritDoc} Extending again with the same token is idempotent: each one sets the lease from the moment it
	 * runs.
	 * @throws dev.distlock.core.InvalidLockOptionException naming {@code lease} if it is not positive or longer
	 * than 365 days; nothing is sent then
	 */
	@Override
	public boolean extend(Duration lease) {
		long leaseMs = TimeLimits.leaseMs("lease", lease);
		long start = System.nanoTime();
		long bound = TimeLimits.leaseBoundMillis(expiresAtNanos - start, callTimeout);
		Supplier<Boolean> statement = () -> TimeLimits.bounded(collection, bound)
			.updateOne(LeaseStatements.ownedBy(key, token, shared), LeaseStatements.extend(token, shared, leaseMs))
			.getMatchedCount() == 1;
		// Extending is idempotent per token, so an extension whose reply was lost is simply made again.
		boolean extended = MongoErrors.uninterrupted(key, "extend", bound, statement, statement);
		if (extended) {
			expiresAtNanos = start + leaseMs * 1_000_000L;
		}
		return extended;
	}

	/**
	 * {@inheritDoc} One read with the filter of extend and release: the token, and a lease still running on the
	 * database clock.
	 */
	@Override
	public boolean isHeld() {
		long bound = TimeLimits.leaseBoundMillis(expiresAtNanos - System.nanoTime(), callTimeout);
		return MongoErrors.call(key, "check ownership of", bound, () -> TimeLimits.bounded(collection, bound)
			.find(LeaseStatements.ownedBy(key, token, shared)).projection(new Document(LockDocuments.ID, 1)).limit(1)
			.first() != null);
	}

	/**
	 * {@inheritDoc} A release that fails in a way that may have left it applied (a timeout, a lost reply, an
	 * interrupt during the call) is made once more. Whenever the update finds nothing to release, a read tells whether
	 * this token's release already went through, so a release that worked is never reported as lost. A second call
	 * of this method after a successful one answers true again, as the provider contract says, without a round trip.
	 */
	@Override
	public boolean release() {
		if (released) {
			return true;
		}
		long bound = TimeLimits.leaseBoundMillis(expiresAtNanos - System.nanoTime(), callTimeout);
		// Idempotent per token: when there is nothing to release, a read tells whether this token's release already
		// went through (a first attempt whose reply was lost) before the answer is "lost".
		Supplier<Boolean> statement = () -> releaseWhere(bound, LeaseStatements.ownedBy(key, token, shared))
				|| releasedBefore(bound);
		onRelease.run();
		released = MongoErrors.uninterrupted(key, "release", bound, statement, statement);
		return released;
	}

	/** Whether this token's release already went through: a read, never a write, as another may hold it now. */
	private boolean releasedBefore(long bound) {
		return TimeLimits.bounded(collection, bound).find(LeaseStatements.releasedBy(key, token, shared, fencingToken)).limit(1)
			.first() != null;
	}

	private boolean releaseWhere(long bound, Bson filter) {
		return TimeLimits.bounded(collection, bound).updateOne(filter, LeaseStatements.release(token, shared, lockId,
				LeaseStatements.releasedMark(token, fencingToken)))
			.getMatchedCount() == 1;
	}

	@Override
	public String toString() {
		return "MongoLease[key='" + key + "', fencingToken=" + fencingToken + (shared ? ", shared" : "") + "]";
	}

}
