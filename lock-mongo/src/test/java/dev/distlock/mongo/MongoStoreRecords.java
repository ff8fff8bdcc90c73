package dev.distlock.mongo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.regex.Pattern;

import org.bson.Document;
import org.springframework.data.mongodb.core.MongoTemplate;

import com.mongodb.client.model.Filters;

import dev.distlock.test.kit.StoreRecords;

/**
 * The kits' leftover probe on MongoDB: every lock document whose {@code _id} contains the marker, read on a client
 * that bypasses the provider. A document is immortal while a holder in it (the exclusive {@code token}, or an entry
 * of {@code shared}) has the lease of a lock without expiry; any other document goes once its leases have passed and
 * the purger's grace after them.
 */
final class MongoStoreRecords implements StoreRecords {

	private final MongoTemplate mongo;

	private final String collection;

	MongoStoreRecords(MongoTemplate mongo, String collection) {
		this.mongo = mongo;
		this.collection = collection;
	}

	@Override
	public List<StoreRecord> list(String marker) {
		List<StoreRecord> records = new ArrayList<>();
		long now = System.currentTimeMillis();
		for (Document document : mongo.getDb()
			.getCollection(collection)
			.find(Filters.regex(LockDocuments.ID, Pattern.quote(marker)))) {
			boolean immortal = false;
			long expiry = 0;
			if (document.get(LockDocuments.TOKEN) != null) {
				immortal = isNoExpiry(document);
				expiry = Math.max(expiry, expiry(document));
			}
			Object shared = document.get(LockDocuments.SHARED);
			if (shared instanceof Document holders) {
				for (Object holder : holders.values()) {
					if (holder instanceof Document entry) {
						immortal |= isNoExpiry(entry);
						expiry = Math.max(expiry, expiry(entry));
					}
				}
			}
			records.add(new StoreRecord(String.valueOf(document.get(LockDocuments.ID)),
					immortal ? null : Duration.ofMillis(Math.max(0, expiry - now)),
					document.toJson()));
		}
		return records;
	}

	private static boolean isNoExpiry(Document holder) {
		Object leaseMs = holder.get(LockDocuments.LEASE_MS);
		return leaseMs instanceof Number lease && lease.longValue() >= LockDocuments.NO_EXPIRY_MS;
	}

	private static long expiry(Document holder) {
		Object at = holder.get(LockDocuments.AT);
		Object leaseMs = holder.get(LockDocuments.LEASE_MS);
		if (at instanceof Date date && leaseMs instanceof Number lease) {
			return date.getTime() + Math.min(lease.longValue(), Long.MAX_VALUE - date.getTime());
		}
		return 0;
	}

}
