package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

import dev.distlock.core.LockStoreException;

/**
 * Runs the provider's statements on a connection of its own, never the caller's: each unit of work borrows a
 * connection straight from the {@link DataSource} (not through Spring's transaction synchronisation, which would bind
 * it to a surrounding {@code @Transactional} until that ends), runs in autocommit or in one short READ COMMITTED
 * transaction, and gives the connection back at once. Every statement is bounded on the server: the
 * {@link StatementWatchdog} cancels it there once its bound passes, as the driver's query timeout would but without
 * its cost per statement (a timer task on pgjdbc, a {@code SET STATEMENT max_statement_time} prefix the server parses
 * and applies on Connector/J); the driver's query timeout bounds it when the watchdog has no free slot. SQL errors
 * become {@link LockStoreException}s naming the key and the operation.
 * <p>On MariaDB Connector/J the statements an uncontended cycle and a waiting attempt send
 * ({@link LockStatements#serverPrepared}) run as server-side prepared statements kept open on each connection,
 * whatever the pool's {@code useServerPrepStmts}: the server parses them once per connection instead of on every
 * call ({@link ConnectorJ}).
 */
final class LockDatabase {

	private static final Log logger = LogFactory.getLog(LockDatabase.class);

	/** A statement argument binding SQL NULL as a BIGINT (a plain null binds a VARCHAR NULL). */
	static final Object NULL_BIGINT = new Object();

	private final DataSource dataSource;

	private final JdbcDialect dialect;

	private final Set<String> serverPrepared;

	LockDatabase(DataSource dataSource, JdbcDialect dialect) {
		this(dataSource, dialect, Set.of());
	}

	/**
	 * @param serverPrepared the statements to prepare on the server where the driver is Connector/J (and would not
	 * already)
	 */
	LockDatabase(DataSource dataSource, JdbcDialect dialect, Set<String> serverPrepared) {
		this.dataSource = dataSource;
		this.dialect = dialect;
		this.serverPrepared = serverPrepared;
	}

	JdbcDialect dialect() {
		return dialect;
	}

	DataSource dataSource() {
		return dataSource;
	}

	/** Work on a session; may throw SQL errors. */
	@FunctionalInterface
	interface Work<T> {

		T apply(Session session) throws SQLException;

	}

	/**
	 * Runs the work on a connection of its own, in autocommit ({@code transaction} false) or in one transaction at READ
	 * COMMITTED that commits when the work returns and rolls back when it throws.
	 * @param boundMillis the bound of every statement (rounded up to whole seconds where the JDBC query timeout, whose
	 * unit they are, enforces it)
	 * @throws LockStoreException when the database could not be asked or a statement failed;
	 * {@link NotSentException} as its cause when nothing reached the server
	 */
	<T> T run(@Nullable String key, String operation, long boundMillis, boolean transaction, Work<T> work) {
		Connection connection;
		try {
			connection = borrow(boundMillis);
		}
		catch (SQLException | RuntimeException ex) {
			throw error(key, operation, new NotSentException(ex));
		}
		try {
			prepare(connection, transaction);
			Session session = new Session(connection, dialect, boundMillis, serverPrepared);
			T result = work.apply(session);
			if (transaction) {
				connection.commit();
			}
			return result;
		}
		catch (SQLException | RuntimeException ex) {
			if (transaction) {
				rollbackQuietly(connection);
			}
			if (ex instanceof LockStoreException store) {
				throw store;
			}
			throw error(key, operation, ex);
		}
		finally {
			restoreAndClose(connection, transaction);
		}
	}

