package dev.distlock.mongo;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;

import org.bson.Document;
import org.bson.conversions.Bson;
import org.jspecify.annotations.Nullable;

import dev.distlock.core.spi.LockRequest;

/**
 * The lock document and the filters and updates on it. One document per key; every time in it is written by the
 * database ({@code $currentDate}, stamped by the primary that applies the write) and every expiry test compares with
 * {@code $$NOW} (the clock of the node that runs the statement: the primary on a replica set, the mongos router on a
 * sharded cluster; see docs/MONGO.md), so no application clock decides who holds a lock. No pipeline updates and no
 * {@code $expr} in an upsert filter: the same statements run on MongoDB 5.0+ and on mongo-java-server.
 */
final class LockDocuments {

	static final String ID = "_id";

	/** Owner token of the exclusive holder; absent when free or shared. */
	static final String TOKEN = "token";

	static final String OWNER = "owner";

	static final String HOST = "host";

	static final String MODE = "mode";

	static final String ACQUIRED_AT = "acquiredAt";

	/** Server time of the exclusive holder's grant or last extend; with {@link #LEASE_MS} it gives the expiry. */
	static final String AT = "at";

	static final String LEASE_MS = "leaseMs";

	/** Shared holders: encoded owner token to {owner, host, acquiredAt, at, leaseMs}. Always present. */
	static final String SHARED = "shared";

	/**
	 * The owner token of the last exclusive release, so the provider's replay of a release whose reply was lost
	 * answers "released" rather than "lost", even after the lock was granted again. The next release replaces it.
	 */
	static final String RELEASED = "released";

	/** Server time of the document's insert: the high part of every fencing token issued from it. */
	static final String BASE = "base";

	/** Grants from this document: the low part of the fencing token. */
	static final String SEQ = "seq";

	/** Server time of the last write of any kind; the purger's index. */
	static final String TOUCHED = "touched";

	/** The exclusive holder's lock ID; in a shared holder's entry, that holder's. */
	static final String LOCK_ID = "lockId";

	/**
	 * Every lock ID the document's holders were granted under: the multikey index by which unlock and renew by ID
	 * find documents. A superset: a holder that expired without release may leave its ID until the next exclusive
	 * grant, so the members themselves are always read from the holder fields.
	 */
	static final String IDS = "ids";

	/** Owner token of an exclusive request waiting for the key; while its mark is live no shared grant is made. */
	static final String WAITER = "waiter";

	/** Server time of the waiter's last attempt; the mark lives {@link #WAITER_MS} from then. */
	static final String WAITER_AT = "waiterAt";

	static final String WAITER_MS = "waiterMs";

	/**
	 * The lease of a lock without expiry: a hundred years, far beyond the longest lease accepted (365 days), so every
	 * liveness and purge test keeps working unchanged and status can tell it apart.
	 */
	static final long NO_EXPIRY_MS = 36_525L * 24 * 3_600_000;

	/**
	 * Fencing token = base millis * 2^20 + seq. A seq past 2^20 carries into the millisecond part, which keeps the
	 * order; see docs/MONGO.md for why a document re-created after a purge still issues larger tokens.
	 */
	static final int SEQ_BITS = 20;

	private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

	private LockDocuments() {
	}

	/**
	 * The shared-holder field name for an owner token: URL-safe Base64, so no '.' or '$' reaches a field path.
	 */
	static String holderField(String token) {
		return "t" + ENCODER.encodeToString(token.getBytes(StandardCharsets.UTF_8));
	}

	static long leaseMs(LockRequest request) {
		return request.noExpiry() ? NO_EXPIRY_MS : request.lease().toMillis();
	}

	static long fencing(Document document) {
		Date base = document.getDate(BASE);
		long seq = ((Number) document.get(SEQ)).longValue();
		return (base.getTime() << SEQ_BITS) + seq;
	}

