package dev.distlock.mongo;

import java.util.ArrayList;
import java.util.List;

import org.bson.Document;
import org.bson.conversions.Bson;

import dev.distlock.core.spi.LockRequest;

import static dev.distlock.mongo.LockDocuments.ACQUIRED_AT;
import static dev.distlock.mongo.LockDocuments.AT;
import static dev.distlock.mongo.LockDocuments.BASE;
import static dev.distlock.mongo.LockDocuments.HOST;
import static dev.distlock.mongo.LockDocuments.ID;
import static dev.distlock.mongo.LockDocuments.IDS;
import static dev.distlock.mongo.LockDocuments.LEASE_MS;
import static dev.distlock.mongo.LockDocuments.LOCK_ID;
import static dev.distlock.mongo.LockDocuments.MODE;
import static dev.distlock.mongo.LockDocuments.OWNER;
import static dev.distlock.mongo.LockDocuments.RELEASED_SHARED;
import static dev.distlock.mongo.LockDocuments.SEQ;
import static dev.distlock.mongo.LockDocuments.SHARED;
import static dev.distlock.mongo.LockDocuments.TOKEN;
import static dev.distlock.mongo.LockDocuments.TOUCHED;
import static dev.distlock.mongo.LockDocuments.WAITER;
import static dev.distlock.mongo.LockDocuments.WAITER_AT;
import static dev.distlock.mongo.LockDocuments.WAITER_MS;
import static dev.distlock.mongo.LockDocuments.exclusiveLeaseEnd;
import static dev.distlock.mongo.LockDocuments.holderField;
import static dev.distlock.mongo.LockDocuments.liveSharedCount;

/**
 * The statements that take a lock: the grant filter and update of an existing document, the insert of an absent one,
 * and the mark a waiting writer leaves (the shared grant filter honours a live mark, the exclusive grant removes it).
 * {@link MongoAcquirer} sends the grants, {@link MongoAcquisition} the mark. The upsert filter is a plain predicate
 * (real MongoDB rejects {@code $expr} there) and every update is operator-style, so the same statements run on
 * MongoDB 5.0+ and on mongo-java-server.
 */
final class GrantStatements {

	private GrantStatements() {
	}

	/**
	 * The grant filter for an existing document. Exclusive: no live holder at all, or the live exclusive holder is
	 * this very token. Shared: no live exclusive holder, and either a live slot of this very token, or fewer than
	 * maxConcurrent live shared ones with no live exclusive waiter's mark (writer priority) and no other live holder
	 * of the same lock ID. The same-token cases make a repeated acquire that {@link MongoAcquirer} did not take for a
	 * replay (see {@link #regrant}) a grant again instead of "held by someone else"; it re-stamps the lease and takes
	 * no second slot.
	 */
	static Bson grantable(LockRequest request) {
		Document exclusiveExpired = new Document("$lte", List.of(exclusiveLeaseEnd("", 0), "$$NOW"));
		// Plain predicates first: a released document has no token (only an exclusive grant sets one; release, forced
		// release and shared grants unset it), and one nobody shares has an empty holder map. They decide the common
		// case by index-free equality; the $expr on the database clock decides only when a holder is recorded.
		List<Object> noExclusive = new ArrayList<>(List.of(new Document(TOKEN, new Document("$exists", false)),
				new Document("$expr", exclusiveExpired)));
		if (!request.shared()) {
			noExclusive.add(new Document(TOKEN, request.token()));
			Document room = new Document("$eq", List.of(liveSharedCount(0), 0));
			List<Object> noShared = List.of(new Document(SHARED, new Document()), new Document("$expr", room));
			return new Document(ID, request.key()).append("$and",
					List.of(new Document("$or", noExclusive), new Document("$or", noShared)));
		}
		String mine = SHARED + "." + holderField(request.token());
		Document mySlotLive = new Document("$expr",
				new Document("$gt", List.of(exclusiveLeaseEnd(mine + ".", 0), "$$NOW")));
		Document room = new Document("$lt", List.of(liveSharedCount(0), request.maxConcurrent()));
		List<Object> newHolder = new ArrayList<>(List.of(
				new Document("$or", List.of(new Document(SHARED, new Document()), new Document("$expr", room))),
				new Document("$or", List.of(new Document(WAITER, new Document("$exists", false)),
						new Document("$expr", new Document("$lte", List.of(
								new Document("$add", List.of("$" + WAITER_AT, "$" + WAITER_MS)), "$$NOW")))))));
		if (request.lockId() != null) {
			newHolder.add(new Document("$expr", new Document("$eq",
					List.of(liveSharedWithId(request.lockId(), holderField(request.token())), 0))));
		}
		return new Document(ID, request.key()).append("$and", List.of(new Document("$or", noExclusive),
				new Document("$or", List.of(mySlotLive, new Document("$and", newHolder)))));
	}