	/**
	 * Borrows a connection, never giving up because of an interrupt: a pool that waits for a connection gives up when
	 * the thread is interrupted (HikariCP throws "Interrupted during connection acquisition"), while the drivers
	 * ignore interrupts once a statement is sent. A release interrupted there failed with nothing sent and left its
	 * lock held for the rest of its lease. Every call is bounded instead, and an interrupted borrow is tried again
	 * with the flag cleared until {@code boundMillis} have passed; the flag is set again afterwards, for the caller
	 * (the template) to act on.
	 */
	private Connection borrow(long boundMillis) throws SQLException {
		long deadline = System.nanoTime() + boundMillis * 1_000_000L;
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return dataSource.getConnection();
				}
				catch (SQLException ex) {
					// The pool sets the flag again before it throws; a failure of its own leaves it as it was.
					if (!Thread.interrupted()) {
						throw ex;
					}
					interrupted = true;
					if (System.nanoTime() - deadline >= 0) {
						throw ex;
					}
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Autocommit for a single statement, whose isolation does not matter (each reads and writes one key's rows by
	 * primary key); for a transaction, READ COMMITTED for that transaction only, set by its first statement, so the
	 * pooled connection's own level is never changed (and never read: pgjdbc reads it with a round trip).
	 */
	private static void prepare(Connection connection, boolean transaction) throws SQLException {
		if (connection.getAutoCommit() == transaction) {
			connection.setAutoCommit(!transaction);
		}
		if (transaction) {
			try (java.sql.Statement statement = connection.createStatement()) {
				statement.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED");
			}
		}
	}

	private static void restoreAndClose(Connection connection, boolean transaction) {
		try {
			if (transaction && !connection.isClosed()) {
				connection.setAutoCommit(true);
			}
		}
		catch (SQLException ex) {
			logger.debug("Could not reset autocommit on a lock connection", ex);
		}
		try {
			connection.close();
		}
		catch (SQLException ex) {
			logger.debug("Could not return a lock connection", ex);
		}
	}

	private static void rollbackQuietly(Connection connection) {
		try {
			if (!connection.isClosed()) {
				connection.rollback();
			}
		}
		catch (SQLException ex) {
			logger.debug("Could not roll back a lock transaction", ex);
		}
	}

	private static LockStoreException error(@Nullable String key, String operation, Throwable cause) {
		String where = key != null ? " for '" + key + "'" : "";
		String state = cause instanceof SQLException sql && sql.getSQLState() != null
				? " (SQLState " + sql.getSQLState() + ")" : "";
		return new LockStoreException(key,
				"JDBC lock store failed to " + operation + where + state + ": " + cause.getMessage(), cause);
	}

	/**
	 * Whether a failed call may still have been applied on the server: anything but a connection that could not be
	 * borrowed, or an error the server raised having rolled the statement back (a deadlock, a serialisation failure, a
	 * constraint or syntax error).
	 */
	static boolean mayHaveRun(@Nullable Throwable error) {
		if (error == null || error instanceof NotSentException) {
			return false;
		}
		if (error instanceof SQLException sql && sql.getSQLState() != null) {
			String state = sql.getSQLState();
			return !(isRolledBack(sql) || state.startsWith("23") || state.startsWith("42"));
		}
		return true;
	}

	/**
	 * Whether the server rolled the statement (or transaction) back to break a deadlock or a serialisation conflict, as
	 * opposed to a lock wait that timed out: running it again at once is what the server asks for.
	 */
	static boolean isDeadlock(@Nullable Throwable error) {
		if (!(error instanceof SQLException sql)) {
			return false;
		}
		String state = sql.getSQLState();
		return "40001".equals(state) || "40P01".equals(state) || sql.getErrorCode() == 1213;
	}

	/**
	 * Whether a statement met a row with its key (PostgreSQL's unique violation, SQLState 23505): the server rolled it
	 * back, and in autocommit the connection goes on.
	 */
	static boolean isUniqueViolation(SQLException error) {
		return "23505".equals(error.getSQLState());
	}

	/**
	 * Whether the server rolled the statement back: to break a deadlock or a serialisation conflict
	 * ({@link #isDeadlock}), or, on MySQL/MariaDB, because a lock wait timed out (1205).
	 */
	static boolean isRolledBack(@Nullable Throwable error) {
		return isDeadlock(error) || error instanceof SQLException sql && sql.getErrorCode() == 1205;
	}

	/** Nothing was sent: the connection could not be borrowed. */
	static final class NotSentException extends SQLException {

		private static final long serialVersionUID = 1L;

		NotSentException(Throwable cause) {
			super("No connection could be borrowed from the DataSource: " + cause.getMessage(), "08001", cause);
		}

	}

	/** A kept statement found the watchdog without a free slot before it was sent. */
	private static final class NoSlotException extends SQLException {

		private static final long serialVersionUID = 1L;

		NoSlotException() {
			super("The statement watchdog has no free slot", "HY000");
		}

	}

	/**
	 * One connection's statements, each bounded: watched by the {@link StatementWatchdog} while it runs, or carrying the
	 * driver's query timeout when the watchdog has no free slot.
	 */
	static final class Session {

		private final Connection connection;

		private final JdbcDialect dialect;

		private final long boundMillis;

		private final Set<String> serverPrepared;

		/** The kept statement the current call runs, if it runs one ({@link ConnectorJ}). */
		private @Nullable PreparedStatement keptStatement;

		Session(Connection connection, JdbcDialect dialect, long boundMillis, Set<String> serverPrepared) {
			this.connection = connection;
			this.dialect = dialect;
			this.boundMillis = boundMillis;
			this.serverPrepared = serverPrepared;
		}

		/** The bound as a JDBC query timeout: whole seconds, rounded up. */
		private int timeoutSeconds() {
			return (int) Math.min(Integer.MAX_VALUE, Math.max(1, (boundMillis + 999) / 1000));
		}

		/** Runs an INSERT, UPDATE or DELETE and returns the rows it matched. */
		int update(String sql, Object... args) throws SQLException {
			return run(sql, false, args, this::executeUpdate);
		}

		/** Executes an INSERT, UPDATE or DELETE while the watchdog watches it. */
		private int executeUpdate(PreparedStatement statement) throws SQLException {
			return watched(statement, PreparedStatement::executeUpdate);
		}

		/**
		 * Runs a statement that writes at most one row and hands back one number for it (a fencing token, a lease
		 * left), and returns the number, or null when it wrote nothing: RETURNING on PostgreSQL, the OK packet's
		 * LAST_INSERT_ID on MariaDB.
		 */
		@Nullable
		Long returning(String sql, Object... args) throws SQLException {
			if (dialect.returning()) {
				return run(sql, false, args, statement -> {
					try (ResultSet rs = execute(statement)) {
						return rs.next() ? rs.getLong(1) : null;
					}
				});
			}
			return run(sql, true, args, statement -> {
				if (executeUpdate(statement) == 0) {
					return null;
				}
				try (ResultSet keys = statement.getGeneratedKeys()) {
					if (!keys.next()) {
						throw new SQLException("The database handed back no value for a written row", "HY000");
					}
					return keys.getLong(1);
				}
			});
		}

		/**
		 * Runs a statement that writes at most one row and returns two numbers for it (PostgreSQL's RETURNING), and
		 * returns them, or null when it wrote nothing.
		 */
		long @Nullable [] returningTwo(String sql, Object... args) throws SQLException {
			return run(sql, false, args, statement -> {
				try (ResultSet rs = execute(statement)) {
					return rs.next() ? new long[] { rs.getLong(1), rs.getLong(2) } : null;
				}
			});
		}

		/** One value per row. */
		<T> List<T> query(String sql, RowReader<T> reader, Object... args) throws SQLException {
			return run(sql, false, args, statement -> {
				try (ResultSet rs = execute(statement)) {
					List<T> rows = new ArrayList<>();
					while (rs.next()) {
						rows.add(reader.read(rs));
					}
					return rows;
				}
			});
		}

		/**
		 * Prepares the statement, binds the arguments and runs the execution on it. A statement the connection keeps
		 * prepared on the server ({@link ConnectorJ}) stays open afterwards. When the server ran nothing of it (it no
		 * longer knows it, or asks for it to be prepared again) or the watchdog had no slot for it, the call runs once
		 * more as a plain statement; in the first case the connection's kept statements are dropped, to be prepared
		 * again by the next call.
		 */
		private <T> T run(String sql, boolean keys, Object[] args, Execution<T> execution) throws SQLException {
			ConnectorJ.Kept kept = serverPrepared.contains(sql) ? ConnectorJ.claim(connection) : null;
			if (kept != null) {
				try {
					PreparedStatement statement = kept.statement(sql, keys);
					if (statement != null) {
						bindAll(statement, args);
						keptStatement = statement;
						return execution.run(statement);
					}
				}
				catch (NoSlotException ex) {
					// Nothing was sent: the plain statement below carries the driver's query timeout instead.
				}
				catch (SQLException ex) {
					if (!ConnectorJ.ranNothing(ex)) {
						throw ex;
					}
					kept.clear();
				}
				finally {
					keptStatement = null;
					kept.release();
				}
			}
			try (PreparedStatement statement = keys ? connection.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS)
					: connection.prepareStatement(sql)) {
				bindAll(statement, args);
				return execution.run(statement);
			}
		}

		/** Executes a query while the watchdog watches it (the rows are read in by then: no fetch size is set). */
		private ResultSet execute(PreparedStatement statement) throws SQLException {
			return watched(statement, PreparedStatement::executeQuery);
		}

		/** Runs the statement while the watchdog watches it, the slot given back however it ends. */
		private <T> T watched(PreparedStatement statement, Execution<T> execution) throws SQLException {
			int slot = watch(statement);
			try {
				return execution.run(statement);
			}
			finally {
				StatementWatchdog.SHARED.release(slot);
			}
		}

		/**
		 * Puts a statement under the watchdog, or under the driver's query timeout when no slot is free.
		 * @return the slot to release, {@code -1} when the driver's timeout bounds it
		 */
		private int watch(PreparedStatement statement) throws SQLException {
			int slot = StatementWatchdog.SHARED.watch(statement, boundMillis);
			if (slot < 0) {
				if (statement == keptStatement) {
					// Connector/J closes a server-side statement to set its timeout, and a prepare that fails over to
					// text does not carry the timeout across: such a call runs as a plain statement instead.
					throw new NoSlotException();
				}
				statement.setQueryTimeout(timeoutSeconds());
			}
			return slot;
		}

		private static void bindAll(PreparedStatement statement, Object[] args) throws SQLException {
			for (int i = 0; i < args.length; i++) {
				bind(statement, i + 1, args[i]);
			}
		}

		/**
		 * Binds text with {@code setString}, which goes straight to the driver's string encoder where {@code setObject}
		 * makes Connector/J try its array, unsupported-type and string checks first; numbers keep {@code setObject},
		 * which hands the caller's boxed value on as it is (Connector/J's {@code setLong} boxes its argument again, and
		 * pgjdbc's {@code setObject} of a number is its typed setter).
		 */
		private static void bind(PreparedStatement statement, int index, @Nullable Object arg) throws SQLException {
			if (arg instanceof String text) {
				statement.setString(index, text);
			}
			else if (arg == null) {
				statement.setNull(index, java.sql.Types.VARCHAR);
			}
			else if (arg == NULL_BIGINT) {
				statement.setNull(index, java.sql.Types.BIGINT);
			}
			else {
				statement.setObject(index, arg);
			}
		}

		JdbcDialect dialect() {
			return dialect;
		}

	}