	/** {@code at + leaseMs (+ grace)}: the exclusive holder's expiry on the database clock. */
	static Document exclusiveExpiry(String prefix, long graceMs) {
		return new Document("$add", List.of("$" + prefix + AT, "$" + prefix + LEASE_MS, graceMs));
	}

	/** True while the exclusive holder's lease runs: {@code at + leaseMs > $$NOW}. */
	static Document exclusiveLive() {
		return new Document("$gt", List.of(exclusiveExpiry("", 0), "$$NOW"));
	}

	/** How many shared holders are still inside their lease (plus grace) by the database clock. */
	static Document liveSharedCount(long graceMs) {
		Document live = new Document("$gt", List.of(exclusiveExpiry("$h.v.", graceMs), "$$NOW"));
		Document holders = new Document("$filter", new Document("input", new Document("$objectToArray", "$" + SHARED))
			.append("as", "h")
			.append("cond", live));
		return new Document("$size", holders);
	}

	/** True while anyone, exclusive or shared, holds the key. */
	static Document held() {
		return new Document("$or", List.of(exclusiveLive(), new Document("$gt", List.of(liveSharedCount(0), 0))));
	}

	/**
	 * The grant filter for an existing document. Exclusive: no live holder at all, or the live exclusive holder is
	 * this very token. Shared: no live exclusive holder, and either a live slot of this very token, or fewer than
	 * maxConcurrent live shared ones with no live exclusive waiter's mark (writer priority) and no other live holder
	 * of the same lock ID. The same-token cases make a repeated acquire (a replay after its reply was lost) a grant
	 * again instead of "held by someone else"; it re-stamps the lease and takes no second slot.
	 */
	static Bson grantable(LockRequest request) {
		Document exclusiveExpired = new Document("$lte", List.of(exclusiveExpiry("", 0), "$$NOW"));
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
				new Document("$gt", List.of(exclusiveExpiry(mine + ".", 0), "$$NOW")));
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

