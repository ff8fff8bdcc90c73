package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.distlock.core.LockStoreException;
import dev.distlock.core.spi.Acquisition;
import dev.distlock.core.spi.FirstAttempt;
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

/**
 * Locks in a relational database (PostgreSQL, MySQL/MariaDB), one row per key, with leases on the database clock,
 * owner-checked release and extend, and fencing tokens from a sequence. Every statement runs on a connection of its
 * own in autocommit (or one short transaction), never in the caller's transaction, and gives the connection back at
 * once ({@link LockDatabase}); the statements are in {@link LockStatements}. Locks may carry a lock ID and may have no
 * expiry; a waiting exclusive request keeps new shared holders out, and waiters are woken by releases
 * ({@link Wakeups}). {@link #start()} checks or creates the table and schedules the purger; {@link #close()} stops
 * both background threads. See docs/JDBC.md.
 */
public final class JdbcLockProvider implements WaitingLockProvider, OperatorSupport, StoreClock, LockIdSupport,
		AutoCloseable {

	private static final Log logger = LogFactory.getLog(JdbcLockProvider.class);

	private static final long ADMIN_MS = TimeLimits.ADMIN.toMillis();

	private final JdbcLockSettings settings;

	private final LockDatabase database;

	private final LockStatements sql;

	private final Wakeups wakeups;

	private final HolderCalls calls;

	private final JdbcAcquirer acquirer;

	private final JdbcLockIds lockIds;

	private final JdbcMaintenance maintenance;

	private final PeriodicPurge purge;

	/**
	 * A provider on the DataSource, its dialect read from the database once (one connection borrowed and returned).
	 * Pass the connection pool itself, not a transaction-aware proxy: the provider must never be handed the caller's
	 * transactional connection.
	 * @throws LockStoreException if the database cannot be reached to read its product name
	 */
	public JdbcLockProvider(DataSource dataSource, JdbcLockSettings settings) {
		this(dataSource, detect(dataSource), settings);
	}

	/** A provider with the dialect given, which sends nothing to the database until the first call. */
	public JdbcLockProvider(DataSource dataSource, JdbcDialect dialect, JdbcLockSettings settings) {
		this(dataSource, dialect, settings, settings.purgeGrace());
	}

	/** A provider whose purger uses {@code purgeGrace} instead of the settings' (tests that cannot wait a minute). */
	JdbcLockProvider(DataSource dataSource, JdbcDialect dialect, JdbcLockSettings settings, Duration purgeGrace) {
		this.settings = settings;
		this.sql = new LockStatements(dialect, settings.table(), settings.sequence(), settings.lockIdTable(),
				settings.sharedTable());
		this.database = new LockDatabase(dataSource, dialect, settings.serverPrepares() ? sql.serverPrepared : Set.of());
		String channel = JdbcDialect.channel(settings.table());
		this.wakeups = new Wakeups(dialect == JdbcDialect.POSTGRESQL ? dataSource : null, channel);
		this.calls = new HolderCalls(database, sql, wakeups, channel);
		this.acquirer = new JdbcAcquirer(database, sql, calls, settings.callTimeout());
		this.lockIds = new JdbcLockIds(database, sql, calls);
		this.maintenance = new JdbcMaintenance(database, sql, settings, purgeGrace);
		this.purge = new PeriodicPurge("distlock-jdbc-purge-" + settings.table(), settings.purgeInterval(),
				maintenance::purgeLogged);
	}

	private static JdbcDialect detect(DataSource dataSource) {
		try (Connection connection = dataSource.getConnection()) {
			return JdbcDialect.of(connection);
		}
		catch (SQLException ex) {
			throw new LockStoreException(null, "JDBC lock store could not read the database's product name: "
					+ ex.getMessage(), ex);
		}
	}

	/**
	 * Schedules the purger if a purge interval is set. Calling it again does nothing. The table must exist: see
	 * {@link #createSchema()} and {@link #tableExists()}.
	 */
	public void start() {
		purge.start();
	}

	/**
	 * Runs the purger on this scheduler, which its owner shuts down, instead of a thread of its own; call it before
	 * {@link #start()} (see {@link PeriodicPurge#scheduler}).
	 * @return this provider
	 */
	public JdbcLockProvider purgeScheduler(ScheduledExecutorService scheduler) {
		purge.scheduler(scheduler);
		return this;
	}

	/**
	 * {@inheritDoc} The attempt is bounded by its lease (between 2 and 30 s). A token that already holds the key is
	 * granted again with a new fencing token; an attempt that may have been applied although it failed is undone by
	 * owner token before the error is thrown.
	 * @throws dev.distlock.core.InvalidLockOptionException naming {@code timeout} if the lease is not positive or
	 * longer than 365 days, or {@code lockId} if it is not storable; nothing is sent then
	 */
	@Override
	public Optional<Lease> tryAcquire(LockRequest request) {
		return acquirer.tryAcquire(request);
	}

	/** Starts a waiting acquisition, woken by releases (see {@link Wakeups}) and at the holder's lease end. */
	@Override
	public Acquisition begin(LockRequest request) {
		return new JdbcAcquisition(acquirer, database, sql, wakeups, request);
	}

	/**
	 * {@inheritDoc} The first attempt is the plain one ({@link #tryAcquire}); only when it is refused is the waiting
	 * acquisition made, which registers for wake-ups (on PostgreSQL joining the LISTEN connection) and marks the key's
	 * row. An uncontended acquire registers nothing and borrows no LISTEN connection.
	 */
	@Override
	public FirstAttempt start(LockRequest request) {
		long sent = System.nanoTime();
		Optional<Lease> lease = acquirer.tryAcquire(request);
		if (lease.isPresent()) {
			return new Acquisition.Granted(lease.get(), sent);
		}
		return JdbcAcquisition.afterRefusal(acquirer, database, sql, wakeups, request);
	}

	@Override
	public List<LockInfo> unlock(String lockId) {
		return lockIds.unlock(lockId);
	}

	@Override
	public LockRenewal renew(String lockId, Duration lease) {
		return lockIds.renew(lockId, lease);
	}

	@Override
	public boolean isLocked(String key) {
		return database.run(key, "check", ADMIN_MS, false,
				session -> session.query(sql.isLocked, rs -> rs.getLong(1), key, key).get(0) > 0);
	}

	@Override
	public List<LockInfo> status(StatusQuery query) {
		String like = JdbcLockStatus.likePrefix(query.keyPrefix());
		List<LockRow> rows = database.run(query.keyPrefix(), "list locks", ADMIN_MS, false,
				session -> session.query(sql.statusRows, rs -> LockRow.read(rs, session.dialect()), like, like));
		return JdbcLockStatus.infos(rows, query);
	}

	@Override
	public boolean forceRelease(String key) {
		logger.warn("Forcing the release of lock '" + key + "'");
		boolean released = database.run(key, "force release", ADMIN_MS, true, session -> {
			List<Integer> exclusive = session.query(sql.lockKeyRow, rs -> rs.getInt(1), key);
			if (exclusive.isEmpty()) {
				return false;
			}
			session.update(sql.forceKeyRow, key);
			int shared = session.update(sql.forceShared, key);
			boolean any = exclusive.get(0) == 1 || shared > 0;
			if (any) {
				calls.notifyOthers(session, key);
			}
			return any;
		});
		if (released) {
			wakeups.wake(key);
		}
		return released;
	}

	@Override
	public String name() {
		return "jdbc";
	}

	/**
	 * Sends {@code SELECT 1} once, for the health contributor.
	 * @return how long the round trip took
	 * @throws LockStoreException if the database cannot be reached
	 */
	@Override
	public Duration ping() {
		long start = System.nanoTime();
		database.run(null, "ping", ADMIN_MS, false, session -> session.query(sql.ping, rs -> 1));
		return Duration.ofNanos(System.nanoTime() - start);
	}

	/**
	 * Reads the database clock once: {@code clock_timestamp()} on PostgreSQL, {@code UTC_TIMESTAMP(6)} on
	 * MySQL/MariaDB, to the microsecond.
	 * @throws LockStoreException if the database cannot be reached
	 */
	@Override
	public Instant storeTime() {
		// Bounded as a lock call is: a once-per-period lock reads the clock before taking its key.
		Instant now = database.run(null, "read the database clock", settings.callTimeout().toMillis(), false,
				session -> session.query(sql.clock, rs -> session.dialect().instant(rs, "store_now")).get(0));
		if (now == null) {
			throw new LockStoreException(null, "the database answered its clock with NULL", null);
		}
		return now;
	}

	/** Creates the tables and the fencing sequence if they do not exist (the dialect's DDL resource). */
	public void createSchema() {
		maintenance.createSchema();
	}

	/**
	 * Whether the provider's tables, the lock table, its shared holders' table ({@link JdbcLockSettings#sharedTable()})
	 * and its lock-ID table ({@link JdbcLockSettings#lockIdTable()}), exist in the database the DataSource connects to.
	 */
	public boolean tableExists() {
		return missingTables().isEmpty();
	}

	/** The provider's tables that do not exist in the database the DataSource connects to, lock table first. */
	public List<String> missingTables() {
		return maintenance.missingTables();
	}

	/**
	 * Whether the lock table has the layout of a version before 2026-11-30 (the shared holders' rows in it, a
	 * {@code holder} column), which {@link #createSchema()} upgrades (docs/JDBC.md, "Upgrading"); the provider's
	 * statements fail on it until then.
	 */
	public boolean needsUpgrade() {
		return maintenance.needsUpgrade();
	}

	/** The dialect's DDL with this provider's table and sequence names, one statement per element. */
	public List<String> schema() {
		return JdbcMaintenance.schema(database.dialect(), settings);
	}

	/**
	 * Deletes rows whose every lease ended more than the purge grace ago, by the database clock, in batches, then the
	 * lock-ID records whose lock no longer carries them.
	 * @return how many lock rows were deleted
	 */
	public long purge() {
		return maintenance.purge();
	}

	/** The dialect in use. */
	public JdbcDialect dialect() {
		return database.dialect();
	}

	/** The settings in use. */
	public JdbcLockSettings settings() {
		return settings;
	}

	/**
	 * Stops the purger and the background releases after failed acquires that find the database out of reach, and
	 * leaves the JVM's LISTEN connection on the DataSource (closed when the last provider on it leaves); the
	 * DataSource stays open.
	 */
	@Override
	public synchronized void close() {
		acquirer.close();
		purge.close();
		wakeups.close();
	}

	/** The provider's waiters and its LISTEN connection (tests). */
	Wakeups wakeups() {
		return wakeups;
	}

	@Override
	public String toString() {
		return "JdbcLockProvider[table='" + settings.table() + "', dialect=" + database.dialect() + "]";
	}

}