	/**
	 * Server-side prepared statements on MariaDB Connector/J 3, kept open on each connection. Connector/J sends every
	 * statement as text unless the URL says {@code useServerPrepStmts=true}, and the server then parses the whole text
	 * on every call; the provider's statements are long (a dozen columns, the clock, the sequence). Prepared on the
	 * server once per connection, each call sends the statement's handle and the bound values: measured at 8
	 * threads, the server's CPU per uncontended cycle fell by a third, below the floor's text statements
	 * (docs/BENCHMARKS.md).
	 * <p>Connector/J caches such statements only where the URL turns them on for all, so the provider keeps its own:
	 * the statements of {@link LockStatements#serverPrepared}, open, per physical connection (found by unwrapping the
	 * pool's), used by one thread at a time. They are closed with the connection; the table of them
	 * drops closed connections whenever a new one is added, and holds at most {@link #CONNECTIONS}. Where the URL
	 * prepares on the server already, with any other driver, where Connector/J lacks what this calls (before 3.0) or
	 * where the settings turn it off ({@link JdbcLockSettings#serverPrepares}), it does nothing and the statement is
	 * prepared as every other is. Its classes are loaded only where Connector/J is present.
	 */
	private static final class ConnectorJ {

		private static final boolean PRESENT = present();

		/** Connections beyond this many (all open) prepare as every other statement does. */
		static final int CONNECTIONS = 1_024;

