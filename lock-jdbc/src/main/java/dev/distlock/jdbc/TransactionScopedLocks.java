package dev.distlock.jdbc;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.distlock.core.InvalidLockOptionException;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockKeys;
import dev.distlock.core.LockStoreException;

/**
 * Locks held exactly as long as the caller's Spring transaction, on PostgreSQL: {@code pg_advisory_xact_lock} on the
 * transaction's own connection (through {@link DataSourceUtils}, so it is the connection the transaction manager bound
 * for this DataSource). The server releases the lock when that transaction commits or rolls back, and at no other
 * time: there is no lease, no release call, no fencing token and nothing to renew, and a crashed client's lock ends
 * with its connection. Unlike {@link JdbcLockProvider}'s locks, these are tied to the caller's transaction on purpose:
 * use them when the lock guards exactly the writes of that transaction.
 * <p>Keys are hashed to the {@code bigint} advisory lock key: the first 8 bytes of the SHA-256 of the key's UTF-8
 * bytes ({@link #advisoryKey(String)}). Two keys whose hashes collide (probability about n²/2⁶⁵ among n keys) share
 * one lock: they exclude each other more than needed, never less. Advisory locks are per database, so other code
 * that takes advisory locks on the same database shares this key space.
 * <p>Waiting is the server's: the caller queues on the lock and is granted it the moment the holder's transaction
 * ends, bounded by {@code lock_timeout} set for that one statement inside a savepoint, so a timed-out wait leaves the
 * caller's transaction usable and its own {@code lock_timeout} unchanged.
 */
public final class TransactionScopedLocks {

	/** SQLState of a lock wait that ran past {@code lock_timeout}. */
	private static final String LOCK_NOT_AVAILABLE = "55P03";

	private final DataSource dataSource;

	/**
	 * Locks on the transactions of this DataSource; pass the same DataSource the transaction manager uses.
	 */
	public TransactionScopedLocks(DataSource dataSource) {
		// As the transaction managers do: they bind the proxy's target, whose bound connection the proxy hands out.
		this.dataSource = dataSource instanceof TransactionAwareDataSourceProxy proxy
				? proxy.getTargetDataSource() : dataSource;
	}

	/**
	 * Takes the key's lock for the rest of the current transaction if no other transaction holds it; does not wait.
	 * Taking a lock the transaction holds already succeeds.
	 * @return whether the transaction now holds the lock
	 * @throws IllegalTransactionStateException if no transaction is active on this DataSource
	 * @throws LockStoreException if the database is not PostgreSQL or the statement failed
	 * @throws LockAcquisitionException if the thread is interrupted; nothing is sent then, and the flag is kept
	 * @throws dev.distlock.core.InvalidLockKeyException if the key is null, blank, too long or malformed (as every
	 * lock key is checked); nothing is sent then
	 */
	public boolean tryLock(String key) {
		long advisory = advisoryKey(LockKeys.validate(key));
		if (Thread.currentThread().isInterrupted()) {
			throw interrupted(key, "not tried: the thread was interrupted before it", 0, System.nanoTime());
		}
		return onTransactionConnection(key, connection -> {
			try (PreparedStatement statement = connection.prepareStatement("SELECT pg_try_advisory_xact_lock(?)")) {
				statement.setLong(1, advisory);
				try (ResultSet rs = statement.executeQuery()) {
					rs.next();
					return rs.getBoolean(1);
				}
			}
		});
	}

	/**
	 * Takes the key's lock for the rest of the current transaction, waiting up to {@code wait} for the transaction
	 * that holds it to end. A wait that runs out leaves the transaction as it was (usable, its {@code lock_timeout}
	 * unchanged).
	 * @param wait how long to wait at most; zero does not wait (as {@link #tryLock(String)})
	 * @return whether the transaction now holds the lock
	 * @throws IllegalTransactionStateException if no transaction is active on this DataSource
	 * @throws LockStoreException if the database is not PostgreSQL or a statement failed
	 * @throws IllegalArgumentException if {@code wait} is negative
	 * @throws LockAcquisitionException if the thread is interrupted before the first try or while it waits (the flag
	 * kept; an interrupt cannot cut the server's wait short, so it is seen when that ends, and a lock granted then
	 * still ends with the transaction)
	 * @throws InvalidLockOptionException naming {@code wait} if it is null
	 * @throws dev.distlock.core.InvalidLockKeyException if the key is null, blank, too long or malformed; nothing is
	 * sent then
	 */
	public boolean lock(String key, Duration wait) {
		LockKeys.validate(key);
		if (wait == null) {
			throw new InvalidLockOptionException("wait", "must not be null");
		}
		if (wait.isNegative()) {
			throw new IllegalArgumentException("wait must not be negative: " + wait);
		}
		if (tryLock(key)) {
			return true;
		}
		if (wait.isZero()) {
			return false;
		}
		long advisory = advisoryKey(key);
		long start = System.nanoTime();
		long deadline = start + Math.min(wait.toNanos(), Long.MAX_VALUE / 4);
		while (true) {
			long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
			// lock_timeout takes at most Integer.MAX_VALUE ms (24.8 days): a longer wait is waited in such turns.
			if (Thread.currentThread().isInterrupted()) {
				throw interrupted(key, "not waited for: the thread was interrupted", 1, start);
			}
			boolean granted = waitFor(key, advisory, Math.max(1, Math.min(left, Integer.MAX_VALUE)));
			if (Thread.currentThread().isInterrupted()) {
				// The driver cannot stop a statement for an interrupt: it is seen once the server's wait ends.
				throw interrupted(key, "waited for while the thread was interrupted; " + (granted
						? "the lock was granted and ends with the transaction" : "the lock was not granted"), 1, start);
			}
			if (granted) {
				return true;
			}
			if (left <= Integer.MAX_VALUE) {
				return false;
			}
		}
	}

