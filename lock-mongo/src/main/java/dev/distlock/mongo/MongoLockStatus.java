package dev.distlock.mongo;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;

import org.bson.Document;
import org.bson.conversions.Bson;
import org.jspecify.annotations.Nullable;

import com.mongodb.client.MongoCollection;

import dev.distlock.core.LockMode;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.StatusQuery;

import static dev.distlock.mongo.LockDocuments.ACQUIRED_AT;
import static dev.distlock.mongo.LockDocuments.AT;
import static dev.distlock.mongo.LockDocuments.HOST;
import static dev.distlock.mongo.LockDocuments.ID;
import static dev.distlock.mongo.LockDocuments.LEASE_MS;
import static dev.distlock.mongo.LockDocuments.MODE;
import static dev.distlock.mongo.LockDocuments.OWNER;
import static dev.distlock.mongo.LockDocuments.SHARED;

/**
 * The status query. The server filters by key prefix (on the {@code _id} index) and by held or expired (against its
 * own {@code $$NOW}), and returns its {@code $$NOW} with each document, so remaining leases are computed on the
 * database clock; owner and lease bounds are then applied to those figures. The owner filter matches any live holder,
 * not only the one a shared lock reports.
 */
final class MongoLockStatus {

	private static final String NOW = "distlockNow";

	private MongoLockStatus() {
	}

	static List<LockInfo> query(MongoCollection<Document> collection, StatusQuery query) {
		Document match = new Document();
		if (query.keyPrefix() != null && !query.keyPrefix().isEmpty()) {
			match.append(ID, new Document("$regex", "^" + escapeRegex(query.keyPrefix())));
		}
		String lockId = query.lockId();
		if (lockId != null) {
			// By lock ID: the index narrows the documents, and each member is then judged as its own holder.
			match.append(LockDocuments.IDS, lockId);
		}
		else {
			switch (query.state()) {
				case HELD -> match.append("$expr", LockDocuments.held());
				case EXPIRED -> match.append("$expr", new Document("$not", List.of(LockDocuments.held())));
				case ANY -> {
				}
			}
		}
		List<Bson> pipeline = List.of(new Document("$match", match),
				new Document("$addFields", new Document(NOW, "$$NOW")), new Document("$sort", new Document(ID, 1)));
		String owner = query.owner();
		StatusQuery everyOwner = query.withOwner(null);
		List<LockInfo> result = new ArrayList<>();
		for (Document document : collection.aggregate(pipeline)) {
			long nowMs = document.getDate(NOW).getTime();
			if (lockId != null) {
				for (Member member : members(document, lockId, nowMs)) {
					if (query.matches(member.info())) {
						result.add(member.info());
					}
				}
				continue;
			}
			LockInfo info = toInfo(document, nowMs);
			if (everyOwner.matches(info) && (owner == null || heldBy(document, info, nowMs, owner))) {
				result.add(info);
			}
		}
		return result;
	}

	/**
	 * One lock of a lock ID on a document: the exclusive holder ({@code field} null) or a shared holder's entry.
	 * @param holder the fields of the holder: the document itself, or the shared entry
	 * @param info the lock as this holder sees it at the server's {@code nowMs}
	 */
	record Member(Document document, @Nullable String field, Document holder, LockInfo info) {

		String key() {
			return info.key();
		}

		boolean live() {
			return info.held();
		}

	}

	/** The document's holders recorded under the lock ID, live or expired. */
	static List<Member> members(Document document, String lockId, long nowMs) {
		List<Member> members = new ArrayList<>();
		if (document.containsKey(LockDocuments.TOKEN) && lockId.equals(document.getString(LockDocuments.LOCK_ID))) {
			members.add(new Member(document, null, document,
					holderInfo(document, document, LockMode.EXCLUSIVE, nowMs)));
		}
		for (var entry : document.get(SHARED, Document.class).entrySet()) {
			Document holder = (Document) entry.getValue();
			if (lockId.equals(holder.getString(LockDocuments.LOCK_ID))) {
				members.add(new Member(document, entry.getKey(), holder,
						holderInfo(document, holder, LockMode.SHARED, nowMs)));
			}
		}
		return members;
	}

