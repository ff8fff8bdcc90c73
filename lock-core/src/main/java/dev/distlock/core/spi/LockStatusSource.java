package dev.distlock.core.spi;

import java.util.List;

/**
 * Optional provider capability: lists locks in the store.
 */
public interface LockStatusSource {

	/**
	 * The locks matching the query, sorted by key.
	 */
	List<LockInfo> status(StatusQuery query);

}
