package dev.distlock.mongo;

import java.time.Duration;
import java.util.Date;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.bson.Document;
import org.jspecify.annotations.Nullable;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.IndexModel;
import com.mongodb.client.model.IndexOptions;

/**
 * The lock collection's upkeep: its indexes, and the purger that removes documents whose every lease ended more than
 * the grace ago by the database clock (fencing across a purge relies on that clock not stepping back by more than the
 * grace, see docs/MONGO.md).
 */
final class MongoMaintenance {

	private static final Log logger = LogFactory.getLog(MongoMaintenance.class);

	private static final long MAINTENANCE_MS = TimeLimits.MAINTENANCE.toMillis();

	private final MongoCollection<Document> collection;

	private final String collectionName;

	private final Duration purgeGrace;

	MongoMaintenance(MongoCollection<Document> collection, String collectionName, Duration purgeGrace) {
		this.collection = collection;
		this.collectionName = collectionName;
		this.purgeGrace = purgeGrace;
	}

	void createIndexes() {
		MongoErrors.call(null, "create indexes in '" + collectionName + "'", MAINTENANCE_MS,
				() -> TimeLimits.bounded(collection, MAINTENANCE_MS).createIndexes(List.of(
						new IndexModel(new Document(LockDocuments.TOUCHED, 1),
								new IndexOptions().name(MongoLockProvider.TOUCHED_INDEX)),
						new IndexModel(new Document(LockDocuments.IDS, 1),
								new IndexOptions().name(MongoLockProvider.LOCK_ID_INDEX)))));
	}

	long purge() {
		long graceMs = purgeGrace.toMillis();
		return MongoErrors.call(null, "purge '" + collectionName + "'", MAINTENANCE_MS, () -> {
			Date serverNow = serverNow();
			if (serverNow == null) {
				return 0L; // an empty collection
			}
			long removed = TimeLimits.bounded(collection, MAINTENANCE_MS)
				.deleteMany(LockDocuments.purgeable(serverNow, graceMs))
				.getDeletedCount();
			logger.debug("Purged " + removed + " expired lock documents from '" + collectionName + "'");
			return removed;
		});
	}

	/** One scheduled purge: a failure is logged, and the next run tries again. */
	void purgeLogged() {
		try {
			purge();
		}
		catch (RuntimeException ex) {
			logger.debug("Lock purge failed; the next run retries", ex);
		}
	}

	/**
	 * The server's {@code $$NOW}, read through the collection itself (no version-specific command), or null when the
	 * collection is empty.
	 */
	private @Nullable Date serverNow() {
		Document now = TimeLimits.bounded(collection, MAINTENANCE_MS).aggregate(List.of(new Document("$limit", 1),
				new Document("$project", new Document(LockDocuments.ID, 0).append("now", "$$NOW")))).first();
		return now != null ? now.getDate("now") : null;
	}

}
