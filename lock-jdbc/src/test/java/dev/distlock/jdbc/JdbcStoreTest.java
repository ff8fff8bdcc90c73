package dev.distlock.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.distlock.core.InvalidLockOptionException;
import dev.distlock.core.LockMode;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Acquisition;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.StatusQuery;
import dev.distlock.jdbc.testsupport.JdbcStoreInspector;
import dev.distlock.jdbc.testsupport.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the JDBC store does beyond the shared kits, on both databases: fencing tokens that keep increasing after the
 * purger deleted the row, expiry and times on the database clock whatever the session time zone, wake-ups of waiters
 * by releases, readable keys in the table, and settings that cannot carry SQL.
 */
class JdbcStoreTest {

	private static final OwnerDetails OWNER = new OwnerDetails("store-test", "host");

	private static LockRequest exclusive(String key, Duration lease) {
		return new LockRequest(key, dev.distlock.core.internal.OwnerTokens.next(), lease, LockMode.EXCLUSIVE, 1, OWNER);
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void fencingTokensKeepIncreasingAfterThePurgerDeletedTheRow(TestDatabase db) throws Exception {
		db.dataSource();
		String key = "purge:" + System.nanoTime();
		JdbcLockProvider provider = new JdbcLockProvider(db.dataSource(), db.dialect(), JdbcLockSettings.defaults(),
				Duration.ofMillis(1));
		JdbcStoreInspector inspector = new JdbcStoreInspector(db.dataSource(), db.dialect(), "distributed_locks");
		Lease first = provider.tryAcquire(exclusive(key, Duration.ofSeconds(5))).orElseThrow();
		assertThat(first.release()).isTrue();
		Thread.sleep(50);
		provider.purge();
		assertThat(inspector.rows(key)).isEmpty();
		Lease second = provider.tryAcquire(exclusive(key, Duration.ofSeconds(5))).orElseThrow();
		assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
		assertThat(second.release()).isTrue();
		provider.close();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void thePurgerRunsOnASchedulerHandedInAndCloseCancelsItWithoutShuttingTheSchedulerDown(TestDatabase db)
			throws Exception {
		String key = "purge-scheduled:" + System.nanoTime();
		JdbcLockSettings scheduled = JdbcLockSettings.defaults()
			.withPurge(Duration.ofMillis(100), JdbcLockSettings.MIN_PURGE_GRACE);
		ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1,
				runnable -> new Thread(runnable, "owner-scheduler"));
		try {
			JdbcLockProvider provider = new JdbcLockProvider(db.dataSource(), db.dialect(), scheduled,
					Duration.ofMillis(1)).purgeScheduler(scheduler);
			JdbcStoreInspector inspector = new JdbcStoreInspector(db.dataSource(), db.dialect(), "distributed_locks");
			provider.start();
			// The purge is in the owner's scheduler's queue whenever it is not running (it may already be running).
			long queued = System.nanoTime() + Duration.ofSeconds(30).toNanos();
			while (scheduler.getQueue().size() != 1 && System.nanoTime() - queued < 0) {
				Thread.sleep(10);
			}
			assertThat(scheduler.getQueue()).as("the purge, scheduled on the owner's scheduler").hasSize(1);
			assertThat(provider.tryAcquire(exclusive(key, Duration.ofSeconds(5))).orElseThrow().release()).isTrue();
			long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
			while (!inspector.rows(key).isEmpty() && System.nanoTime() - deadline < 0) {
				Thread.sleep(50);
			}
			assertThat(inspector.rows(key)).as("purged in the background").isEmpty();
			assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
				.noneMatch(name -> name.startsWith("distlock-jdbc-purge-"));
			provider.close();
			scheduler.purge(); // drops the cancelled purge from the queue
			assertThat(scheduler.getQueue()).isEmpty();
			assertThat(scheduler.isShutdown()).isFalse();
		}
		finally {
			scheduler.shutdownNow();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void theSchemaHasNoExpiryIndexAndATableThatStillHasOneKeepsWorkingAndPurgesInBatches(TestDatabase db)
			throws Exception {
		String table = "legacy_" + db.name().toLowerCase(java.util.Locale.ROOT) + "_" + System.nanoTime() % 1_000_000;
		JdbcLockSettings settings = new JdbcLockSettings(table, null, Duration.ofHours(1), 3,
				JdbcLockSettings.DEFAULT_CALL_TIMEOUT);
		assertThat(String.join("\n", JdbcMaintenance.schema(db.dialect(), settings))).doesNotContain("_expires")
			.doesNotContainIgnoringCase("(expires_at)");
		JdbcLockProvider provider = new JdbcLockProvider(db.dataSource(), db.dialect(), settings, Duration.ofMillis(1));
		provider.createSchema();
		// The index an earlier version created: creating the schema again and every call work with it there.
		execute(db, "CREATE INDEX " + table + "_expires ON " + table + " (expires_at)");
		provider.createSchema();
		String key = "legacy:" + System.nanoTime();
		long fence = 0;
		for (int i = 0; i < 7; i++) {
			Lease lease = provider.tryAcquire(exclusive(key + ":" + i, Duration.ofSeconds(5))).orElseThrow();
			assertThat(lease.fencingToken()).isGreaterThan(fence);
			fence = lease.fencingToken();
			assertThat(lease.release()).isTrue();
		}
		Lease live = provider.tryAcquire(exclusive(key + ":live", Duration.ofSeconds(30))).orElseThrow();
		Thread.sleep(50);
		JdbcStoreInspector inspector = new JdbcStoreInspector(db.dataSource(), db.dialect(), table);
		assertThat(provider.purge()).isEqualTo(7); // batches of 3, 3 and 1
		assertThat(inspector.rows(key)).hasSize(1);
		assertThat(inspector.held(key)).containsExactly(key + ":live");
		assertThat(live.release()).isTrue();
		provider.close();
	}

	@Test
	void onPostgresVacuumNeverTruncatesTheLockTablesAndCreatingTheSchemaSetsThatOnTablesAnEarlierVersionCreated()
			throws Exception {
		TestDatabase db = TestDatabase.POSTGRESQL;
		String table = "untruncated_" + System.nanoTime() % 1_000_000;
		JdbcLockSettings settings = new JdbcLockSettings(table, null, Duration.ofHours(1), 100,
				JdbcLockSettings.DEFAULT_CALL_TIMEOUT);
		JdbcLockProvider provider = new JdbcLockProvider(db.dataSource(), db.dialect(), settings, Duration.ofMillis(1));
		provider.createSchema();
		assertThat(storageOptions(db, table)).containsExactly("vacuum_truncate=false");
		assertThat(storageOptions(db, table + "_ids")).containsExactly("vacuum_truncate=false");
		// As an earlier version created them: without the setting.
		execute(db, "ALTER TABLE " + table + " RESET (vacuum_truncate)", "ALTER TABLE " + table
				+ "_ids RESET (vacuum_truncate)");
		assertThat(storageOptions(db, table)).isEmpty();
		provider.createSchema();
		assertThat(storageOptions(db, table)).containsExactly("vacuum_truncate=false");
		assertThat(storageOptions(db, table + "_ids")).containsExactly("vacuum_truncate=false");
		provider.close();
	}

	@Test
	void onPostgresARoleThatDoesNotOwnTheTablesCreatesTheSchemaLeavingTheirSettingsAndLocks() throws Exception {
		TestDatabase db = TestDatabase.POSTGRESQL;
		String table = "not_owned_" + System.nanoTime() % 1_000_000;
		String role = table + "_user";
		JdbcLockSettings settings = new JdbcLockSettings(table, null, Duration.ofHours(1), 100,
				JdbcLockSettings.DEFAULT_CALL_TIMEOUT);
		new JdbcLockProvider(db.dataSource(), db.dialect(), settings, Duration.ofMillis(1)).createSchema();
		execute(db, "ALTER TABLE " + table + " RESET (vacuum_truncate)", "CREATE ROLE " + role,
				"GRANT CREATE, USAGE ON SCHEMA public TO " + role,
				"GRANT SELECT, INSERT, UPDATE, DELETE ON " + table + ", " + table + "_shared, " + table + "_ids TO " + role,
				"GRANT USAGE, SELECT ON SEQUENCE " + settings.sequence() + " TO " + role);
		try (com.zaxxer.hikari.HikariDataSource pool = db.pool(db.jdbcUrl(db.port()), 2, "SET ROLE " + role)) {
			JdbcLockProvider provider = new JdbcLockProvider(pool, db.dialect(), settings, Duration.ofMillis(1));
			provider.createSchema();
			assertThat(storageOptions(db, table)).as("left as it was: only the owner may set it").isEmpty();
			Lease lease = provider.tryAcquire(exclusive("not-owned:" + System.nanoTime(), Duration.ofSeconds(5)))
				.orElseThrow();
			assertThat(lease.fencingToken()).isPositive();
			assertThat(lease.release()).isTrue();
			provider.close();
		}
	}

	private static List<String> storageOptions(TestDatabase db, String table) throws Exception {
		try (java.sql.Connection connection = db.dataSource().getConnection();
				java.sql.PreparedStatement query = connection
					.prepareStatement("SELECT unnest(reloptions) FROM pg_class WHERE relname = ?")) {
			query.setString(1, table);
			List<String> options = new java.util.ArrayList<>();
			try (java.sql.ResultSet rs = query.executeQuery()) {
				while (rs.next()) {
					options.add(rs.getString(1));
				}
			}
			return options;
		}
	}

	private static void execute(TestDatabase db, String... statements) throws Exception {
		try (java.sql.Connection connection = db.dataSource().getConnection();
				java.sql.Statement statement = connection.createStatement()) {
			for (String sql : statements) {
				statement.execute(sql);
			}
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void onlyGrantsUnderALockIdAreRecordedForLookupAndThePurgerDeletesRecordsTheirLocksNoLongerCarry(TestDatabase db)
			throws Exception {
		String key = "lock-ids:" + System.nanoTime();
		String id = "job-" + System.nanoTime();
		JdbcLockProvider provider = new JdbcLockProvider(db.dataSource(), db.dialect(), JdbcLockSettings.defaults(),
				Duration.ofMillis(1));
		JdbcStoreInspector inspector = new JdbcStoreInspector(db.dataSource(), db.dialect(), "distributed_locks");
		assertThat(String.join("\n", provider.schema())).doesNotContain("_lock_id").doesNotContain("(lock_id)");
		// A plain lock writes nothing to the lock-ID table.
		Lease plain = provider.tryAcquire(exclusive(key + ":plain", Duration.ofSeconds(30))).orElseThrow();
		assertThat(inspector.lockIdRecords(key)).isEmpty();
		assertThat(plain.release()).isTrue();
		// An exclusive and a shared grant under the ID are recorded, and found by it.
		Lease first = provider.tryAcquire(underId(key + ":x", LockMode.EXCLUSIVE, id)).orElseThrow();
		LockRequest sharedRequest = underId(key + ":s", LockMode.SHARED, id);
		Lease shared = provider.tryAcquire(sharedRequest).orElseThrow();
		assertThat(inspector.lockIdRecords(key)).containsExactly(id + "/" + key + ":s/" + sharedRequest.token(),
				id + "/" + key + ":x/");
		assertThat(provider.renew(id, Duration.ofSeconds(60)).renewed()).extracting(LockInfo::key)
			.containsExactlyInAnyOrder(key + ":x", key + ":s");
		// Released by its holder, the exclusive lock's record is stale: unlock by ID no longer reaches the key, even
		// after another holder took it under no ID, and the purger deletes the record.
		assertThat(first.release()).isTrue();
		Lease other = provider.tryAcquire(exclusive(key + ":x", Duration.ofSeconds(30))).orElseThrow();
		assertThat(provider.unlock(id)).extracting(LockInfo::key).containsExactly(key + ":s");
		assertThat(other.isHeld()).isTrue();
		assertThat(shared.isHeld()).isFalse();
		provider.purge();
		assertThat(inspector.lockIdRecords(key)).isEmpty();
		assertThat(other.release()).isTrue();
		provider.close();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void thePurgersDeleteOfALockIdRecordChecksAgainThatItsLockNoLongerCarriesIt(TestDatabase db) throws Exception {
		// On MariaDB the purger's candidate scan can see a record committed after its statement began while its
		// subquery still reads the lock table from before the grant: the delete by key must not trust that.
		String key = "lock-id-recheck:" + System.nanoTime();
		String id = "recheck-" + System.nanoTime();
		JdbcLockProvider provider = db.provider(JdbcLockSettings.defaults());
		JdbcStoreInspector inspector = new JdbcStoreInspector(db.dataSource(), db.dialect(), "distributed_locks");
		LockStatements sql = new LockStatements(db.dialect(), "distributed_locks", "distributed_locks_fence",
				"distributed_locks_ids", "distributed_locks_shared");
		Lease lease = provider.tryAcquire(underId(key, LockMode.EXCLUSIVE, id)).orElseThrow();
		assertThat(deleteRecord(db, sql, id, lease.fencingToken())).as("the record of a live lock").isZero();
		assertThat(inspector.lockIdRecords(key)).containsExactly(id + "/" + key + "/");
		assertThat(lease.release()).isTrue();
		assertThat(deleteRecord(db, sql, id, lease.fencingToken())).as("the record of a released lock").isOne();
		assertThat(inspector.lockIdRecords(key)).isEmpty();
		provider.close();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void creatingTheSchemaSplitsALockTableAnEarlierVersionCreatedKeepingItsLiveLocksAndRecordingTheirLockIds(
			TestDatabase db) throws Exception {
		String table = "layout_" + System.nanoTime() % 1_000_000;
		JdbcLockSettings settings = new JdbcLockSettings(table, null, Duration.ofHours(1), 100,
				JdbcLockSettings.DEFAULT_CALL_TIMEOUT);
		JdbcLockProvider provider = new JdbcLockProvider(db.dataSource(), db.dialect(), settings, Duration.ofMillis(1));
		provider.createSchema();
		// The layout of a version before 2026-11-30; and of one before 2026-11-28, evening: no records of the grants
		// under a lock ID.
		toEarlierLayout(db, table);
		assertThat(provider.needsUpgrade()).isTrue();
		boolean postgres = db.dialect() == JdbcDialect.POSTGRESQL;
		String key = "layout:\u043a\u043b\u044e\u0447:" + System.nanoTime();
		String id = "layout-" + System.nanoTime();
		String reader = dev.distlock.core.internal.OwnerTokens.next();
		String writer = dev.distlock.core.internal.OwnerTokens.next();
		String live = postgres ? "clock_timestamp() + INTERVAL '60 seconds'" : "UTC_TIMESTAMP(6) + INTERVAL 60 SECOND";
		String now = db.dialect().now();
		String epoch = db.dialect().epoch();
		String next = postgres ? "nextval('" + settings.sequence() + "')" : "NEXTVAL(" + settings.sequence() + ")";
		String columns = " (lock_key, holder, token, owner_name, owner_host, lock_id, fence, acquired_at, expires_at, "
				+ "ttl_ms, shared_until) VALUES ";
		execute(db, "INSERT INTO " + table + columns + "('" + key + ":x', '', '" + writer + "', 'old', 'host', '" + id
				+ "', " + next + ", " + now + ", " + live + ", 60000, " + epoch + ")",
				"INSERT INTO " + table + columns + "('" + key + ":s', '', NULL, NULL, NULL, NULL, " + next + ", NULL, " + epoch
						+ ", NULL, " + live + ")",
				"INSERT INTO " + table + columns + "('" + key + ":s', '" + reader + "', '" + reader + "', 'old', 'host', '"
						+ id + "', " + next + ", " + now + ", " + live + ", 60000, " + epoch + ")");
		JdbcStoreInspector inspector = new JdbcStoreInspector(db.dataSource(), db.dialect(), table);

		provider.createSchema();
		assertThat(provider.missingTables()).isEmpty();
		assertThat(provider.needsUpgrade()).isFalse();
		assertThat(inspector.rows(key)).containsExactly(key + ":s/", key + ":s/" + reader, key + ":x/");
		assertThat(inspector.held(key)).containsExactly(key + ":s", key + ":x");
		assertThat(inspector.lockIdRecords(key)).containsExactly(id + "/" + key + ":s/" + reader, id + "/" + key + ":x/");
		provider.createSchema(); // again: nothing left to split
		assertThat(inspector.rows(key)).hasSize(3);
		// The locks still hold: a writer is refused while the reader's lease lives, and the key's holder keeps it.
		assertThat(provider.tryAcquire(exclusive(key + ":s", Duration.ofSeconds(5)))).isEmpty();
		assertThat(provider.tryAcquire(exclusive(key + ":x", Duration.ofSeconds(5)))).isEmpty();
		assertThat(provider.status(new StatusQuery(key, null, StatusQuery.State.HELD, null))).extracting(LockInfo::key)
			.containsExactly(key + ":s", key + ":x");
		assertThat(provider.unlock(id)).extracting(LockInfo::key).containsExactlyInAnyOrder(key + ":x", key + ":s");
		Lease after = provider.tryAcquire(exclusive(key + ":s", Duration.ofSeconds(5))).orElseThrow();
		assertThat(after.fencingToken()).isGreaterThan(3);
		assertThat(after.release()).isTrue();
		assertThat(inspector.held(key)).isEmpty();
		execute(db, "DROP TABLE " + table, "DROP TABLE " + table + "_shared", "DROP TABLE " + table + "_ids");
		provider.close();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void twoInstancesUpgradingAnEarlierLockTableAtOnceBothStartAndTheTableIsUpgradedOnce(TestDatabase db)
			throws Exception {
		String table = "layout_both_" + System.nanoTime() % 1_000_000;
		JdbcLockSettings settings = new JdbcLockSettings(table, null, Duration.ofHours(1), 100,
				JdbcLockSettings.DEFAULT_CALL_TIMEOUT);
		JdbcLockProvider first = new JdbcLockProvider(db.dataSource(), db.dialect(), settings, Duration.ofMillis(1));
		JdbcLockProvider second = new JdbcLockProvider(db.dataSource(), db.dialect(), settings, Duration.ofMillis(1));
		first.createSchema();
		toEarlierLayout(db, table);
		java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
		java.util.concurrent.CompletableFuture<Void> a = java.util.concurrent.CompletableFuture.runAsync(() -> {
			awaitQuietly(go);
			first.createSchema();
		});
		java.util.concurrent.CompletableFuture<Void> b = java.util.concurrent.CompletableFuture.runAsync(() -> {
			awaitQuietly(go);
			second.createSchema();
		});
		go.countDown();
		a.get(60, java.util.concurrent.TimeUnit.SECONDS);
		b.get(60, java.util.concurrent.TimeUnit.SECONDS);
		assertThat(first.needsUpgrade()).isFalse();
		String key = "layout-both:" + System.nanoTime();
		Lease lease = second.tryAcquire(exclusive(key, Duration.ofSeconds(5))).orElseThrow();
		assertThat(first.tryAcquire(exclusive(key, Duration.ofSeconds(5)))).isEmpty();
		assertThat(lease.release()).isTrue();
		execute(db, "DROP TABLE " + table, "DROP TABLE " + table + "_shared", "DROP TABLE " + table + "_ids");
		first.close();
		second.close();
	}

	private static void awaitQuietly(java.util.concurrent.CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Turns the provider's tables into the layout of a version before 2026-11-30: the shared holders' rows in the
	 * lock table, with a {@code holder} column in its key, and no shared holders' table.
	 */
	static void toEarlierLayout(TestDatabase db, String table) throws Exception {
		boolean postgres = db.dialect() == JdbcDialect.POSTGRESQL;
		execute(db, postgres ? "ALTER TABLE " + table + " ADD COLUMN holder VARCHAR(64) NOT NULL DEFAULT ''"
				: "ALTER TABLE " + table + " ADD COLUMN holder VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin "
						+ "NOT NULL DEFAULT ''",
				postgres ? "ALTER TABLE " + table + " DROP CONSTRAINT " + table + "_pkey"
						: "ALTER TABLE " + table + " DROP PRIMARY KEY",
				"ALTER TABLE " + table + " ADD PRIMARY KEY (lock_key, holder)", "DROP TABLE " + table + "_shared");
	}

	private static int deleteRecord(TestDatabase db, LockStatements sql, String id, long fence) throws Exception {
		try (java.sql.Connection connection = db.dataSource().getConnection();
				java.sql.PreparedStatement delete = connection.prepareStatement(sql.purgeLockIdRow)) {
			delete.setString(1, id);
			delete.setLong(2, fence);
			return delete.executeUpdate();
		}
	}

	private static LockRequest underId(String key, LockMode mode, String lockId) {
		return new LockRequest(key, dev.distlock.core.internal.OwnerTokens.next(), Duration.ofSeconds(30), mode,
				mode == LockMode.SHARED ? 3 : 1, OWNER, lockId, false);
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void thePurgerLeavesLiveAndNoExpiryLocks(TestDatabase db) throws Exception {
		String key = "purge-live:" + System.nanoTime();
		JdbcLockProvider provider = new JdbcLockProvider(db.dataSource(), db.dialect(), JdbcLockSettings.defaults(),
				Duration.ofMillis(1));
		JdbcStoreInspector inspector = new JdbcStoreInspector(db.dataSource(), db.dialect(), "distributed_locks");
		Lease live = provider.tryAcquire(exclusive(key + ":a", Duration.ofSeconds(30))).orElseThrow();
		LockRequest forever = new LockRequest(key + ":b", dev.distlock.core.internal.OwnerTokens.next(),
				Duration.ofSeconds(1), LockMode.EXCLUSIVE, 1, OWNER, null, true);
		Lease immortal = provider.tryAcquire(forever).orElseThrow();
		Thread.sleep(50);
		provider.purge();
		assertThat(inspector.held(key)).containsExactly(key + ":a", key + ":b");
		assertThat(inspector.immortal(key)).containsExactly(key + ":b");
		assertThat(live.release()).isTrue();
		assertThat(immortal.release()).isTrue();
		assertThat(inspector.immortal(key)).isEmpty();
		provider.close();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void fencingTokensKeepIncreasingAcrossADatabaseRestart(TestDatabase db) {
		String key = "restart:" + System.nanoTime();
		JdbcLockProvider before = db.provider(JdbcLockSettings.defaults());
		// A lease that outlasts the restart on a loaded machine (1 s did not, at load 18).
		Lease first = before.tryAcquire(exclusive(key, Duration.ofSeconds(30))).orElseThrow();
		before.close();
		db.restart();
		JdbcLockProvider after = db.provider(JdbcLockSettings.defaults());
		// The lock survived the restart (committed before it) until its lease ends.
		assertThat(after.isLocked(key)).isTrue();
		Lease second = after.tryAcquire(exclusive(key + ":other", Duration.ofSeconds(5))).orElseThrow();
		assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
		assertThat(second.release()).isTrue();
		after.close();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void expiryAndStatusTimesAreTheDatabaseClockInUtcWhateverTheSessionTimeZone(TestDatabase db) throws Exception {
		String zone = db == TestDatabase.POSTGRESQL ? "SET TIME ZONE 'Pacific/Kiritimati'" : "SET time_zone = '+13:00'";
		String key = "clock:" + System.nanoTime();
		db.dataSource();
		try (var pool = db.pool(db.jdbcUrl(db.port()), 2, zone)) {
			JdbcLockProvider provider = new JdbcLockProvider(pool, db.dialect(), JdbcLockSettings.defaults());
			Instant before = Instant.now().minusSeconds(5);
			Lease lease = provider.tryAcquire(exclusive(key, Duration.ofMillis(800))).orElseThrow();
			List<LockInfo> infos = provider.status(StatusQuery.held().withKeyPrefix(key));
			assertThat(infos).hasSize(1);
			assertThat(infos.get(0).acquiredAt()).isBetween(before, Instant.now().plusSeconds(5));
			assertThat(infos.get(0).remaining()).isPositive().isLessThanOrEqualTo(Duration.ofMillis(800));
			assertThat(provider.isLocked(key)).isTrue();
			Thread.sleep(1_200);
			assertThat(provider.isLocked(key)).isFalse();
			assertThat(lease.extend(Duration.ofSeconds(5))).isFalse();
			provider.close();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void theStoreTimeIsTheDatabaseClockInUtcWhateverTheSessionTimeZone(TestDatabase db) throws Exception {
		String zone = db == TestDatabase.POSTGRESQL ? "SET TIME ZONE 'Pacific/Kiritimati'" : "SET time_zone = '+13:00'";
		db.dataSource();
		try (var pool = db.pool(db.jdbcUrl(db.port()), 2, zone)) {
			JdbcLockProvider provider = new JdbcLockProvider(pool, db.dialect(), JdbcLockSettings.defaults());
			provider.storeTime(); // opens a connection
			Instant sent = Instant.now();
			Instant storeTime = provider.storeTime();
			Instant answered = Instant.now();
			// The database runs on this machine's clock: its reading falls inside the round trip (to the microsecond),
			// not thirteen or fourteen hours off.
			assertThat(storeTime).isBetween(sent.minusMillis(1), answered.plusMillis(1));
			provider.close();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aReleaseWakesAWaiterOfTheSameProvider(TestDatabase db) throws Exception {
		String key = "wake:" + System.nanoTime();
		JdbcLockProvider provider = db.provider(JdbcLockSettings.defaults());
		Lease held = provider.tryAcquire(exclusive(key, Duration.ofMinutes(5))).orElseThrow();
		try (Acquisition waiting = provider.begin(exclusive(key, Duration.ofSeconds(30)))) {
			assertThat(waiting.tryOnce()).isEmpty();
			new Thread(() -> {
				sleep(200);
				held.release();
			}).start();
			// Only a wake-up can end these waits before the five-minute lease; one may come early (the LISTEN
			// connection opening wakes every waiter once), so a few are allowed.
			Optional<Acquisition.Granted> granted = Optional.empty();
			for (int i = 0; i < 5 && granted.isEmpty(); i++) {
				assertThat(waiting.awaitSignal(Duration.ofMinutes(2))).as("woken by the release").isTrue();
				granted = waiting.tryOnce();
			}
			assertThat(granted).isPresent();
			assertThat(granted.get().lease().release()).isTrue();
		}
		provider.close();
	}

	@ParameterizedTest
	@EnumSource(value = TestDatabase.class, names = "POSTGRESQL")
	void onPostgresAReleaseInAnotherProcessWakesTheWaiterThroughNotify(TestDatabase db) throws Exception {
		String key = "notify:" + System.nanoTime();
		JdbcLockProvider waiterSide = db.provider(JdbcLockSettings.defaults());
		JdbcLockProvider holderSide = db.provider(JdbcLockSettings.defaults());
		Lease held = holderSide.tryAcquire(exclusive(key, Duration.ofMinutes(5))).orElseThrow();
		try (Acquisition waiting = waiterSide.begin(exclusive(key, Duration.ofSeconds(30)))) {
			assertThat(waiting.tryOnce()).isEmpty();
			// A writer that marks within a step of the holder's grant starts out reading at its own step (the key may
			// be cycling); its first read that finds the same grant makes it count on notifications.
			for (int i = 0; i < 1_000 && waiting.longestWait() != null; i++) {
				waiting.awaitSignal(waiting.longestWait());
				assertThat(waiting.tryOnce()).isEmpty();
			}
			assertThat(waiting.longestWait()).as("counting on notifications").isNull();
			sleep(1_000); // the LISTEN connection is open (its opening also wakes the waiter once)
			waiting.awaitSignal(Duration.ZERO);
			new Thread(() -> {
				sleep(200);
				held.release();
			}).start();
			Optional<Acquisition.Granted> granted = Optional.empty();
			for (int i = 0; i < 5 && granted.isEmpty(); i++) {
				assertThat(waiting.awaitSignal(Duration.ofMinutes(2))).as("woken by NOTIFY").isTrue();
				granted = waiting.tryOnce();
			}
			assertThat(granted).isPresent();
			assertThat(granted.get().lease().release()).isTrue();
		}
		waiterSide.close();
		holderSide.close();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aWaiterWakesWhenTheHoldersLeaseEndsThoughNoReleaseIsSent(TestDatabase db) throws Exception {
		String key = "expiry-wake:" + System.nanoTime();
		JdbcLockProvider waiterSide = db.provider(JdbcLockSettings.defaults());
		JdbcLockProvider holderSide = db.provider(JdbcLockSettings.defaults());
		holderSide.tryAcquire(exclusive(key, Duration.ofSeconds(1))).orElseThrow();
		try (Acquisition waiting = waiterSide.begin(exclusive(key, Duration.ofSeconds(30)))) {
			assertThat(waiting.tryOnce()).isEmpty();
			waiting.awaitSignal(Duration.ofMinutes(10)); // returns at the lease's end, not after ten minutes
			Optional<Acquisition.Granted> granted = Optional.empty();
			for (int i = 0; i < 50 && granted.isEmpty(); i++) {
				granted = waiting.tryOnce();
				if (granted.isEmpty()) {
					waiting.awaitSignal(Duration.ofMillis(100));
				}
			}
			assertThat(granted).isPresent();
			assertThat(granted.get().lease().release()).isTrue();
		}
		waiterSide.close();
		holderSide.close();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void keysAreStoredAsReadableText(TestDatabase db) {
		String key = "readable:" + System.nanoTime() + ":commande/42 ✓ 🔒";
		JdbcLockProvider provider = db.provider(JdbcLockSettings.defaults());
		Lease lease = provider.tryAcquire(exclusive(key, Duration.ofSeconds(30))).orElseThrow();
		JdbcStoreInspector inspector = new JdbcStoreInspector(db.dataSource(), db.dialect(), "distributed_locks");
		assertThat(inspector.held(key)).containsExactly(key);
		assertThat(lease.release()).isTrue();
		provider.close();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aLockIdThatCannotBeStoredIsRefusedBeforeAnythingIsSent(TestDatabase db) {
		JdbcLockProvider provider = db.provider(JdbcLockSettings.defaults());
		JdbcStoreInspector inspector = new JdbcStoreInspector(db.dataSource(), db.dialect(), "distributed_locks");
		String prefix = "bad-id:" + System.nanoTime();
		for (String bad : List.of("a\u0000b", "x\uD800y", "i".repeat(256))) {
			// The core refuses these when the request is built (LockIds); the provider checks again on its own.
			assertThatThrownBy(() -> provider.tryAcquire(new LockRequest(prefix, "t", Duration.ofSeconds(1),
					LockMode.EXCLUSIVE, 1, OWNER, bad, false))).isInstanceOf(InvalidLockOptionException.class)
				.hasMessageContaining("lockId");
		}
		assertThat(inspector.rows(prefix)).as("nothing sent").isEmpty();
		provider.close();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void ownerNamesThatCannotBeStoredAreRefusedAndOthersAreStoredExactly(TestDatabase db) {
		String key = "owner:" + System.nanoTime();
		JdbcLockProvider provider = db.provider(JdbcLockSettings.defaults());
		JdbcStoreInspector inspector = new JdbcStoreInspector(db.dataSource(), db.dialect(), "distributed_locks");
		// NUL and lone surrogates never reach the store: the core refuses them, naming the option (LockIds).
		for (String bad : List.of("bad\u0000owner", "bad\uD800owner")) {
			assertThatThrownBy(() -> provider.tryAcquire(new LockRequest(key, "t" + System.nanoTime(),
					Duration.ofSeconds(30), LockMode.EXCLUSIVE, 1, new OwnerDetails(bad, "h"))))
				.isInstanceOf(InvalidLockOptionException.class)
				.hasMessageContaining("owner");
		}
		assertThat(inspector.rows(key)).as("nothing sent").isEmpty();
		String readable = "propriétaire 🔒 ✓";
		LockRequest request = new LockRequest(key, "t" + System.nanoTime(), Duration.ofSeconds(30), LockMode.EXCLUSIVE,
				1, new OwnerDetails(readable, "h"));
		Lease lease = provider.tryAcquire(request).orElseThrow();
		assertThat(provider.status(StatusQuery.held().withKeyPrefix(key))).extracting(LockInfo::owner)
			.containsExactly(readable);
		assertThat(lease.release()).isTrue();
		provider.close();
	}

	@Test
	void ownerTextThatCanBeStoredIsSentAsItIsAndOtherTextIsMadeStorable() {
		String plain = "propriétaire 🔒 ✓ on host-1";
		assertThat(JdbcAcquirer.text(plain)).as("the same string, not a copy").isSameAs(plain);
		String full = "o".repeat(253) + "🔒";
		assertThat(JdbcAcquirer.text(full)).isSameAs(full);
		assertThat(JdbcAcquirer.text(null)).isNull();
		assertThat(JdbcAcquirer.text("a\u0000b\uD800c\uDC00")).isEqualTo("a\uFFFDb\uFFFDc\uFFFD");
		assertThat(JdbcAcquirer.text("o".repeat(300))).isEqualTo("o".repeat(255));
		assertThat(JdbcAcquirer.text("o".repeat(254) + "🔒" + "o")).as("never half a surrogate pair")
			.isEqualTo("o".repeat(254));
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
