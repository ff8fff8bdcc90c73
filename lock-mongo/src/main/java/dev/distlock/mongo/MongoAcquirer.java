package dev.distlock.mongo;

import java.time.Duration;
import java.util.Date;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.jspecify.annotations.Nullable;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.ReturnDocument;

import dev.distlock.core.LockStoreException;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;

import static dev.distlock.mongo.LockDocuments.ID;
import static dev.distlock.mongo.LockDocuments.SHARED;

/**
 * Takes a lock in one attempt, bounded by its lease: an update of the key's document when it is free, expired or
 * already this token's, else an insert, whose duplicate key means the document exists and is held. A shared grant then
 * prunes the expired shared holders it found. A lock without expiry is granted for a provisional lease (twice the
 * attempt's bound) and made lasting by a second, owner-checked statement once the grant's reply is in: a grant whose
 * reply never comes (a request delayed past the client's bound, landing after every clean-up) then ends by itself,
 * where a grant without expiry would be held by a token nobody has, forever. An attempt that failed in a way that may have left a grant behind has
 * that grant released by owner token ({@link OrphanGrantSweeper}) before the error is thrown. The statements themselves are
 * in {@link GrantStatements}.
 */
final class MongoAcquirer {

	private static final Log logger = LogFactory.getLog(MongoAcquirer.class);

	private final MongoCollection<Document> collection;

	private final Duration callTimeout;

	private final OrphanGrantSweeper orphanGrants;

	/** The fencing token of each grant this acquirer made and whose lease is not released yet, by owner token. */
	private final Map<String, Long> issued = new ConcurrentHashMap<>();

	private static final int MAX_ISSUED = 10_000;

	MongoAcquirer(MongoCollection<Document> collection, Duration callTimeout) {
		this.collection = collection;
		this.callTimeout = callTimeout;
		this.orphanGrants = new OrphanGrantSweeper(collection, callTimeout);
	}

	/**
	 * One attempt, as {@link MongoLockProvider#tryAcquire} describes it.
	 * @throws dev.distlock.core.InvalidLockOptionException naming {@code timeout} if the lease is not positive or
	 * longer than 365 days; nothing is sent then
	 */
	Optional<Lease> tryAcquire(LockRequest request) {
		if (!request.noExpiry()) {
			TimeLimits.leaseMs("timeout", request.lease());
		}
		long start = System.nanoTime();
		long deadline = start + TimeUnit.MILLISECONDS.toNanos(bound(request));
		long grantMs = grantLeaseMillis(request);
		// Three cases: the document exists and is grantable (one round trip), it is absent (insert, a second round
		// trip), or it exists and is held (the insert fails with a duplicate key: refused).
		Document granted = null;
		// A token this acquirer granted and that is not released yet: a replay (its first reply lost on the way to
		// the caller), answered with the first grant's fencing token if the grant is still held. Tried first, so a
		// grant that ends meanwhile is then granted anew by the usual statements; unknown tokens never pay for it.
		Long issuedFence = issued.get(request.token());
		boolean replayed = false;
		try {
			if (issuedFence != null) {
				granted = attempt(request, deadline, Statement.REGRANT, grantMs);
				replayed = granted != null;
			}
			if (granted == null) {
				granted = attempt(request, deadline, Statement.GRANT, grantMs);
			}
			if (granted == null) {
				granted = attempt(request, deadline, Statement.INSERT, grantMs);
			}
			if (granted != null && request.noExpiry() && !makeLasting(request)) {
				// Forced out (by lock ID or by force) between the grant and now: not acquired.
				return Optional.empty();
			}
		}
		catch (LockStoreException ex) {
			// A grant without expiry whose second statement failed holds its provisional lease: released all the same.
			if (granted != null || MongoErrors.mayHaveRun(ex.getCause())) {
				// a replay may yet find that grant (if it outlives the clean-up): its fencing token is the key's
				issued.putIfAbsent(request.token(), -1L);
				orphanGrants.release(request, Duration.ofMillis(grantMs), ex);
			}
			throw ex;
		}
		if (granted == null) {
			return Optional.empty();
		}
		if (request.shared() && !replayed) {
			pruneExpiredHolders(request, granted, deadline);
		}
		long fence = replayed && issuedFence != null && issuedFence >= 0 ? issuedFence : LockDocuments.fencing(granted);
		remember(request.token(), fence);
		// Only the call bounds use it (capped at 30 s): a lock without expiry counts as a long one.
		long leaseNanos = request.noExpiry() ? TimeLimits.MAX_LEASE.toNanos() : request.lease().toNanos();
		return Optional.of(new MongoLease(collection, request.key(), request.token(), request.shared(),
				request.lockId(), fence, start + leaseNanos, callTimeout, () -> issued.remove(request.token())));
	}

	/** Keeps a grant's fencing token for its replays until its lease is released; bounded, dropping all when full. */
	private void remember(String token, long fence) {
		if (issued.size() >= MAX_ISSUED) {
			issued.clear(); // leases never released (lost, or expired): their replays are then granted anew
		}
		issued.put(token, fence);
	}