		/**
		 * Statements kept per connection, at most: two tables' worth (providers on other tables of the same pool
		 * prepare theirs as every other statement once this many are kept), so their count on the server stays
		 * bounded by the pool's size whatever runs on it.
		 */
		static final int STATEMENTS = 14;

		/** Each connection's open statements (the key is the driver's connection: equal only to itself). */
		private static final Map<Object, Kept> OPEN = new ConcurrentHashMap<>();

		/** Until when a full table is not swept again ({@link System#nanoTime}). */
		private static volatile long fullUntil;

		/** Set when a connection could not be unwrapped to Connector/J's: never tried again. */
		private static volatile boolean refused;

		private ConnectorJ() {
		}

		/** Whether Connector/J is on the class path with what this calls (3.0 and later). */
		private static boolean present() {
			ClassLoader loader = LockDatabase.class.getClassLoader();
			if (!ClassUtils.isPresent("org.mariadb.jdbc.Connection", loader)) {
				return false;
			}
			Class<?> connection = ClassUtils.resolveClassName("org.mariadb.jdbc.Connection", loader);
			return ClassUtils.hasMethod(connection, "prepareInternal", String.class, int.class, int.class, int.class,
					boolean.class) && ClassUtils.hasMethod(connection, "getContext");
		}

		/**
		 * The connection's open statements, claimed for the calling thread until {@link Kept#release}; null where this
		 * does not apply, or while another thread has them (a connection shared between threads, as Spring's
		 * {@code SingleConnectionDataSource} shares one: a statement bound by two threads at once would run with the
		 * other's values). Not where the URL prepares on the server already (the driver's own cache does it), nor
		 * where Connector/J resets the session on every return to its pool ({@code useResetConnection}: every borrow
		 * would prepare again). A wrapper that cannot be unwrapped turns this off for good.
		 */
		static @Nullable Kept claim(Connection connection) {
			if (!PRESENT || refused) {
				return null;
			}
			org.mariadb.jdbc.Connection driver;
			try {
				if (!connection.isWrapperFor(org.mariadb.jdbc.Connection.class)) {
					return null;
				}
				driver = connection.unwrap(org.mariadb.jdbc.Connection.class);
			}
			catch (SQLException | RuntimeException | LinkageError ex) {
				refused = true;
				logger.debug("Lock statements are not prepared on the server: the connection cannot be unwrapped", ex);
				return null;
			}
			org.mariadb.jdbc.Configuration conf = driver.getContext().getConf();
			if (conf.useServerPrepStmts() || conf.useResetConnection()) {
				return null;
			}
			Kept kept = OPEN.get(driver);
			if (kept == null) {
				kept = add(driver);
				if (kept == null) {
					return null;
				}
			}
			if (!kept.busy.compareAndSet(false, true)) {
				return null;
			}
			kept.sameSession();
			return kept;
		}

