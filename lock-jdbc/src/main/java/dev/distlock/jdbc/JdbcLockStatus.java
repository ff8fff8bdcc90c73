package dev.distlock.jdbc;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.StatusQuery;

/**
 * Status: the rows of a key prefix, grouped by key into one {@link LockInfo} per key. A shared key is reported through
 * the holder that matches the query's owner or lock ID (each as its own holder sees it), else its first holder; the
 * filters are then applied by {@link StatusQuery#matches}.
 */
final class JdbcLockStatus {

	private JdbcLockStatus() {
	}

	/** The LIKE pattern of a key prefix, with '!' as the escape character. */
	static String likePrefix(@org.jspecify.annotations.Nullable String prefix) {
		if (prefix == null) {
			return "%";
		}
		return prefix.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%";
	}

	static List<LockInfo> infos(List<LockRow> rows, StatusQuery query) {
		Map<String, List<LockRow>> byKey = new LinkedHashMap<>();
		for (LockRow row : rows) {
			byKey.computeIfAbsent(row.key(), k -> new ArrayList<>()).add(row);
		}
		List<LockInfo> out = new ArrayList<>();
		for (List<LockRow> keyRows : byKey.values()) {
			LockInfo info = info(keyRows, query);
			if (info != null && query.matches(info)) {
				out.add(info);
				if (out.size() >= query.limit()) {
					break;
				}
			}
		}
		return out;
	}

	private static @org.jspecify.annotations.Nullable LockInfo info(List<LockRow> rows, StatusQuery query) {
		LockRow keyRow = rows.stream().filter(LockRow::keyRow).findFirst().orElse(null);
		long fence = keyRow != null ? keyRow.fence() : rows.stream().mapToLong(LockRow::fence).max().orElse(0);
		if (keyRow != null && keyRow.live()) {
			return keyRow.info(1, fence);
		}
		List<LockRow> shared = rows.stream().filter(row -> !row.keyRow() && row.live()).toList();
		if (!shared.isEmpty()) {
			LockRow pick = shared.stream()
				.filter(row -> (query.lockId() == null || query.lockId().equals(row.lockId()))
						&& (query.owner() == null || query.owner().equals(row.owner())))
				.findFirst()
				.orElse(shared.get(0));
			return pick.info(shared.size(), fence);
		}
		if (keyRow != null && keyRow.everHeld()) {
			return keyRow.info(0, fence); // expired, not yet taken or released
		}
		return null;
	}

}
