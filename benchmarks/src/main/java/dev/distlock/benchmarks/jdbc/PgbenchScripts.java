package dev.distlock.benchmarks.jdbc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import dev.distlock.jdbc.JdbcDialect;
import dev.distlock.jdbc.JdbcLockProvider;
import dev.distlock.jdbc.JdbcLockSettings;

/**
 * The uncontended cycle of the floor and of the provider's plain exclusive lock as {@code pgbench} scripts, so that
 * the server's cost per cycle can be measured without a JVM on the same two cores: {@code pgbench} is a C client
 * that uses a fraction of a JDBC client's CPU. The provider's statements are read from the {@code lock-jdbc} on the
 * classpath (its grant: the insert that a first attempt on a key sends, without a conflict clause where it has that
 * one, or the upsert where it has neither; and its deleting release), so a jar of an earlier commit gives that
 * commit's cycle. Creates the floor's and the provider's tables on the database, then writes {@code floor.pgb} and
 * {@code distlock.pgb} to the directory. Each client locks a key of its own, new every cycle, built in SQL from
 * {@code :client_id} and a random {@code :n}; with {@code bound} after the directory, the key, token, owner name
 * and host are the pgbench variables {@code :key}, {@code :token}, {@code :owner} and {@code :host} instead, which
 * pgbench sends as bound parameters, as the provider binds them. Run by {@code benchmarks/pgbench-server-cost.sh}
 * and, {@code bound}, by {@code benchmarks/pgbench-callgrind.sh}:
 * {@code java -cp 'benchmarks.jar:lib/*' dev.distlock.benchmarks.jdbc.PgbenchScripts <jdbc url> <user> <directory>
 * [bound]}.
 */
public final class PgbenchScripts {

	private static final String KEY = "('k' || :client_id || ':' || :n)";

	private static final String TOKEN = "('t' || :n)";

	private static final String HEADER = "\\set n random(1, 2000000000)\n\\set lease 10000\n";

	private PgbenchScripts() {
	}

	public static void main(String[] args) throws Exception {
		String url = args[0];
		String user = args[1];
		Path directory = Path.of(args[2]);
		boolean bound = args.length > 3 && args[3].equals("bound");
		String key = bound ? ":key" : KEY;
		String token = bound ? ":token" : TOKEN;
		String owner = bound ? ":owner" : "'bench-owner'";
		String host = bound ? ":host" : "'bench-host'";
		try (Connection connection = DriverManager.getConnection(url, user, "")) {
			new JdbcLockProvider(new SingleConnectionDataSource(connection, true), JdbcDialect.POSTGRESQL,
					JdbcLockSettings.defaults()).createSchema();
			try (Statement statement = connection.createStatement()) {
				statement.execute(RawJdbcArm.schema(JdbcDialect.POSTGRESQL));
			}
		}
		write(directory.resolve("floor.pgb"), bind(RawJdbcArm.POSTGRES_ACQUIRE, List.of(key, token)),
				bind(RawJdbcArm.RELEASE, List.of(key, token)));
		// The first attempt on a key whose row the provider deleted itself: the insert without a conflict clause where
		// the lock-jdbc on the classpath has one, else the one with it, else the upsert.
		String grant = statement("insertExclusiveStrict");
		if (grant == null) {
			grant = statement("insertExclusive");
		}
		if (grant == null) {
			grant = statement("acquireExclusive");
		}
		// The key again where the insert takes the key's fencing lock.
		List<String> grantArgs = JdbcStatementVariants.takesFencingLock(grant)
				? List.of(key, token, owner, host, "NULL::varchar", key, ":lease::bigint", ":lease::bigint")
				: List.of(key, token, owner, host, "NULL::varchar", ":lease::bigint", ":lease::bigint");
		String notifying = statement("deleteExclusiveNotifying");
		String release = notifying != null
				? bind(notifying, List.of(key, token, "'" + JdbcLockSettings.DEFAULT_TABLE + "'"))
				: bind(statement("deleteExclusive"), List.of(key, token));
		write(directory.resolve("distlock.pgb"), bind(grant, grantArgs), release);
	}

	/**
	 * The provider's statement of that name for PostgreSQL ({@link JdbcStatementVariants#current}), or null when it has
	 * none: the {@code lock-jdbc} on the classpath may be an earlier commit's.
	 */
	private static @Nullable String statement(String name) {
		try {
			return JdbcStatementVariants.current(JdbcDialect.POSTGRESQL, name);
		}
		catch (IllegalStateException ex) {
			if (ex.getCause() instanceof NoSuchFieldException) {
				return null;
			}
			throw ex;
		}
	}

	/** The statement with its parameters replaced by pgbench expressions, in order. */
	private static String bind(String sql, List<String> values) {
		StringBuilder out = new StringBuilder();
		int next = 0;
		for (char c : sql.toCharArray()) {
			if (c == '?') {
				out.append(values.get(next++));
			}
			else {
				out.append(c);
			}
		}
		if (next != values.size()) {
			throw new IllegalStateException(next + " parameters in " + sql);
		}
		return out.toString();
	}

	private static void write(Path file, String acquire, String release) throws IOException {
		Files.writeString(file, HEADER + acquire + ";\n" + release + ";\n", StandardCharsets.UTF_8);
	}

}