	/** One holder's lock: its own details, lease and lock ID, the key's latest fencing token. */
	static LockInfo holderInfo(Document document, Document holder, LockMode mode, long nowMs) {
		long leaseEnd = leaseEnd(holder);
		boolean live = leaseEnd > nowMs;
		return new LockInfo(document.getString(ID), mode, holder.getString(OWNER), holder.getString(HOST),
				LockDocuments.fencing(document), instant(holder.getDate(ACQUIRED_AT)), remaining(holder, nowMs),
				live ? 1 : 0, holder.getString(LockDocuments.LOCK_ID), renewedAt(holder), nominalLease(holder));
	}

	/**
	 * Whether {@code owner} is the owner the info reports or any live shared holder: a shared lock reports only its
	 * earliest holder, but each of them holds it.
	 */
	private static boolean heldBy(Document document, LockInfo info, long nowMs, String owner) {
		if (owner.equals(info.owner())) {
			return true;
		}
		for (Object value : document.get(SHARED, Document.class).values()) {
			Document holder = (Document) value;
			if (leaseEnd(holder) > nowMs && owner.equals(holder.getString(OWNER))) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The lock as the database clock ({@code nowMs}) sees it: exclusive holder, else live shared holders, else the
	 * expired remains.
	 */
	static LockInfo toInfo(Document document, long nowMs) {
		String key = document.getString(ID);
		long fencing = LockDocuments.fencing(document);
		long exclusiveLeaseEnd = leaseEnd(document);
		if (exclusiveLeaseEnd > nowMs) {
			return holderInfo(document, document, LockMode.EXCLUSIVE, nowMs);
		}
		Document first = null;
		long latest = exclusiveLeaseEnd;
		boolean forever = false;
		int live = 0;
		for (Object value : document.get(SHARED, Document.class).values()) { // always present, see LockDocuments
			Document holder = (Document) value;
			long holderLeaseEnd = leaseEnd(holder);
			latest = Math.max(latest, holderLeaseEnd);
			if (holderLeaseEnd > nowMs) {
				live++;
				forever |= nominalLease(holder) == null;
				if (first == null || holder.getDate(ACQUIRED_AT).before(first.getDate(ACQUIRED_AT))) {
					first = holder;
				}
			}
		}
		if (first != null) {
			return new LockInfo(key, LockMode.SHARED, first.getString(OWNER), first.getString(HOST), fencing,
					instant(first.getDate(ACQUIRED_AT)), forever ? LockInfo.NO_EXPIRY : Duration.ofMillis(latest - nowMs),
					live, first.getString(LockDocuments.LOCK_ID), renewedAt(first), nominalLease(first));
		}
		LockMode mode = LockMode.valueOf(document.getString(MODE));
		return new LockInfo(key, mode, document.getString(OWNER), document.getString(HOST), fencing,
				instant(document.getDate(ACQUIRED_AT)), Duration.ofMillis(latest - nowMs), 0,
				document.getString(LockDocuments.LOCK_ID), renewedAt(document), nominalLease(document));
	}

	private static long leaseEnd(Document holder) {
		return holder.getDate(AT).getTime() + leaseMs(holder);
	}

	private static long leaseMs(Document holder) {
		return ((Number) holder.get(LEASE_MS)).longValue();
	}

	/** The lease set at the grant or the last renewal; null for a lock without expiry. */
	private static @Nullable Duration nominalLease(Document holder) {
		long leaseMs = leaseMs(holder);
		return leaseMs == LockDocuments.NO_EXPIRY_MS ? null : Duration.ofMillis(leaseMs);
	}

	private static Duration remaining(Document holder, long nowMs) {
		long leaseEnd = leaseEnd(holder);
		return nominalLease(holder) == null && leaseEnd > nowMs ? LockInfo.NO_EXPIRY
				: Duration.ofMillis(leaseEnd - nowMs);
	}

	/** The last extend or renewal: {@code at} when it is later than the grant. */
	private static @Nullable Instant renewedAt(Document holder) {
		Date at = holder.getDate(AT);
		Date acquired = holder.getDate(ACQUIRED_AT);
		return at != null && acquired != null && at.after(acquired) ? at.toInstant() : null;
	}

	private static @Nullable Instant instant(@Nullable Date date) {
		return date != null ? date.toInstant() : null;
	}

	/** Escapes regex metacharacters one by one, so the anchored prefix can still use the _id index. */
	private static String escapeRegex(String literal) {
		StringBuilder escaped = new StringBuilder(literal.length() + 8);
		for (char c : literal.toCharArray()) {
			if ("\\^$.|?*+()[]{}-/".indexOf(c) >= 0) {
				escaped.append('\\');
			}
			escaped.append(c);
		}
		return escaped.toString();
	}

}
