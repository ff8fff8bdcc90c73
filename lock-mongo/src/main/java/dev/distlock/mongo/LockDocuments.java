package dev.distlock.mongo;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Date;
import java.util.List;

import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * The lock document: its field names, and what its state means on the database clock (who is live, which documents
 * the purger may remove, the fencing token it issues). One document per key; every time in it is written by the
 * database ({@code $currentDate}, stamped by the primary that applies the write) and every expiry test compares with
 * {@code $$NOW} (the clock of the node that runs the statement: the primary on a replica set, the mongos router on a
 * sharded cluster; see docs/MONGO.md), so no application clock decides who holds a lock. The statements that grant a
 * lock are in {@link GrantStatements}, those on a granted one in {@link LeaseStatements}.
 */
final class LockDocuments {

	static final String ID = "_id";

	/** Owner token of the exclusive holder; absent when free or shared. */
	static final String TOKEN = "token";

	static final String OWNER = "owner";

	static final String HOST = "host";

	static final String MODE = "mode";

	static final String ACQUIRED_AT = "acquiredAt";

	/** Server time of the exclusive holder's grant or last extend; with {@link #LEASE_MS} it gives the lease end. */
	static final String AT = "at";

	static final String LEASE_MS = "leaseMs";

	/** Shared holders: encoded owner token to {owner, host, acquiredAt, at, leaseMs}. Always present. */
	static final String SHARED = "shared";

	/**
	 * The owner token and fencing token of the last exclusive release by its holder, so the provider's replay of a
	 * release whose reply was lost answers "released" rather than "lost", even after the lock was granted again; the
	 * fencing token keeps a later grant to the same owner token from reading as released. The next release replaces it.
	 */
	static final String RELEASED = "released";

	/**
	 * The shared holders released by their own handle since the key's last grant, by entry field: a shared release
	 * made again after its reply was lost answers "released" per owner token. Every grant clears it, so it holds at
	 * most the releases between two grants.
	 */
	static final String RELEASED_SHARED = "releasedShared";

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

	/** The fencing token of a grant, from the {@code base} and {@code seq} it returned: see {@link #SEQ_BITS}. */
	static long fencing(Document document) {
		Date base = document.getDate(BASE);
		long seq = ((Number) document.get(SEQ)).longValue();
		return (base.getTime() << SEQ_BITS) + seq;
	}

	/** {@code at + leaseMs (+ grace)}: the exclusive holder's lease end on the database clock. */
	static Document exclusiveLeaseEnd(String prefix, long graceMs) {
		return new Document("$add", List.of("$" + prefix + AT, "$" + prefix + LEASE_MS, graceMs));
	}

	/** True while the exclusive holder's lease runs: {@code at + leaseMs > $$NOW}. */
	static Document exclusiveLive() {
		return new Document("$gt", List.of(exclusiveLeaseEnd("", 0), "$$NOW"));
	}

	/** How many shared holders are still inside their lease (plus grace) by the database clock. */
	static Document liveSharedCount(long graceMs) {
		Document live = new Document("$gt", List.of(exclusiveLeaseEnd("$h.v.", graceMs), "$$NOW"));
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
				new Document("$lte", List.of(exclusiveLeaseEnd("", graceMs), "$$NOW")),
				new Document("$eq", List.of(liveSharedCount(graceMs), 0))));
		return new Document(TOUCHED, new Document("$lt", bound)).append("$expr", expired);
	}

}