		/** A new connection's entry, after dropping closed connections'; null when the table is full. */
		private static @Nullable Kept add(org.mariadb.jdbc.Connection driver) {
			synchronized (OPEN) {
				Kept kept = OPEN.get(driver);
				if (kept != null) {
					return kept;
				}
				if (OPEN.size() >= CONNECTIONS && System.nanoTime() - fullUntil < 0) {
					return null;
				}
				OPEN.values().removeIf(open -> open.driver.isClosed());
				if (OPEN.size() >= CONNECTIONS) {
					fullUntil = System.nanoTime() + 1_000_000_000L;
					return null;
				}
				kept = new Kept(driver);
				OPEN.put(driver, kept);
				return kept;
			}
		}

		/**
		 * The server ran nothing: it no longer knows the statement (1243, its session was reset) or asks for it to be
		 * prepared again (1615, a table it reads was altered).
		 */
		static boolean ranNothing(SQLException ex) {
			return ex.getErrorCode() == 1243 || ex.getErrorCode() == 1615;
		}

		/** One connection's open statements by text. */
		static final class Kept {

			private final org.mariadb.jdbc.Connection driver;

			private final Map<String, PreparedStatement> statements = new HashMap<>();

			private final AtomicBoolean busy = new AtomicBoolean();

			/** The server session the statements were prepared in. */
			private long session;

			Kept(org.mariadb.jdbc.Connection driver) {
				this.driver = driver;
				this.session = driver.getContext().getThreadId();
			}

			/**
			 * Drops the statements when the connection now talks to another server session (a failover URL reconnects
			 * under the same connection): the new session numbers its statements afresh, so an old handle could name
			 * another statement there.
			 */
			void sameSession() {
				long now = driver.getContext().getThreadId();
				if (now != session) {
					statements.clear();
					session = now;
				}
			}

			/** The open statement, prepared on the server the first time; null when the connection keeps enough. */
			@Nullable
			PreparedStatement statement(String sql, boolean keys) throws SQLException {
				PreparedStatement statement = statements.get(sql);
				if (statement == null || statement.isClosed()) {
					if (statement == null && statements.size() >= STATEMENTS) {
						return null;
					}
					statement = driver.prepareInternal(sql, keys ? Statement.RETURN_GENERATED_KEYS
							: Statement.NO_GENERATED_KEYS, ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY, true);
					statements.put(sql, statement);
				}
				return statement;
			}

			/** Drops the statements, which the connection's server session no longer has. */
			void clear() {
				statements.clear();
			}

			void release() {
				busy.set(false);
			}

		}

	}

	/** Executes a prepared statement. */
	@FunctionalInterface
	private interface Execution<T> {

		T run(PreparedStatement statement) throws SQLException;

	}

	/** Reads one row. */
	@FunctionalInterface
	interface RowReader<T> {

		T read(ResultSet rs) throws SQLException;

	}

}
