package dev.distlock.test.kit;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.OperatorSupport;
import dev.distlock.core.spi.StatusQuery;

/**
 * The leftover probe the kits run after every cell and every model step: the store's raw records whose name contains
 * a marker, each with how long it lives on its own. A store module implements this one method by reading its store
 * directly (Redis: {@code SCAN} and {@code PTTL}; MongoDB: the documents and their lease fields; a SQL store: its
 * table), so a record the provider's own status would not show still counts.
 */
@FunctionalInterface
public interface StoreRecords {

	/**
	 * Every record of the store whose name (key, document ID, row key) contains {@code marker}.
	 */
	List<StoreRecord> list(String marker);

	/**
	 * The default probe for a store without a direct view: the provider's own status, where a held lock without
	 * expiry is the only immortal record it can see.
	 */
	static StoreRecords viaStatus(OperatorSupport status) {
		return marker -> status.status(StatusQuery.all())
			.stream()
			.filter(info -> info.key().contains(marker))
			.map(StoreRecords::record)
			.toList();
	}

	private static StoreRecord record(LockInfo info) {
		return new StoreRecord(info.key(), info.held() && !info.expires() ? null : info.remaining(),
				info.toString());
	}

	/**
	 * One record in the store.
	 * @param name the record's name in the store: a key, a document ID, a row's key
	 * @param expiresIn how long until the store drops it on its own, or null if it never will
	 * @param detail what the record holds, for the failure message
	 */
	record StoreRecord(String name, @Nullable Duration expiresIn, String detail) {

		/** Whether the store keeps this record until someone deletes it. */
		public boolean immortal() {
			return expiresIn == null;
		}

	}

}
