package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.springframework.data.redis.core.Cursor;

import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.StatusQuery;

/**
 * One status query's walk over SCAN cursors: the lock keys gathered page by page, each page read in one go, and the
 * matches kept until the query's limit, so scanning stops once it is reached.
 */
final class StatusPages {

	private final StatusQuery query;

	private final RedisKeys keys;

	private final List<LockInfo> found = new ArrayList<>();

	StatusPages(StatusQuery query, RedisKeys keys) {
		this.query = query;
		this.keys = keys;
	}

	/**
	 * Reads the cursor's lock keys page by page (a page ends where the server's SCAN page ends, or at
	 * {@link RedisLockStatus#BATCH} keys) and keeps the matches.
	 * @return false once the limit is reached, so no further node is scanned
	 */
	boolean scan(Cursor<byte[]> cursor, PageReader reader) {
		try (cursor) {
			List<String> page = new ArrayList<>();
			while (true) {
				long scanned = cursor.getCursorId();
				boolean more = cursor.hasNext();
				if (!page.isEmpty()
						&& (!more || page.size() >= RedisLockStatus.BATCH || cursor.getCursorId() != scanned)) {
					// hasNext() fetched a new SCAN page (or there is none): the previous page is complete.
					if (!keep(reader.read(page))) {
						return false;
					}
					page = new ArrayList<>();
				}
				if (!more) {
					return true;
				}
				String key = keys.keyOfLock(new String(cursor.next(), StandardCharsets.UTF_8));
				if (key != null) {
					page.add(key);
				}
			}
		}
	}

	/** The matches found so far. */
	List<LockInfo> found() {
		return found;
	}

	/**
	 * Keeps the rows that match. The owner filter matches any live holder of a shared lock, not only the one its row
	 * reports, as on every store.
	 */
	private boolean keep(List<Row> rows) {
		String owner = query.owner();
		StatusQuery everyOwner = query.withOwner(null);
		for (Row row : rows) {
			LockInfo info = row.info();
			if (everyOwner.matches(info) && (owner == null || owner.equals(info.owner())
					|| row.holderOwners().contains(owner))) {
				found.add(info);
				if (found.size() >= query.limit()) {
					return false;
				}
			}
		}
		return true;
	}

	/** Reads a page's lock keys in one go. */
	@FunctionalInterface
	interface PageReader {

		List<Row> read(List<String> lockKeys);

	}

	/**
	 * One status row, and the owners of the lock's live shared holders (empty for an exclusive lock).
	 */
	record Row(LockInfo info, List<String> holderOwners) {
	}

}
