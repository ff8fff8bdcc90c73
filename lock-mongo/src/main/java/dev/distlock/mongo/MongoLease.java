package dev.distlock.mongo;

import java.time.Duration;

import org.bson.Document;

import com.mongodb.client.MongoCollection;

import dev.distlock.core.spi.Lease;

/**
 * A lock granted by {@link MongoLockProvider}. Extend and release are one update each, filtered on the owner token
 * and on a lease still running by the server's clock, so a stale holder touches nothing.
 */
final class MongoLease implements Lease {

	private final MongoCollection<Document> collection;

	private final String key;

	private final String token;

	private final boolean shared;

	private final long fencingToken;

	/** Set once this lease released its lock, so a second release answers as the first did. */
	private volatile boolean released;

	MongoLease(MongoCollection<Document> collection, String key, String token, boolean shared, long fencingToken) {
		this.collection = collection;
		this.key = key;
		this.token = token;
		this.shared = shared;
		this.fencingToken = fencingToken;
	}

	@Override
	public long fencingToken() {
		return fencingToken;
	}

	@Override
	public boolean extend(Duration lease) {
		return MongoErrors.call(key, "extend", () -> collection
			.updateOne(LockDocuments.ownedBy(key, token, shared), LockDocuments.extend(token, shared, lease.toMillis()))
			.getMatchedCount() == 1);
	}

	@Override
	public boolean release() {
		if (released) {
			return true;
		}
		released = MongoErrors.call(key, "release", () -> collection
			.updateOne(LockDocuments.ownedBy(key, token, shared), LockDocuments.release(token, shared))
			.getMatchedCount() == 1);
		return released;
	}

	@Override
	public String toString() {
		return "MongoLease[key='" + key + "', fencingToken=" + fencingToken + (shared ? ", shared" : "") + "]";
	}

}
