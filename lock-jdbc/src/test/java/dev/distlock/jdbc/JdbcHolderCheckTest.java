package dev.distlock.jdbc;

import java.time.Duration;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.distlock.core.LockMode;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.internal.OwnerTokens;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.jdbc.testsupport.JdbcStoreInspector;
import dev.distlock.jdbc.testsupport.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Lease#isHeld()} on the JDBC store: an owner-checked read on the database clock that changes nothing, so the
 * handle of a lock without expiry learns that another process took the lock away.
 */
class JdbcHolderCheckTest {

	private static final OwnerDetails OWNER = new OwnerDetails("holder-check-test", "host");

	private static LockRequest request(String key, LockMode mode, String lockId, boolean noExpiry) {
		return new LockRequest(key, OwnerTokens.next(), Duration.ofSeconds(30), mode, mode == LockMode.SHARED ? 2 : 1,
				OWNER, lockId, noExpiry);
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aHolderWithoutExpiryFindsItsLockGoneAfterAnotherProcessUnlockedItsIdAndTookTheKey(TestDatabase db) {
		JdbcLockProvider mine = db.provider(JdbcLockSettings.defaults());
		JdbcLockProvider other = db.provider(JdbcLockSettings.defaults());
		JdbcStoreInspector inspector = new JdbcStoreInspector(db.dataSource(), db.dialect(), "distributed_locks");
		for (LockMode mode : LockMode.values()) {
			String key = "holder-check:" + mode + ":" + System.nanoTime();
			String id = "holder-check-id-" + System.nanoTime();
			Lease lease = mine.tryAcquire(request(key, mode, id, true)).orElseThrow();
			assertThat(lease.isHeld()).as(mode + " held").isTrue();
			assertThat(lease.isHeld()).as(mode + " asked twice").isTrue();
			assertThat(inspector.heldForYears(key)).as(mode + ": made lasting, and the checks left it so")
				.containsExactly(key);
			assertThat(other.unlock(id)).as(mode + " unlocked by ID").hasSize(1);
			Lease taker = other.tryAcquire(request(key, LockMode.EXCLUSIVE, null, true)).orElseThrow();
			assertThat(taker.fencingToken()).isGreaterThan(lease.fencingToken());
			assertThat(lease.isHeld()).as(mode + " after another process took the key").isFalse();
			assertThat(taker.isHeld()).isTrue();
			assertThat(taker.release()).isTrue();
			assertThat(taker.isHeld()).as("after its own release").isFalse();
		}
		mine.close();
		other.close();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aLeasedHolderIsNotHeldOnceItsLeaseEndedByTheDatabaseClock(TestDatabase db) throws Exception {
		JdbcLockProvider provider = db.provider(JdbcLockSettings.defaults());
		String key = "holder-check-lease:" + System.nanoTime();
		Lease lease = provider.tryAcquire(new LockRequest(key, OwnerTokens.next(), Duration.ofMillis(100),
				LockMode.EXCLUSIVE, 1, OWNER)).orElseThrow();
		Thread.sleep(300);
		assertThat(lease.isHeld()).isFalse();
		provider.close();
	}

}
