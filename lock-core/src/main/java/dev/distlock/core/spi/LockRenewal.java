package dev.distlock.core.spi;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What {@link LockIdSupport#renew} did with the locks of one lock ID.
 * @param lockId the lock ID
 * @param renewed the locks that were held and now have the new lease, newest first
 * @param expired locks of the ID the store still records whose lease had already ended: not renewed, and possibly
 * someone else's by now. A lock whose record the store already dropped cannot be found by its ID; compare with the
 * keys you expect through {@link #missing(Collection)}
 */
public record LockRenewal(String lockId, List<LockInfo> renewed, List<LockInfo> expired) {

	/**
	 * Copies the lists.
	 */
	public LockRenewal {
		renewed = List.copyOf(renewed);
		expired = List.copyOf(expired);
	}

	/**
	 * Whether something was renewed and nothing of the ID had expired. When false, assume none of the locks is safe:
	 * the work they guard may already overlap with someone else's.
	 */
	public boolean allRenewed() {
		return !renewed.isEmpty() && expired.isEmpty();
	}

	/**
	 * The expected store keys that were not renewed (expired, released, or never taken), in the given order.
	 */
	public List<String> missing(Collection<String> expectedKeys) {
		Set<String> done = renewed.stream().map(LockInfo::key).collect(Collectors.toSet());
		return expectedKeys.stream().filter(key -> !done.contains(key)).toList();
	}

}
