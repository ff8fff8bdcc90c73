package dev.distlock.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockRenewal;

/**
 * Release and renewal by lock ID: one read of the ID's records in the lock-ID table joined to the lock rows that still
 * carry them (see {@link LockStatements#recordLockId}), then the owner-checked statements of
 * {@link HolderCalls} per lock, by the token the row holds, so a lock granted to someone else meanwhile is never
 * touched. The holder's own handle then finds its lock gone (no release mark is left for it).
 */
final class JdbcLockIds {

	private static final long ADMIN_MS = TimeLimits.ADMIN.toMillis();

	private final LockDatabase database;

	private final LockStatements sql;

	private final HolderCalls calls;

	JdbcLockIds(LockDatabase database, LockStatements sql, HolderCalls calls) {
		this.database = database;
		this.sql = sql;
		this.calls = calls;
	}

	List<LockInfo> unlock(String lockId) {
		List<LockInfo> released = new ArrayList<>();
		for (LockRow row : rows(lockId)) {
			if (row.live()) {
				if (calls.release(row.key(), row.token(), !row.keyRow(), false, true, ADMIN_MS)) {
					released.add(row.info(1, row.fence()));
				}
			}
			else {
				clearExpired(row, lockId);
			}
		}
		return released;
	}

	LockRenewal renew(String lockId, Duration lease) {
		long leaseMs = TimeLimits.leaseMs("ttl", lease);
		java.util.Set<String> renewedRows = new java.util.HashSet<>();
		List<LockInfo> expired = new ArrayList<>();
		for (LockRow row : rows(lockId)) {
			if (row.live() && calls.extend(row.key(), row.token(), !row.keyRow(), leaseMs, leaseMs, ADMIN_MS)) {
				renewedRows.add(row.key() + '\0' + row.holder());
			}
			else {
				expired.add(row.info(0, row.fence()));
			}
		}
		// Read again, so the renewed locks show the database's renewal time and remaining lease.
		List<LockInfo> renewed = new ArrayList<>();
		for (LockRow row : rows(lockId)) {
			if (renewedRows.contains(row.key() + '\0' + row.holder())) {
				renewed.add(row.info(1, row.fence()));
			}
		}
		return new LockRenewal(lockId, renewed, expired);
	}

	/** The rows of the ID, newest grant first. */
	private List<LockRow> rows(String lockId) {
		JdbcAcquirer.checkText("lockId", lockId);
		return database.run(null, "read the locks of a lock ID", ADMIN_MS, false,
				session -> session.query(sql.lockIdRows, rs -> LockRow.read(rs, session.dialect()), lockId, lockId));
	}

	private void clearExpired(LockRow row, String lockId) {
		database.run(row.key(), "clear an expired lock ID", ADMIN_MS, false,
				session -> row.keyRow() ? session.update(sql.clearExpiredLockId, row.key(), lockId)
						: session.update(sql.clearExpiredSharedLockId, row.key(), row.holder(), lockId));
	}

}
