package dev.distlock.mongo;

import java.time.Duration;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.jspecify.annotations.Nullable;
import org.springframework.data.mongodb.core.MongoTemplate;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.ReturnDocument;

import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.LockStatusSource;
import dev.distlock.core.spi.StatusQuery;
import dev.distlock.core.spi.StoreHealth;

import static dev.distlock.mongo.LockDocuments.ID;
import static dev.distlock.mongo.LockDocuments.SHARED;

/**
 * Locks in MongoDB, one document per key, with expiry on the server's clock, owner-checked release and extend, and
 * fencing tokens that keep increasing after the purger removes a document. {@link #start()} creates the index and
 * schedules the purger as the settings say; {@link #close()} stops it.
 */
public final class MongoLockProvider implements LockProvider, LockStatusSource, StoreHealth, AutoCloseable {

	private static final Log logger = LogFactory.getLog(MongoLockProvider.class);

	/** The name of the purger's index on {@code touched}. */
	public static final String TOUCHED_INDEX = "distlock_touched";

	private final MongoLockSettings settings;

	private final MongoDatabase database;

	private final MongoCollection<Document> collection;

	private @Nullable ScheduledExecutorService purger;

	private boolean started;

	/**
	 * A provider on the template's database; nothing is sent to the server until the first call. Every store call
	 * goes to the driver's collection from {@link MongoTemplate#getDb()}, with the write and read concern set once:
	 * the statements are plain BSON that needs no entity mapping, and the duplicate-key code is read from the
	 * driver's own exception, so {@link MongoErrors}, not the template's exception translation, maps errors.
	 */
	public MongoLockProvider(MongoTemplate mongoTemplate, MongoLockSettings settings) {
		this.settings = settings;
		this.database = mongoTemplate.getDb();
		this.collection = this.database
			.getCollection(settings.collection())
			.withWriteConcern(settings.writeConcern())
			.withReadConcern(settings.readConcern());
	}

	/**
	 * Creates the index if the settings ask for it and starts the purger thread if a purge interval is set.
	 * Calling it again does nothing.
	 */
	public synchronized void start() {
		if (started) {
			return;
		}
		started = true;
		if (settings.createIndexes()) {
			createIndexes();
		}
		Duration interval = settings.purgeInterval();
		if (interval != null) {
			purger = Executors.newSingleThreadScheduledExecutor(runnable -> {
				Thread thread = new Thread(runnable, "distlock-mongo-purger");
				thread.setDaemon(true);
				return thread;
			});
			purger.scheduleWithFixedDelay(this::purgeQuietly, interval.toMillis(), interval.toMillis(),
					TimeUnit.MILLISECONDS);
		}
	}

	@Override
	public Optional<Lease> tryAcquire(LockRequest request) {
		// Three cases: the document exists and is grantable (one round trip), it is absent (insert, a second round
		// trip), or it exists and is held (the insert fails with a duplicate key: refused).
		Document granted = MongoErrors.call(request.key(), "acquire", () -> grantExisting(request));
		if (granted == null) {
			granted = MongoErrors.call(request.key(), "acquire", () -> insert(request));
		}
		if (granted == null) {
			return Optional.empty();
		}
		if (request.shared()) {
			pruneExpiredHolders(request, granted);
		}
		return Optional.of(new MongoLease(collection, request.key(), request.token(), request.shared(),
				LockDocuments.fencing(granted)));
	}

	private @Nullable Document grantExisting(LockRequest request) {
		return collection.findOneAndUpdate(LockDocuments.grantable(request), LockDocuments.grant(request, false),
				grantOptions(request, false));
	}

	private @Nullable Document insert(LockRequest request) {
		try {
			return collection.findOneAndUpdate(LockDocuments.absent(request.key()), LockDocuments.grant(request, true),
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
	private void pruneExpiredHolders(LockRequest request, Document granted) {
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
		if (unset.isEmpty()) {
			return;
		}
		try {
			collection.updateOne(filter, new Document("$unset", unset));
		}
		catch (RuntimeException ex) {
			logger.debug("Could not prune " + unset.size() + " expired shared holders of '" + request.key() + "'", ex);
		}
	}

	@Override
	public boolean isLocked(String key) {
		return MongoErrors.call(key, "check", () -> collection
			.countDocuments(new Document(ID, key).append("$expr", LockDocuments.held())) > 0);
	}

	@Override
	public List<LockInfo> status(StatusQuery query) {
		return MongoErrors.call(query.keyPrefix(), "list locks", () -> MongoLockStatus.query(collection, query));
	}

	@Override
	public boolean forceRelease(String key) {
		logger.warn("Forcing the release of lock '" + key + "'");
		return MongoErrors.call(key, "force release", () -> collection
			.updateOne(new Document(ID, key).append("$expr", LockDocuments.held()), LockDocuments.clearAll())
			.getMatchedCount() == 1);
	}

	@Override
	public String name() {
		return "mongo";
	}

	/**
	 * Runs the ping command once, for the health contributor.
	 * @return how long the round trip took
	 * @throws dev.distlock.core.LockStoreException if the server cannot be reached
	 */
	@Override
	public Duration ping() {
		long start = System.nanoTime();
		MongoErrors.call(null, "ping", () -> database.runCommand(new Document("ping", 1)));
		return Duration.ofNanos(System.nanoTime() - start);
	}

	/**
	 * Creates the index on {@code touched} the purger ranges over; status queries use the {@code _id} index.
	 * Idempotent.
	 */
	public void createIndexes() {
		MongoErrors.call(null, "create indexes in '" + settings.collection() + "'", () -> collection
			.createIndex(new Document(LockDocuments.TOUCHED, 1), new IndexOptions().name(TOUCHED_INDEX)));
	}

	/**
	 * Removes documents whose every lease ended more than the grace period ago, by the server's clock.
	 * @return how many were removed
	 */
	public long purge() {
		long graceMs = settings.purgeGrace().toMillis();
		return MongoErrors.call(null, "purge '" + settings.collection() + "'", () -> {
			Date serverNow = serverNow();
			if (serverNow == null) {
				return 0L; // an empty collection
			}
			long removed = collection.deleteMany(LockDocuments.purgeable(serverNow, graceMs)).getDeletedCount();
			logger.debug("Purged " + removed + " expired lock documents from '" + settings.collection() + "'");
			return removed;
		});
	}

	/**
	 * The server's {@code $$NOW}, read through the collection itself (no version-specific command), or null when the
	 * collection is empty.
	 */
	private @Nullable Date serverNow() {
		Document now = collection.aggregate(List.of(new Document("$limit", 1),
				new Document("$project", new Document(ID, 0).append("now", "$$NOW")))).first();
		return now != null ? now.getDate("now") : null;
	}

	private void purgeQuietly() {
		try {
			purge();
		}
		catch (RuntimeException ex) {
			logger.debug("Lock purge failed; the next run retries", ex);
		}
	}

	/**
	 * Stops the purger if {@link #start()} started one; the template and its client stay open.
	 */
	@Override
	public synchronized void close() {
		if (purger != null) {
			purger.shutdownNow();
			purger = null;
		}
	}

	@Override
	public String toString() {
		return "MongoLockProvider[collection='" + settings.collection() + "']";
	}

}