	/**
	 * Turns the provisional lease of a grant without expiry into none, if this token still holds it: owner-checked
	 * with the extend's filter, so a late copy of it finds the provisional lease over and changes nothing. Bounded by the attempt's own
	 * bound, so it runs (if at all) before the provisional lease, twice that bound, has ended.
	 * @return false when the lock is no longer this token's
	 */
	private boolean makeLasting(LockRequest request) {
		long bound = bound(request);
		return MongoErrors.call(request.key(), "acquire", bound, () -> TimeLimits.bounded(collection, bound)
			.updateOne(LeaseStatements.ownedBy(request.key(), request.token(), request.shared()),
					LeaseStatements.makeLasting(request.token(), request.shared()))
			.getMatchedCount() == 1);
	}

	/** The lease the grant statement stores: the request's, or a provisional one for a lock without expiry. */
	private long grantLeaseMillis(LockRequest request) {
		return request.noExpiry() ? 2 * bound(request) : request.lease().toMillis();
	}

	/** The statements of one attempt, in the order they are tried. */
	private enum Statement {
		REGRANT, GRANT, INSERT
	}

	/** One grant statement with what is left of the attempt's bound. */
	private @Nullable Document attempt(LockRequest request, long deadline, Statement statement, long grantMs) {
		long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
		if (left <= 0) {
			// Only after a statement that granted nothing: there is nothing to clean up.
			throw new LockStoreException(request.key(), "Mongo lock store failed to acquire for '" + request.key()
					+ "': its bound of " + bound(request) + " ms ran out", null);
		}
		MongoCollection<Document> bounded = TimeLimits.bounded(collection, left);
		return MongoErrors.call(request.key(), "acquire", bound(request),
				() -> switch (statement) {
					case GRANT -> grantExisting(bounded, request, grantMs);
					case INSERT -> insert(bounded, request, grantMs);
					case REGRANT -> regrant(bounded, request, grantMs);
				});
	}

	/**
	 * A live grant of this very token, made by this acquirer: the lease set anew, nothing else changed (no
	 * {@code $inc}); the answer is the fencing token the first grant got, which this acquirer kept.
	 */
	private @Nullable Document regrant(MongoCollection<Document> bounded, LockRequest request, long grantMs) {
		return bounded.findOneAndUpdate(LeaseStatements.ownedBy(request.key(), request.token(), request.shared()),
				GrantStatements.regrant(request, grantMs), new FindOneAndUpdateOptions()
					.returnDocument(ReturnDocument.AFTER)
					.projection(Projections.include(LockDocuments.BASE, LockDocuments.SEQ)));
	}

	private @Nullable Document grantExisting(MongoCollection<Document> bounded, LockRequest request, long grantMs) {
		return bounded.findOneAndUpdate(GrantStatements.grantable(request),
				GrantStatements.grant(request, false, grantMs),
				grantOptions(request, false));
	}

	private @Nullable Document insert(MongoCollection<Document> bounded, LockRequest request, long grantMs) {
		try {
			return bounded.findOneAndUpdate(GrantStatements.absent(request.key()),
					GrantStatements.grant(request, true, grantMs),
					grantOptions(request, true));
		}
		catch (MongoException ex) {
			if (MongoErrors.isDuplicateKey(ex)) {
				logger.debug("Lock '" + request.key() + "' is held (duplicate key on insert)");
				return null;
			}
			throw ex;
		}
	}

	private static FindOneAndUpdateOptions grantOptions(LockRequest request, boolean upsert) {
		Bson projection = request.shared()
				? Projections.include(LockDocuments.BASE, LockDocuments.SEQ, SHARED)
				: Projections.include(LockDocuments.BASE, LockDocuments.SEQ);
		return new FindOneAndUpdateOptions().upsert(upsert).returnDocument(ReturnDocument.AFTER).projection(projection);
	}

	/**
	 * Removes shared holders whose lease had ended when this grant was stamped. The bound is the server time the
	 * grant just wrote, so it never removes a live holder; the update matches only while each pruned holder is
	 * unchanged. Best effort: costs a round trip only when there is something to prune, and a failure only leaves
	 * expired holders that no grant counts, so it is logged and the granted lease is returned all the same.
	 */
	private void pruneExpiredHolders(LockRequest request, Document granted, long deadline) {
		Document shared = granted.get(SHARED, Document.class);
		Document mine = shared.get(LockDocuments.holderField(request.token()), Document.class);
		long serverNow = mine.getDate(LockDocuments.AT).getTime();
		Document filter = new Document(ID, request.key());
		Document unset = new Document();
		for (Map.Entry<String, Object> entry : shared.entrySet()) {
			Document holder = (Document) entry.getValue();
			Date at = holder.getDate(LockDocuments.AT);
			if (at.getTime() + ((Number) holder.get(LockDocuments.LEASE_MS)).longValue() <= serverNow) {
				// "not stamped since": a range, because mongo-java-server keeps sub-millisecond precision
				filter.append(SHARED + "." + entry.getKey() + "." + LockDocuments.AT,
						new Document("$lt", new Date(at.getTime() + 1)));
				unset.append(SHARED + "." + entry.getKey(), "");
			}
		}
		long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
		if (unset.isEmpty() || left <= 0) {
			return;
		}
		try {
			TimeLimits.bounded(collection, left).updateOne(filter, new Document("$unset", unset));
		}
		catch (RuntimeException ex) {
			logger.debug("Could not prune " + unset.size() + " expired shared holders of '" + request.key() + "'", ex);
		}
	}

	/** The bound of one acquire: its lease, capped by the call timeout. */
	private long bound(LockRequest request) {
		return TimeLimits.leaseBoundMillis(request.lease().toNanos(), callTimeout);
	}

}
