package dev.distlock.core.spi;

import java.time.Duration;
import java.util.List;

/**
 * Optional provider capability: locks under a caller-chosen lock ID, which groups them for release and renewal from
 * any process, and locks without expiry. A provider implementing it stores {@link LockRequest#lockId()} with each
 * lock, refuses a second live shared lock of the same ID on one key, and keeps a {@link LockRequest#noExpiry()} lock
 * until it is released. Whoever knows a lock ID can release or renew every lock taken under it: the ID is a
 * capability, so choose unguessable IDs ({@link dev.distlock.core.LockTemplate#newLockId()}) when it matters.
 */
public interface LockIdSupport {

	/**
	 * Releases every held lock taken under the ID, newest first, and clears the records of its expired ones. Safe to
	 * retry: an ID that holds nothing gives an empty list.
	 * @return the locks released, newest first, as they were just before the release
	 */
	List<LockInfo> unlock(String lockId);

	/**
	 * Sets the lease of every held lock of the ID to {@code lease} from now (a lock without expiry gets one), and
	 * reports the ID's locks that had already expired.
	 */
	LockRenewal renew(String lockId, Duration lease);

}
