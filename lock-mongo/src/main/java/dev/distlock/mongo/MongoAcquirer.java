package dev.distlock.mongo;

import java.time.Duration;
import java.util.Date;
import java.util.Map;
import java.util.Optional;
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
 * that grant released by owner token ({@link UnknownGrants}) before the error is thrown. The statements themselves are
 * in {@link GrantStatements}.
 */
final class MongoAcquirer {

	private static final Log logger = LogFactory.getLog(MongoAcquirer.class);

	private final MongoCollection<Document> collection;

	private final Duration callTimeout;

	private final UnknownGrants unknownGrants;

	MongoAcquirer(MongoCollection<Document> collection, Duration callTimeout) {
		this.collection = collection;
		this.callTimeout = callTimeout;
		this.unknownGrants = new UnknownGrants(collection, callTimeout);
	}

	/**
	 * One attempt, as {@link MongoLockProvider#tryAcquire} describes it.
	 * @throws dev.distlock.core.InvalidLockOptionException naming {@code timeout} if the lease is not positive or
	 * longer than 365 days; nothing is sent then
	 */
	Optional<Lease> tryAcquire(LockRequest request) {
		if (!request.noExpiry()) {
			CallBounds.leaseMillis("timeout", request.lease());
		}
		long start = System.nanoTime();
		long deadline = start + TimeUnit.MILLISECONDS.toNanos(bound(request));
		long grantMs = grantLeaseMillis(request);
		// Three cases: the document exists and is grantable (one round trip), it is absent (insert, a second round
		// trip), or it exists and is held (the insert fails with a duplicate key: refused).
		Document granted = null;
		boolean replayed = false;
		try {
			granted = attempt(request, deadline, Statement.GRANT, grantMs);
			if (granted == null) {
				granted = attempt(request, deadline, Statement.INSERT, grantMs);
			}
			if (granted == null) {
				// Held: by this very token (a replay after a lost reply), it answers as the first call did.
				granted = attempt(request, deadline, Statement.REGRANT, grantMs);
				replayed = granted != null;
				if (granted == null) {
					// This token's grant may have ended between the first statement and the replay's: once over,
					// over for good (the database clock), so the grant statement decides that case alone.
					granted = attempt(request, deadline, Statement.GRANT, grantMs);
				}
			}
			if (granted != null && request.noExpiry() && !makeLasting(request)) {
				// Forced out (by lock ID or by force) between the grant and now: not acquired.
				return Optional.empty();
			}
		}
		catch (LockStoreException ex) {
			// A grant without expiry whose second statement failed holds its provisional lease: released all the same.
			if (granted != null || MongoErrors.mayHaveRun(ex.getCause())) {
				unknownGrants.release(request, Duration.ofMillis(grantMs), ex);
			}
			throw ex;
		}
		if (granted == null) {
			return Optional.empty();
		}
		if (request.shared() && !replayed) {
			recordAndPrune(request, granted, deadline);
		}
		// Only the call bounds use it (capped at 30 s): a lock without expiry counts as a long one.
		long leaseNanos = request.noExpiry() ? CallBounds.MAX_LEASE.toNanos() : request.lease().toNanos();
		return Optional.of(new MongoLease(collection, request.key(), request.token(), request.shared(),
				request.lockId(), LockDocuments.fencing(granted), start + leaseNanos, callTimeout));
	}

