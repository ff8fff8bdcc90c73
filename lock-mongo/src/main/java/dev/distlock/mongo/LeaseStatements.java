package dev.distlock.mongo;

import java.util.List;

import org.bson.Document;
import org.bson.conversions.Bson;
import org.jspecify.annotations.Nullable;

import static dev.distlock.mongo.LockDocuments.AT;
import static dev.distlock.mongo.LockDocuments.ID;
import static dev.distlock.mongo.LockDocuments.IDS;
import static dev.distlock.mongo.LockDocuments.LEASE_MS;
import static dev.distlock.mongo.LockDocuments.LOCK_ID;
import static dev.distlock.mongo.LockDocuments.RELEASED;
import static dev.distlock.mongo.LockDocuments.RELEASED_SHARED;
import static dev.distlock.mongo.LockDocuments.SHARED;
import static dev.distlock.mongo.LockDocuments.TOKEN;
import static dev.distlock.mongo.LockDocuments.TOUCHED;
import static dev.distlock.mongo.LockDocuments.exclusiveLeaseEnd;
import static dev.distlock.mongo.LockDocuments.exclusiveLive;
import static dev.distlock.mongo.LockDocuments.holderField;

/**
 * The statements on a lock already granted: the holder's own extend and release (filtered on its owner token and a
 * lease still running by the database clock, so a stale holder touches nothing), the check that tells a replayed
 * release "released" from "lost", the clean-up after an acquire whose outcome is unknown, the updates of release and
 * renewal by lock ID, and the forced release. Releases keep the document, so its fencing sequence carries on.
 */
final class LeaseStatements {

	private LeaseStatements() {
	}

	/** The filter of a holder's own extend and release: its token, and a lease still running on the server. */
	static Bson ownedBy(String key, String token, boolean shared) {
		if (!shared) {
			return new Document(ID, key).append(TOKEN, token).append("$expr", exclusiveLive());
		}
		String holder = SHARED + "." + holderField(token);
		return new Document(ID, key).append(holder, new Document("$exists", true))
			.append("$expr", new Document("$gt", List.of(exclusiveLeaseEnd(holder + ".", 0), "$$NOW")));
	}

	/** The holder's own extend: {@code leaseMs} from the server's now, for its token's exclusive or shared entry. */
	static Bson extend(String token, boolean shared, long leaseMs) {
		return extendAt(shared ? SHARED + "." + holderField(token) + "." : "", leaseMs);
	}

	/**
	 * Makes a grant without expiry lasting: its provisional lease becomes {@link LockDocuments#NO_EXPIRY_MS}, counted
	 * from the grant's own {@code at}, so status still shows it as never renewed.
	 */
	static Bson makeLasting(String token, boolean shared) {
		String prefix = shared ? SHARED + "." + holderField(token) + "." : "";
		return new Document("$set", new Document(prefix + LEASE_MS, LockDocuments.NO_EXPIRY_MS))
			.append("$currentDate", new Document(TOUCHED, true));
	}

	/** The extend of the holder whose fields start with {@code prefix} ("" for the exclusive holder). */
	static Bson extendAt(String prefix, long leaseMs) {
		return new Document("$set", new Document(prefix + LEASE_MS, leaseMs)).append("$currentDate",
				new Document(prefix + AT, true).append(TOUCHED, true));
	}

	/**
	 * The filter matching a document whose last exclusive release was by this token: a release made again after its
	 * first attempt's outcome was lost reads it (and writes nothing) to tell "released" from "lost". A shared release
	 * leaves its token's mark in {@link LockDocuments#RELEASED_SHARED} until the key's next grant.
	 */
	static Bson releasedBy(String key, String token, boolean shared, long fencingToken) {
		return shared ? new Document(ID, key).append(RELEASED_SHARED + "." + holderField(token),
				new Document("$exists", true)) : new Document(ID, key).append(RELEASED, releasedMark(token, fencingToken));
	}

	/**
	 * The mark of a holder's exclusive release: its token and the fencing token of the grant it released, so a later
	 * grant to the same token (an acquire replayed after its release) is not taken for the one released.
	 */
	static String releasedMark(String token, long fencingToken) {
		return token + " " + fencingToken;
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
	 * release records the token in {@link LockDocuments#RELEASED}, and applying it again changes nothing that matters.
	 */
	static Bson release(String token, boolean shared, @Nullable String lockId, String mark) {
		return shared ? releaseShared(holderField(token), lockId, true) : releaseExclusive(mark);
	}

	/**
	 * An exclusive release; the holder was the only one, so the document keeps no lock ID.
	 * @param mark what {@link LockDocuments#RELEASED} records, or null: only the holder's own release marks it, so a
	 * release by ID from elsewhere still reads as "no longer held" to the holder's handle
	 */
	static Bson releaseExclusive(@Nullable String mark) {
		Document set = new Document(LEASE_MS, 0L).append(IDS, List.of());
		if (mark != null) {
			set.append(RELEASED, mark);
		}
		return new Document("$unset", new Document(TOKEN, "").append(LOCK_ID, ""))
			.append("$set", set)
			.append("$currentDate", new Document(AT, true).append(TOUCHED, true));
	}

	/**
	 * A shared holder's release, by its entry's field; its lock ID leaves the index (no other live holder of the key
	 * has it: one shared lock per ID and key).
	 * @param byHolder whether the holder itself releases: only then is its release marked in
	 * {@link LockDocuments#RELEASED_SHARED}, as {@link #releaseExclusive} does
	 */
	static Bson releaseShared(String field, @Nullable String lockId, boolean byHolder) {
		Document update = new Document("$unset", new Document(SHARED + "." + field, ""))
			.append("$currentDate", new Document(TOUCHED, true));
		if (byHolder) {
			update.append("$set", new Document(RELEASED_SHARED + "." + field, true));
		}
		return lockId != null ? update.append("$pull", new Document(IDS, lockId)) : update;
	}

	/** Forced release: drops every holder but keeps the document, and so the fencing sequence. */
	static Bson clearAll() {
		return new Document("$unset", new Document(TOKEN, "").append(LOCK_ID, ""))
			.append("$set", new Document(LEASE_MS, 0L).append(SHARED, new Document()).append(IDS, List.of()))
			.append("$currentDate", new Document(AT, true).append(TOUCHED, true));
	}

}