	/** How many live shared holders other than {@code exceptField} hold the key under the lock ID. */
	private static Document liveSharedWithId(String lockId, String exceptField) {
		Document cond = new Document("$and", List.of(
				new Document("$eq", List.of("$$h.v." + LOCK_ID, new Document("$literal", lockId))),
				new Document("$ne", List.of("$$h.k", exceptField)),
				new Document("$gt", List.of(exclusiveExpiry("$h.v.", 0), "$$NOW"))));
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
	 * The grant update. {@code inserting} adds the fields a new document needs ({@code base}, and the exclusive
	 * fields of a shared-only document); $currentDate stamps the server's time.
	 */
	static Bson grant(LockRequest request, boolean inserting) {
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
				.append(holder + LEASE_MS, leaseMs(request));
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
				.append(LEASE_MS, leaseMs(request))
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
		if (!unset.isEmpty()) {
			update.append("$unset", unset);
		}
		return update.append("$set", set).append("$currentDate", currentDate);
	}

	/** The filter of a holder's own extend and release: its token, and a lease still running on the server. */
	static Bson ownedBy(String key, String token, boolean shared) {
		if (!shared) {
			return new Document(ID, key).append(TOKEN, token).append("$expr", exclusiveLive());
		}
		String holder = SHARED + "." + holderField(token);
		return new Document(ID, key).append(holder, new Document("$exists", true))
			.append("$expr", new Document("$gt", List.of(exclusiveExpiry(holder + ".", 0), "$$NOW")));
	}

	static Bson extend(String token, boolean shared, long leaseMs) {
		return extendAt(shared ? SHARED + "." + holderField(token) + "." : "", leaseMs);
	}

	/** The extend of the holder whose fields start with {@code prefix} ("" for the exclusive holder). */
	static Bson extendAt(String prefix, long leaseMs) {
		return new Document("$set", new Document(prefix + LEASE_MS, leaseMs)).append("$currentDate",
				new Document(prefix + AT, true).append(TOUCHED, true));
	}

	/**
	 * The filter matching a document whose last exclusive release was by this token: a release made again after its
	 * first attempt's outcome was lost reads it (and writes nothing) to tell "released" from "lost". Shared releases
	 * leave no such mark: their replay after a release that worked answers false.
	 */
	static Bson releasedBy(String key, String token) {
		return new Document(ID, key).append(RELEASED, token);
	}

	/**
	 * The filter of the clean-up after an acquire whose outcome is unknown: whatever this token holds, live or not.
	 * The token is fresh per acquisition, so nobody else's lock can match.
	 */
	static Bson heldByToken(String key, String token, boolean shared) {
		return shared ? new Document(ID, key).append(SHARED + "." + holderField(token), new Document("$exists", true))
				: new Document(ID, key).append(TOKEN, token);
	}

	/**
	 * Release marks the document free instead of deleting it, so its fencing sequence carries on; an exclusive
	 * release records the token in {@link #RELEASED}, and applying it again changes nothing that matters.
	 */
	static Bson release(String token, boolean shared, @Nullable String lockId) {
		return shared ? releaseShared(holderField(token), lockId) : releaseExclusive(token, true);
	}

	/**
	 * An exclusive release; the holder was the only one, so the document keeps no lock ID.
	 * @param byHolder whether the holder itself releases: only then is its token kept as {@link #RELEASED}, so a
	 * release by ID from elsewhere still reads as "no longer held" to the holder's handle
	 */
	static Bson releaseExclusive(String token, boolean byHolder) {
		Document set = new Document(LEASE_MS, 0L).append(IDS, List.of());
		if (byHolder) {
			set.append(RELEASED, token);
		}
		return new Document("$unset", new Document(TOKEN, "").append(LOCK_ID, ""))
			.append("$set", set)
			.append("$currentDate", new Document(AT, true).append(TOUCHED, true));
	}

	/**
	 * A shared holder's release, by its entry's field; its lock ID leaves the index (no other live holder of the key
	 * has it: one shared lock per ID and key).
	 */
	static Bson releaseShared(String field, @Nullable String lockId) {
		Document update = new Document("$unset", new Document(SHARED + "." + field, ""))
			.append("$currentDate", new Document(TOUCHED, true));
		return lockId != null ? update.append("$pull", new Document(IDS, lockId)) : update;
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

	static Bson clearWaiter() {
		return new Document("$unset", new Document(WAITER, "").append(WAITER_AT, "").append(WAITER_MS, ""));
	}

	/** Forced release: drops every holder but keeps the document, and so the fencing sequence. */
	static Bson clearAll() {
		return new Document("$unset", new Document(TOKEN, "").append(LOCK_ID, ""))
			.append("$set", new Document(LEASE_MS, 0L).append(SHARED, new Document()).append(IDS, List.of()))
			.append("$currentDate", new Document(AT, true).append(TOUCHED, true));
	}

	/**
	 * Documents whose every lease ended more than {@code graceMs} ago by the database clock. The range on
	 * {@code touched} (bounded by a server time) lets the index narrow the scan; the $expr decides. The last write
	 * must be at least one whole millisecond plus the grace old, even with a zero grace on a server that keeps
	 * sub-millisecond dates, so a document re-created after the purge gets a {@code base} in a later millisecond
	 * than every grant of the old one, and so larger fencing tokens.
	 */
	static Bson purgeable(Date serverNow, long graceMs) {
		Date bound = new Date(serverNow.getTime() - graceMs);
		Document expired = new Document("$and", List.of(
				new Document("$lte", List.of(new Document("$add", List.of("$" + TOUCHED, graceMs + 1)), "$$NOW")),
				new Document("$lte", List.of(exclusiveExpiry("", graceMs), "$$NOW")),
				new Document("$eq", List.of(liveSharedCount(graceMs), 0))));
		return new Document(TOUCHED, new Document("$lt", bound)).append("$expr", expired);
	}

}
