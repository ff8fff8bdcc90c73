package dev.distlock.jdbc;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.distlock.core.LockMode;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.internal.OwnerTokens;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.StatusQuery;
import dev.distlock.jdbc.testsupport.JdbcStoreInspector;
import dev.distlock.jdbc.testsupport.TestDatabase;
import dev.distlock.test.kit.TcpProxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A command sent twice with the same owner token (a client replaying it after a lost reply) answers as the first did
 * and changes nothing else, and a shared holder that shortens its lease does not keep writers out past it.
 */
class JdbcReplayTest {

	private static final OwnerDetails OWNER = new OwnerDetails("replay-test", "host");

	private static LockRequest request(String key, String token, Duration lease, LockMode mode, boolean noExpiry) {
		return new LockRequest(key, token, lease, mode, mode == LockMode.SHARED ? 3 : 1, OWNER, null, noExpiry);
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aReplayedExclusiveAcquireOfAHeldLockAnswersItsFencingTokenAndKeepsItsAcquisitionTime(TestDatabase db)
			throws Exception {
		JdbcLockProvider provider = db.provider(JdbcLockSettings.defaults());
		for (boolean noExpiry : List.of(false, true)) {
			String key = "replay-exclusive:" + noExpiry + ":" + System.nanoTime();
			LockRequest request = request(key, OwnerTokens.next(), Duration.ofSeconds(30), LockMode.EXCLUSIVE,
					noExpiry);
			Lease first = provider.tryAcquire(request).orElseThrow();
			LockInfo before = provider.status(StatusQuery.held().withKeyPrefix(key)).get(0);
			Thread.sleep(20);
			Lease replayed = provider.tryAcquire(request).orElseThrow();
			assertThat(replayed.fencingToken()).as("replay's fencing token, noExpiry=" + noExpiry)
				.isEqualTo(first.fencingToken());
			List<LockInfo> after = provider.status(StatusQuery.held().withKeyPrefix(key));
			assertThat(after).hasSize(1);
			assertThat(after.get(0).fencingToken()).isEqualTo(first.fencingToken());
			assertThat(after.get(0).acquiredAt()).isEqualTo(before.acquiredAt());
			// The next holder still gets a larger token: the replay drew none the key's order depends on.
			assertThat(replayed.release()).isTrue();
			Lease next = provider.tryAcquire(request(key, OwnerTokens.next(), Duration.ofSeconds(30),
					LockMode.EXCLUSIVE, false)).orElseThrow();
			assertThat(next.fencingToken()).isGreaterThan(first.fencingToken());
			assertThat(next.release()).isTrue();
		}
		provider.close();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aReplayedAcquireUnderALockIdAnswersItsFencingTokenAndLeavesOneRecordThatUnlockByIdFollows(TestDatabase db) {
		JdbcLockProvider provider = db.provider(JdbcLockSettings.defaults());
		JdbcStoreInspector inspector = new JdbcStoreInspector(db.dataSource(), db.dialect(), "distributed_locks");
		for (LockMode mode : LockMode.values()) {
			String key = "replay-id:" + mode + ":" + System.nanoTime();
			String id = "replay-id-" + System.nanoTime();
			LockRequest request = new LockRequest(key, OwnerTokens.next(), Duration.ofSeconds(30), mode,
					mode == LockMode.SHARED ? 3 : 1, OWNER, id, false);
			Lease first = provider.tryAcquire(request).orElseThrow();
			Lease replayed = provider.tryAcquire(request).orElseThrow();
			assertThat(replayed.fencingToken()).as(mode.toString()).isEqualTo(first.fencingToken());
			String holder = mode == LockMode.SHARED ? request.token() : "";
			assertThat(inspector.lockIdRecords(key)).containsExactly(id + "/" + key + "/" + holder);
			assertThat(provider.unlock(id)).extracting(LockInfo::key).containsExactly(key);
			assertThat(replayed.isHeld()).isFalse();
		}
		provider.close();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aGrantUnderALockIdWhoseRecordRanButWhoseReplyWasLostIsReleasedAndTheAcquireFailsTyped(TestDatabase db)
			throws Exception {
		db.dataSource(); // the server and the table
		String key = "record-lost:" + System.nanoTime();
		String id = "record-lost-" + System.nanoTime();
		JdbcStoreInspector inspector = new JdbcStoreInspector(db.dataSource(), db.dialect(), "distributed_locks");
		try (TcpProxy proxy = TcpProxy.start(db.port()); HikariDataSource pool = db.pool(db.jdbcUrl(proxy.port()), 2)) {
			JdbcLockProvider provider = new JdbcLockProvider(pool, db.dialect(), JdbcLockSettings.defaults());
			// The grant's reply arrives; the record's statement runs and its reply is lost with the connection.
			CountDownLatch dropped = proxy.dropNextReplyAndCut("INTO distributed_locks_ids");
			LockRequest request = new LockRequest(key, OwnerTokens.next(), Duration.ofSeconds(30), LockMode.EXCLUSIVE,
					1, OWNER, id, false);
			Throwable thrown = catchThrowable(() -> provider.tryAcquire(request));
			assertThat(dropped.getCount()).as("the record's reply was dropped").isZero();
			assertThat(thrown).isInstanceOf(LockStoreException.class);
			long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
			while (!inspector.held(key).isEmpty() && System.nanoTime() - deadline < 0) {
				Thread.sleep(20);
			}
			assertThat(inspector.held(key)).as("the grant, released after the failed acquire").isEmpty();
			assertThat(inspector.lockIdRecords(key)).as("the record ran on the server").containsExactly(id + "/" + key + "/");
			assertThat(provider.unlock(id)).as("a stale record is not followed").isEmpty();
			provider.purge();
			assertThat(inspector.lockIdRecords(key)).isEmpty();
			provider.close();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aReplayedExclusiveAcquireKeepsTheRenewalTimeAndTheNextHoldersGrantStartsAfresh(TestDatabase db)
			throws Exception {
		// One connection, so the next holder's grant runs where the replay ran (on MariaDB, where the replay's
		// session variable was left set): it must still draw a new token and a new acquisition time, no renewal.
		HikariDataSource pool = db.pool(db.jdbcUrl(db.port()), 1);
		db.dataSource(); // the table
		JdbcLockProvider provider = new JdbcLockProvider(pool, db.dialect(), JdbcLockSettings.defaults());
		String key = "replay-renewed:" + System.nanoTime();
		LockRequest request = request(key, OwnerTokens.next(), Duration.ofSeconds(30), LockMode.EXCLUSIVE, false);
		Lease first = provider.tryAcquire(request).orElseThrow();
		assertThat(first.extend(Duration.ofSeconds(30))).isTrue();
		LockInfo extended = provider.status(StatusQuery.held().withKeyPrefix(key)).get(0);
		assertThat(extended.renewedAt()).isNotNull();
		Thread.sleep(20);
		Lease replayed = provider.tryAcquire(request).orElseThrow();
		LockInfo afterReplay = provider.status(StatusQuery.held().withKeyPrefix(key)).get(0);
		assertThat(replayed.fencingToken()).isEqualTo(first.fencingToken());
		assertThat(afterReplay.acquiredAt()).isEqualTo(extended.acquiredAt());
		assertThat(afterReplay.renewedAt()).isEqualTo(extended.renewedAt());
		assertThat(replayed.release()).isTrue();
		Thread.sleep(20);
		Lease next = provider.tryAcquire(request(key, OwnerTokens.next(), Duration.ofSeconds(30), LockMode.EXCLUSIVE,
				false)).orElseThrow();
		LockInfo fresh = provider.status(StatusQuery.held().withKeyPrefix(key)).get(0);
		assertThat(next.fencingToken()).isGreaterThan(first.fencingToken());
		assertThat(fresh.fencingToken()).isEqualTo(next.fencingToken());
		assertThat(fresh.acquiredAt()).isAfter(extended.acquiredAt());
		assertThat(fresh.renewedAt()).isNull();
		assertThat(next.release()).isTrue();
		provider.close();
		pool.close();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aReplayedSharedAcquireAnswersItsOwnFencingTokenNotAnotherReaders(TestDatabase db) {
		JdbcLockProvider provider = db.provider(JdbcLockSettings.defaults());
		String key = "replay-shared:" + System.nanoTime();
		LockRequest first = request(key, OwnerTokens.next(), Duration.ofSeconds(30), LockMode.SHARED, false);
		Lease one = provider.tryAcquire(first).orElseThrow();
		Lease two = provider.tryAcquire(request(key, OwnerTokens.next(), Duration.ofSeconds(30), LockMode.SHARED,
				false)).orElseThrow();
		assertThat(two.fencingToken()).isGreaterThan(one.fencingToken());
		Lease replayed = provider.tryAcquire(first).orElseThrow();
		assertThat(replayed.fencingToken()).isEqualTo(one.fencingToken());
		// Still two holders, and the key's latest token is still the second reader's.
		assertThat(provider.status(StatusQuery.held().withKeyPrefix(key))).singleElement()
			.satisfies(info -> assertThat(info.holders()).isEqualTo(2))
			.satisfies(info -> assertThat(info.fencingToken()).isEqualTo(two.fencingToken()));
		assertThat(one.release()).isTrue();
		assertThat(two.release()).isTrue();
		// The replay did not lower the key's latest token: the next grant is above both readers'.
		Lease writer = provider.tryAcquire(request(key, OwnerTokens.next(), Duration.ofSeconds(30),
				LockMode.EXCLUSIVE, false)).orElseThrow();
		assertThat(writer.fencingToken()).isGreaterThan(two.fencingToken());
		assertThat(writer.release()).isTrue();
		provider.close();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aSharedHolderThatShortensItsLeaseLetsAWriterInOnceItEnds(TestDatabase db) throws Exception {
		JdbcLockProvider provider = db.provider(JdbcLockSettings.defaults());
		String key = "shorten-shared:" + System.nanoTime();
		Lease reader = provider.tryAcquire(request(key, OwnerTokens.next(), Duration.ofSeconds(30), LockMode.SHARED,
				false)).orElseThrow();
		assertThat(reader.extend(Duration.ofMinutes(10))).isTrue();
		assertThat(reader.extend(Duration.ofMillis(50))).isTrue();
		Thread.sleep(200);
		assertThat(reader.release()).as("release after the shortened lease ended").isFalse();
		Lease writer = provider.tryAcquire(request(key, OwnerTokens.next(), Duration.ofSeconds(30),
				LockMode.EXCLUSIVE, false)).orElseThrow();
		assertThat(writer.release()).isTrue();
		provider.close();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aReplayedSharedAcquireAfterALongExtendRestartsTheShortLeaseAndLetsAWriterInAfterIt(TestDatabase db)
			throws Exception {
		JdbcLockProvider provider = db.provider(JdbcLockSettings.defaults());
		// A short lease may run out before the extend on a loaded machine: then the case is set up again with a
		// lease four times longer (the replay restarts whatever the first acquire asked for).
		Duration shortLease = Duration.ofMillis(50);
		String key;
		LockRequest shortShared;
		Lease reader;
		do {
			assertThat(shortLease).as("a lease the machine lets the extend reach").isLessThan(Duration.ofMinutes(1));
			key = "replay-shared-extended:" + System.nanoTime();
			shortShared = request(key, OwnerTokens.next(), shortLease, LockMode.SHARED, false);
			reader = provider.tryAcquire(shortShared).orElseThrow();
			if (reader.extend(Duration.ofMinutes(10))) {
				break;
			}
			shortLease = shortLease.multipliedBy(4);
		}
		while (true);
		Lease replayed = provider.tryAcquire(shortShared).orElseThrow();
		assertThat(replayed.fencingToken()).isEqualTo(reader.fencingToken());
		Thread.sleep(shortLease.toMillis() + 150);
		Lease writer = provider.tryAcquire(request(key, OwnerTokens.next(), Duration.ofSeconds(30),
				LockMode.EXCLUSIVE, false)).orElseThrow();
		assertThat(writer.fencingToken()).isGreaterThan(reader.fencingToken());
		assertThat(writer.release()).isTrue();
		provider.close();
	}

}
