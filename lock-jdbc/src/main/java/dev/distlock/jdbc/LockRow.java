package dev.distlock.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.LockMode;
import dev.distlock.core.spi.LockInfo;

/**
 * One row of the lock table as status and the lock-ID calls read it ({@link LockStatements#INFO_COLUMNS}).
 * @param key the lock key
 * @param holder {@code ""} for the key's row, else a shared holder's owner token
 * @param token the exclusive holder's owner token (key row), or the shared holder's
 * @param remainingMicros time left on the lease by the database clock
 */
record LockRow(String key, String holder, @Nullable String token, @Nullable String owner, @Nullable String host,
		@Nullable String lockId, long fence, @Nullable Instant acquiredAt, @Nullable Instant renewedAt,
		@Nullable Long nominalLeaseMs, long remainingMicros) {

	static LockRow read(ResultSet rs, JdbcDialect dialect) throws SQLException {
		long lease = rs.getLong("ttl_ms");
		Long nominalLeaseMs = rs.wasNull() ? null : lease;
		return new LockRow(rs.getString("lock_key"), rs.getString("holder"), rs.getString("token"),
				rs.getString("owner_name"), rs.getString("owner_host"), rs.getString("lock_id"), rs.getLong("fence"),
				dialect.instant(rs, "acquired_at"), dialect.instant(rs, "renewed_at"), nominalLeaseMs,
				rs.getLong("remaining_us"));
	}

	boolean keyRow() {
		return holder.isEmpty();
	}

	/** Whether this row is a live holder: an exclusive holder on the key row, or a live shared holder. */
	boolean live() {
		return remainingMicros > 0 && (!keyRow() || token != null);
	}

	/** Whether this row was a holder at all (a key row whose holder released it is not). */
	boolean everHeld() {
		return !keyRow() || token != null;
	}

	/** The info of this holder, with {@code holders} holders on the key and the key's latest fencing token. */
	LockInfo info(int holders, long keyFence) {
		Duration nominalLease = nominalLeaseMs != null ? Duration.ofMillis(nominalLeaseMs) : null;
		Duration remaining = nominalLease == null && live() ? LockInfo.NO_EXPIRY
				: Duration.ofNanos(remainingMicros * 1_000L);
		return new LockInfo(key, keyRow() ? LockMode.EXCLUSIVE : LockMode.SHARED, owner, host, keyFence, acquiredAt,
				remaining, holders, lockId, renewedAt, nominalLease);
	}

}
