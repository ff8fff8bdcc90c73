package dev.distlock.mongo;

import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.bson.Document;
import org.springframework.data.mongodb.core.MongoTemplate;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;

import dev.distlock.core.LockIds;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.spi.Acquisition;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockIdSupport;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockRenewal;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.OperatorSupport;
import dev.distlock.core.spi.PeriodicPurge;
import dev.distlock.core.spi.StatusQuery;
import dev.distlock.core.spi.StoreClock;
import dev.distlock.core.spi.WaitingLockProvider;

import static dev.distlock.mongo.LockDocuments.ID;

/**
 * Locks in MongoDB, one document per key, with leases on the database clock, owner-checked release and extend, and
 * fencing tokens that keep increasing after the purger removes a document. Every store call is bounded (see
 * {@link TimeLimits} and docs/MONGO.md). Locks may carry a lock ID (unlock and renew by ID, see {@link MongoLockIds})
 * and may have no expiry; a waiting exclusive request keeps new shared holders out ({@link MongoAcquisition}).
 * {@link #start()} creates the indexes, schedules the purger as the settings say and warns when it finds a mongos
 * router; {@link #close()} stops the purger.
 */
public final class MongoLockProvider implements WaitingLockProvider, OperatorSupport, StoreClock, LockIdSupport,
		AutoCloseable {

	private static final Log logger = LogFactory.getLog(MongoLockProvider.class);

	/** The name of the purger's index on {@code touched}. */
	public static final String TOUCHED_INDEX = "distlock_touched";

	/** The name of the lock-ID index on {@code ids}. */
	public static final String LOCK_ID_INDEX = "distlock_lock_ids";

	private static final long ADMIN_MS = TimeLimits.ADMIN.toMillis();

	private final MongoLockSettings settings;

	private final MongoDatabase database;

	private final MongoCollection<Document> collection;

	private final MongoAcquirer acquirer;

	private final MongoMaintenance maintenance;

	private final PeriodicPurge purge;

	private volatile boolean routedThroughMongos;

	/**
	 * A provider on the template's database; nothing is sent to the server until the first call. Every store call
	 * goes to the driver's collection from {@link MongoTemplate#getDb()}, with the write and read concern set once:
	 * the statements are plain BSON that needs no entity mapping, and the duplicate-key code is read from the
	 * driver's own exception, so {@link MongoErrors}, not the template's exception translation, maps errors.
	 */
	public MongoLockProvider(MongoTemplate mongoTemplate, MongoLockSettings settings) {
		this(mongoTemplate, settings, settings.purgeGrace());
	}

	/**
	 * A provider whose purger uses {@code purgeGrace} instead of the settings' grace, which must be at least
	 * {@link MongoLockSettings#MIN_PURGE_GRACE}: for tests of the purger that cannot wait a minute.
	 */
	MongoLockProvider(MongoTemplate mongoTemplate, MongoLockSettings settings, Duration purgeGrace) {
		this.settings = settings;
		this.database = mongoTemplate.getDb();
		this.collection = this.database
			.getCollection(settings.collection())
			.withWriteConcern(settings.writeConcern())
			.withReadConcern(settings.readConcern());
		this.acquirer = new MongoAcquirer(collection, settings.callTimeout());
		this.maintenance = new MongoMaintenance(collection, settings.collection(), purgeGrace);
		this.purge = new PeriodicPurge("distlock-mongo-purger", settings.purgeInterval(), maintenance::purgeLogged);
	}

	/**
	 * Creates the index if the settings ask for it and schedules the purger if a purge interval is set.
	 * Calling it again does nothing.
	 */
	public synchronized void start() {
		if (!purge.start()) {
			return;
		}
		routedThroughMongos = MongoTopology.warnIfMongos(database, ADMIN_MS);
		if (settings.createIndexes()) {
			createIndexes();
		}
	}

	/**
	 * Runs the purger on this scheduler, which its owner shuts down, instead of a thread of its own; call it before
	 * {@link #start()} (see {@link PeriodicPurge#scheduler}).
	 * @return this provider
	 */
	public MongoLockProvider purgeScheduler(ScheduledExecutorService scheduler) {
		purge.scheduler(scheduler);
		return this;
	}

	/**
	 * {@inheritDoc} The whole attempt is bounded by its lease (between 1 and 30 s, see {@link TimeLimits}). If a
	 * statement fails in a way that may have left it applied (a timeout, a socket error, an interrupt), the grant it
	 * may have made is released by owner token before the error is thrown, so no lock is left for a lease nobody
	 * holds. A token that already holds the key is granted again (a repeated acquire): the lease is set anew and the
	 * fencing token is the next one. The attempt itself is {@link MongoAcquirer}'s.
	 * @throws dev.distlock.core.InvalidLockOptionException naming {@code timeout} if the lease is not positive or
	 * longer than 365 days; nothing is sent then
	 */
	@Override
	public Optional<Lease> tryAcquire(LockRequest request) {
		return acquirer.tryAcquire(request);
	}

	/**
	 * Starts a waiting acquisition: it polls, and an exclusive one keeps new shared holders out while it waits.
	 */
	@Override
	public Acquisition begin(LockRequest request) {
		return new MongoAcquisition(acquirer, collection, request);
	}

	/**
	 * {@inheritDoc} One read through the {@code ids} index, then one update per lock of the ID.
	 */
	@Override
	public List<LockInfo> unlock(String lockId) {
		LockIds.validate(lockId);
		return MongoErrors.call(null, "unlock by lock ID", ADMIN_MS, () -> MongoLockIds.unlock(admin(), lockId));
	}

	/**
	 * {@inheritDoc} One read through the {@code ids} index, then one update per held lock of the ID.
	 */
	@Override
	public LockRenewal renew(String lockId, Duration lease) {
		LockIds.validate(lockId);
		TimeLimits.leaseMs("ttl", lease);
		return MongoErrors.call(null, "renew by lock ID", ADMIN_MS, () -> MongoLockIds.renew(admin(), lockId, lease));
	}

	@Override
	public boolean isLocked(String key) {
		return MongoErrors.call(key, "check", ADMIN_MS, () -> admin()
			.countDocuments(new Document(ID, key).append("$expr", LockDocuments.held())) > 0);
	}

	@Override
	public List<LockInfo> status(StatusQuery query) {
		return MongoErrors.call(query.keyPrefix(), "list locks", ADMIN_MS,
				() -> MongoLockStatus.query(admin(), query));
	}

	@Override
	public boolean forceRelease(String key) {
		logger.warn("Forcing the release of lock '" + key + "'");
		return MongoErrors.call(key, "force release", ADMIN_MS, () -> admin()
			.updateOne(new Document(ID, key).append("$expr", LockDocuments.held()), LeaseStatements.clearAll())
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
		MongoErrors.call(null, "ping", ADMIN_MS,
				() -> database.withTimeout(ADMIN_MS, TimeUnit.MILLISECONDS).runCommand(new Document("ping", 1)));
		return Duration.ofNanos(System.nanoTime() - start);
	}

	/**
	 * Asks the primary for its clock: the {@code localTime} of its {@code hello} reply, to the millisecond (the clock
	 * of {@code $$NOW} and {@code $currentDate} in the lock statements, unless a mongos router sits in between).
	 * Bounded by the settings' call timeout, as a lock call is: a once-per-period lock reads it before taking its key.
	 * @throws dev.distlock.core.LockStoreException if the server cannot be reached or sends no time
	 */
	@Override
	public Instant storeTime() {
		Date time = MongoTopology.hello(database, "read the server clock", settings.callTimeout().toMillis())
			.getDate("localTime");
		if (time == null) {
			throw new LockStoreException(null, "the server's hello reply has no localTime", null);
		}
		return time.toInstant();
	}

	/**
	 * Creates the index on {@code touched} the purger ranges over and the one on {@code ids} that unlock and renew by
	 * lock ID use; status queries use the {@code _id} index. Idempotent.
	 */
	public void createIndexes() {
		maintenance.createIndexes();
	}

	/**
	 * Removes documents whose every lease ended more than the grace period ago, by the database clock.
	 * @return how many were removed
	 */
	public long purge() {
		return maintenance.purge();
	}

	/**
	 * Whether {@link #start()} found the server to be a mongos router (and warned).
	 */
	boolean routedThroughMongos() {
		return routedThroughMongos;
	}

	private MongoCollection<Document> admin() {
		return TimeLimits.bounded(collection, ADMIN_MS);
	}

	/**
	 * Stops the purger if {@link #start()} started one; the template and its client stay open.
	 */
	@Override
	public void close() {
		purge.close();
	}

	@Override
	public String toString() {
		return "MongoLockProvider[collection='" + settings.collection() + "']";
	}

}