	/**
	 * The update of a replayed acquire, matched by {@link LeaseStatements#ownedBy} (this token's grant, still live):
	 * the lease is set anew from the server's now and nothing else changes, so no fencing token is issued and the
	 * replay answers the one its first call got.
	 */
	static Bson regrant(LockRequest request, long leaseMs) {
		return LeaseStatements.extend(request.token(), request.shared(), leaseMs);
	}

	/** How many live shared holders other than {@code exceptField} hold the key under the lock ID. */
	private static Document liveSharedWithId(String lockId, String exceptField) {
		Document cond = new Document("$and", List.of(
				new Document("$eq", List.of("$$h.v." + LOCK_ID, new Document("$literal", lockId))),
				new Document("$ne", List.of("$$h.k", exceptField)),
				new Document("$gt", List.of(exclusiveLeaseEnd("$h.v.", 0), "$$NOW"))));
		return new Document("$size", new Document("$filter",
				new Document("input", new Document("$objectToArray", "$" + SHARED)).append("as", "h")
					.append("cond", cond)));
	}

	/**
	 * The insert filter: an {@code _id} plus a plain predicate no existing lock document satisfies, so the upsert
	 * either inserts or fails with a duplicate key (11000), which means "the document exists, so it is held".
	 */
	static Bson absent(String key) {
		return new Document(ID, key).append(SEQ, new Document("$exists", false));
	}

	/**
	 * The grant update, for {@code leaseMs} (a lock without expiry is granted for a provisional lease first, see
	 * {@link MongoAcquirer}). {@code inserting} adds the fields a new document needs ({@code base}, and the exclusive
	 * fields of a shared-only document); $currentDate stamps the server's time.
	 */
	static Bson grant(LockRequest request, boolean inserting, long leaseMs) {
		Document set = new Document(MODE, request.mode().name());
		String lockId = request.lockId();
		Document currentDate = new Document(TOUCHED, true);
		Document unset = new Document();
		Document update = new Document("$inc", new Document(SEQ, 1L));
		if (inserting) {
			currentDate.append(BASE, true);
		}
		if (request.shared()) {
			String holder = SHARED + "." + holderField(request.token()) + ".";
			set.append(holder + OWNER, request.owner().owner())
				.append(holder + HOST, request.owner().host())
				.append(holder + LEASE_MS, leaseMs);
			if (lockId != null) {
				set.append(holder + LOCK_ID, lockId);
				update.append("$addToSet", new Document(IDS, lockId));
			}
			currentDate.append(holder + AT, true).append(holder + ACQUIRED_AT, true);
			if (inserting) {
				set.append(LEASE_MS, 0L); // the exclusive part starts out expired
				currentDate.append(AT, true);
			}
			else {
				unset.append(TOKEN, "");
			}
		}
		else {
			set.append(TOKEN, request.token())
				.append(OWNER, request.owner().owner())
				.append(HOST, request.owner().host())
				.append(LEASE_MS, leaseMs)
				.append(SHARED, new Document()) // every shared holder is expired (the filter said so): drop them
				.append(IDS, lockId != null ? List.of(lockId) : List.of());
			if (lockId != null) {
				set.append(LOCK_ID, lockId);
			}
			else {
				unset.append(LOCK_ID, "");
			}
			// The writer got in: its mark (or a waiting rival's, which the rival's next attempt renews) goes.
			unset.append(WAITER, "").append(WAITER_AT, "").append(WAITER_MS, "");
			currentDate.append(AT, true).append(ACQUIRED_AT, true);
		}
		unset.append(RELEASED_SHARED, ""); // a new grant: earlier shared releases are no longer the last word
		update.append("$unset", unset);
		return update.append("$set", set).append("$currentDate", currentDate);
	}

	/** Marks a waiting exclusive request on the key for {@code validityMs} from the server's now. */
	static Bson markWaiter(String token, long validityMs) {
		return new Document("$set", new Document(WAITER, token).append(WAITER_MS, validityMs))
			.append("$currentDate", new Document(WAITER_AT, true));
	}

	/** Withdraws the waiter's mark; the filter names its token, so a rival's later mark stays. */
	static Bson waiterOf(String key, String token) {
		return new Document(ID, key).append(WAITER, token);
	}

	/** The update withdrawing a waiting mark; with {@link #waiterOf} it removes only that waiter's. */
	static Bson clearWaiter() {
		return new Document("$unset", new Document(WAITER, "").append(WAITER_AT, "").append(WAITER_MS, ""));
	}

}
