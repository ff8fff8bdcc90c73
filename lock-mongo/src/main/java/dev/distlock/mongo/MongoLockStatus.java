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
 * database clock; owner and TTL bounds are then applied to those figures. The owner filter matches any live holder,
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
		switch (query.state()) {
			case HELD -> match.append("$expr", LockDocuments.held());
			case EXPIRED -> match.append("$expr", new Document("$not", List.of(LockDocuments.held())));
			case ANY -> {
			}
		}
		List<Bson> pipeline = List.of(new Document("$match", match),
				new Document("$addFields", new Document(NOW, "$$NOW")), new Document("$sort", new Document(ID, 1)));
		String owner = query.owner();
		StatusQuery everyOwner = query.withOwner(null);
		List<LockInfo> result = new ArrayList<>();
		for (Document document : collection.aggregate(pipeline)) {
			long nowMs = document.getDate(NOW).getTime();
			LockInfo info = toInfo(document, nowMs);
			if (everyOwner.matches(info) && (owner == null || heldBy(document, info, nowMs, owner))) {
				result.add(info);
			}
		}
		return result;
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
			if (expiry(holder) > nowMs && owner.equals(holder.getString(OWNER))) {
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
		long exclusiveExpiry = expiry(document);
		if (exclusiveExpiry > nowMs) {
			return new LockInfo(key, LockMode.EXCLUSIVE, document.getString(OWNER), document.getString(HOST), fencing,
					instant(document.getDate(ACQUIRED_AT)), Duration.ofMillis(exclusiveExpiry - nowMs), 1);
		}
		Document first = null;
		long latest = exclusiveExpiry;
		int live = 0;
		for (Object value : document.get(SHARED, Document.class).values()) { // always present, see LockDocuments
			Document holder = (Document) value;
			long holderExpiry = expiry(holder);
			latest = Math.max(latest, holderExpiry);
			if (holderExpiry > nowMs) {
				live++;
				if (first == null || holder.getDate(ACQUIRED_AT).before(first.getDate(ACQUIRED_AT))) {
					first = holder;
				}
			}
		}
		if (first != null) {
			return new LockInfo(key, LockMode.SHARED, first.getString(OWNER), first.getString(HOST), fencing,
					instant(first.getDate(ACQUIRED_AT)), Duration.ofMillis(latest - nowMs), live);
		}
		LockMode mode = LockMode.valueOf(document.getString(MODE));
		return new LockInfo(key, mode, document.getString(OWNER), document.getString(HOST), fencing,
				instant(document.getDate(ACQUIRED_AT)), Duration.ofMillis(latest - nowMs), 0);
	}

	private static long expiry(Document holder) {
		return holder.getDate(AT).getTime() + ((Number) holder.get(LEASE_MS)).longValue();
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
