package dev.distlock.jdbc;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import org.springframework.jdbc.core.JdbcTemplate;

import dev.distlock.core.InvalidLockOptionException;

/**
 * The resource side of fencing: a write that applies only if the caller's fencing token is newer than the one the
 * row last saw, and records it, in one statement
 * ({@code UPDATE t SET …, fence = :token WHERE … AND (fence IS NULL OR fence < :token)}). A holder that paused past
 * its lease while another took the lock then finds its write refused instead of overwriting the newer holder's. It
 * runs on the application's {@link JdbcTemplate}, so, unlike lock statements, it joins the caller's transaction.
 */
public final class FencingGuard {

	private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

	private final JdbcTemplate jdbc;

	private final String table;

	private final String fenceColumn;

	/**
	 * A guard for writes to {@code table} whose {@code fenceColumn} (a nullable BIGINT) holds the last token applied.
	 * @throws InvalidLockOptionException naming {@code table} or {@code fenceColumn} if it is not a plain identifier
	 */
	public FencingGuard(JdbcTemplate jdbc, String table, String fenceColumn) {
		this.jdbc = jdbc;
		this.table = identifier("table", table);
		this.fenceColumn = identifier("fenceColumn", fenceColumn);
	}

	/**
	 * Updates the rows {@code where} selects with {@code set}, if the token is newer than theirs.
	 * @param set the assignments, such as {@code "balance = ?"}; its {@code ?} come first in {@code args}
	 * @param where the row condition, such as {@code "id = ?"}; its {@code ?} follow in {@code args}
	 * @return how many rows were written: 0 when the rows saw a newer (or the same) token, or none matched
	 */
	public int update(String set, String where, long fencingToken, Object... args) {
		int setParams = count(set);
		if (setParams + count(where) != args.length) {
			throw new IllegalArgumentException("The statement has " + (setParams + count(where))
					+ " parameters but " + args.length + " arguments were given");
		}
		String sql = "UPDATE " + table + " SET " + set + ", " + fenceColumn + " = ? WHERE (" + where + ") AND ("
				+ fenceColumn + " IS NULL OR " + fenceColumn + " < ?)";
		List<Object> all = new ArrayList<>(args.length + 2);
		for (int i = 0; i < setParams; i++) {
			all.add(args[i]);
		}
		all.add(fencingToken);
		for (int i = setParams; i < args.length; i++) {
			all.add(args[i]);
		}
		all.add(fencingToken);
		return jdbc.update(sql, all.toArray());
	}

	private static int count(String fragment) {
		int n = 0;
		for (int i = 0; i < fragment.length(); i++) {
			if (fragment.charAt(i) == '?') {
				n++;
			}
		}
		return n;
	}

	private static String identifier(String option, String name) {
		if (name == null || !IDENTIFIER.matcher(name).matches()) {
			throw new InvalidLockOptionException(option, "'" + name + "' is not a plain SQL identifier");
		}
		return name;
	}

}