	/** The error of an interrupted thread, whose flag is kept. */
	private static LockAcquisitionException interrupted(String key, String what, int attempts, long startNanos) {
		return new LockAcquisitionException(key, "Transaction-scoped lock on '" + key + "' " + what
				+ " (the flag is kept)", attempts, Duration.ofNanos(System.nanoTime() - startNanos), null);
	}

	/**
	 * Queues for the lock for at most {@code millis} (1 to {@link Integer#MAX_VALUE}), in a savepoint.
	 */
	private boolean waitFor(String key, long advisory, long millis) {
		return onTransactionConnection(key, connection -> {
			Savepoint savepoint = connection.setSavepoint();
			try {
				String previousLockTimeout;
				String previousStatementTimeout;
				// lock_timeout bounds the wait; a statement_timeout of the role or database, often shorter, would
				// cut it short with another error, so it is off for this statement (the driver's bound stays).
				try (PreparedStatement statement = connection.prepareStatement(
						"SELECT current_setting('lock_timeout'), current_setting('statement_timeout'), "
								+ "set_config('lock_timeout', ?, true), set_config('statement_timeout', '0', true)")) {
					statement.setString(1, millis + "ms");
					try (ResultSet rs = statement.executeQuery()) {
						rs.next();
						previousLockTimeout = rs.getString(1);
						previousStatementTimeout = rs.getString(2);
					}
				}
				try (PreparedStatement statement = connection.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
					// The driver's bound too, past the server's, for a server that stops answering.
					statement.setQueryTimeout((int) Math.min(Integer.MAX_VALUE, millis / 1000 + 30));
					statement.setLong(1, advisory);
					statement.execute();
				}
				try (PreparedStatement statement = connection.prepareStatement(
						"SELECT set_config('lock_timeout', ?, true), set_config('statement_timeout', ?, true)")) {
					statement.setString(1, previousLockTimeout);
					statement.setString(2, previousStatementTimeout);
					statement.execute();
				}
				// The lock moves to the transaction: a released savepoint's locks are its parent's.
				connection.releaseSavepoint(savepoint);
				return true;
			}
			catch (SQLException ex) {
				// Undoes the wait's error (and the lock_timeout of this wait), so the transaction goes on.
				connection.rollback(savepoint);
				if (LOCK_NOT_AVAILABLE.equals(ex.getSQLState())) {
					return false;
				}
				throw ex;
			}
		});
	}

	/**
	 * The {@code bigint} advisory lock key of a key: the first 8 bytes (big-endian) of the SHA-256 of its UTF-8
	 * bytes. {@code pg_locks} shows it as {@code classid} (high 32 bits) and {@code objid} (low 32 bits) with
	 * {@code objsubid = 1}.
	 */
	public static long advisoryKey(String key) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
			return ByteBuffer.wrap(digest, 0, Long.BYTES).getLong();
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is always available", ex);
		}
	}

	@FunctionalInterface
	private interface Work<T> {

		T apply(Connection connection) throws SQLException;

	}

	private <T> T onTransactionConnection(String key, Work<T> work) {
		if (!TransactionSynchronizationManager.isActualTransactionActive()) {
			throw new IllegalTransactionStateException("A transaction-scoped lock on '" + key
					+ "' needs an active transaction (@Transactional or a TransactionTemplate); none is active");
		}
		if (!TransactionSynchronizationManager.hasResource(dataSource)) {
			// The transaction runs on another DataSource (or a JPA one that exposes no JDBC connection): a
			// connection of this one would be a side connection, holding the lock past the transaction.
			throw new IllegalTransactionStateException("A transaction-scoped lock on '" + key + "' needs a "
					+ "transaction on this DataSource; the active one runs on another (pass the DataSource its "
					+ "transaction manager uses)");
		}
		Connection connection = DataSourceUtils.getConnection(dataSource);
		try {
			if (connection.getAutoCommit()) {
				// A connection of its own, not the transaction's: the lock would end with the statement.
				throw new IllegalTransactionStateException("A transaction-scoped lock on '" + key + "' needs a "
						+ "transaction on this DataSource; the active one runs on another (pass the DataSource its "
						+ "transaction manager uses)");
			}
			String product = connection.getMetaData().getDatabaseProductName();
			if (!product.toLowerCase(Locale.ROOT).contains("postgresql")) {
				throw new LockStoreException(key, "Transaction-scoped locks need PostgreSQL (pg_advisory_xact_lock); "
						+ "the database is " + product, null);
			}
			return work.apply(connection);
		}
		catch (SQLException ex) {
			String state = ex.getSQLState() != null ? " (SQLState " + ex.getSQLState() + ")" : "";
			throw new LockStoreException(key, "Transaction-scoped lock on '" + key + "' failed" + state + ": "
					+ ex.getMessage(), ex);
		}
		finally {
			DataSourceUtils.releaseConnection(connection, dataSource);
		}
	}

}