	/**
	 * Turns the provisional lease of a grant without expiry into none, if this token still holds it: owner-checked
	 * with the extend's filter, so a late copy of it finds the provisional lease over and changes nothing. Bounded by the attempt's own
	 * bound, so it runs (if at all) before the provisional lease, twice that bound, has ended.
	 * @return false when the lock is no longer this token's
	 */
	private boolean makeLasting(LockRequest request) {
		long bound = bound(request);
		return MongoErrors.call(request.key(), "acquire", bound, () -> CallBounds.bounded(collection, bound)
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
		GRANT, INSERT, REGRANT
	}

	/** One grant statement with what is left of the attempt's bound. */
	private @Nullable Document attempt(LockRequest request, long deadline, Statement statement, long grantMs) {
		long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
		if (left <= 0) {
			// Only after a statement that granted nothing: there is nothing to clean up.
			throw new LockStoreException(request.key(), "Mongo lock store failed to acquire for '" + request.key()
					+ "': its bound of " + bound(request) + " ms ran out", null);
		}
		MongoCollection<Document> bounded = CallBounds.bounded(collection, left);
		return MongoErrors.call(request.key(), "acquire", bound(request),
				() -> switch (statement) {
					case GRANT -> grantExisting(bounded, request, grantMs);
					case INSERT -> insert(bounded, request, grantMs);
					case REGRANT -> regrant(bounded, request, grantMs);
				});
	}

	/**
	 * A live grant of this very token (its first call's reply was lost): the lease set anew, and the fencing token of
	 * that grant, the key's {@code seq} for an exclusive holder (nobody else was granted meanwhile) or the one recorded
	 * in a shared holder's entry.
	 */
	private @Nullable Document regrant(MongoCollection<Document> bounded, LockRequest request, long grantMs) {
		String holder = SHARED + "." + LockDocuments.holderField(request.token());
		Bson projection = request.shared()
				? Projections.include(LockDocuments.BASE, LockDocuments.SEQ, holder + "." + LockDocuments.HOLDER_SEQ)
				: Projections.include(LockDocuments.BASE, LockDocuments.SEQ);
		Document found = bounded.findOneAndUpdate(LeaseStatements.ownedBy(request.key(), request.token(),
				request.shared()), GrantStatements.regrant(request, grantMs),
				new FindOneAndUpdateOptions().returnDocument(ReturnDocument.AFTER).projection(projection));
		if (found == null || !request.shared()) {
			return found;
		}
		Document entry = found.get(SHARED, Document.class).get(LockDocuments.holderField(request.token()),
				Document.class);
		Object seq = entry.get(LockDocuments.HOLDER_SEQ);
		// Without a recorded seq (its grant's record failed), the key's current one: not below the grant's.
		return seq != null ? new Document(found).append(LockDocuments.SEQ, seq) : found;
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
	 * Records this shared grant's {@code seq} in its entry (so a replay answers the same fencing token) and, in the
	 * same update, removes shared holders whose lease had ended when this grant was stamped. The bound is the server
	 * time the grant just wrote, so it never removes a live holder; the pruning matches only while each pruned holder
	 * is unchanged. Best effort: a failure only leaves expired holders that no grant counts (and a replay answering
	 * the key's newest token), so it is logged and the granted lease is returned all the same.
	 */
	private void recordAndPrune(LockRequest request, Document granted, long deadline) {
		String mineField = LockDocuments.holderField(request.token());
		Document shared = granted.get(SHARED, Document.class);
		Document mine = shared.get(mineField, Document.class);
		long serverNow = mine.getDate(LockDocuments.AT).getTime();
		Document filter = new Document(ID, request.key()).append(SHARED + "." + mineField,
				new Document("$exists", true));
		Bson record = GrantStatements.recordHolderSeq(request.token(), ((Number) granted.get(LockDocuments.SEQ))
			.longValue());
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
		if (left <= 0) {
			return;
		}
		try {
			MongoCollection<Document> bounded = CallBounds.bounded(collection, left);
			if (unset.isEmpty()) {
				bounded.updateOne(filter, record);
			}
			else if (bounded.updateOne(filter, new Document(((Document) record)).append("$unset", unset))
				.getMatchedCount() == 0) {
				// a holder to prune was renewed meanwhile: record this grant's seq alone
				bounded.updateOne(new Document(ID, request.key()).append(SHARED + "." + mineField,
						new Document("$exists", true)), record);
			}
		}
		catch (RuntimeException ex) {
			logger.debug("Could not record the grant or prune " + unset.size() + " expired shared holders of '"
					+ request.key() + "'", ex);
		}
	}

	/** The bound of one acquire: its lease, capped by the call timeout. */
	private long bound(LockRequest request) {
		return CallBounds.leaseBoundMillis(request.lease().toNanos(), callTimeout);
	}

}
