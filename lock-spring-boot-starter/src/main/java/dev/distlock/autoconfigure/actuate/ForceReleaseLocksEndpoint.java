package dev.distlock.autoconfigure.actuate;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

import dev.distlock.core.LockOperations;

/**
 * The {@code locks} endpoint with {@code DELETE /actuator/locks/{key}}, registered only when
 * {@code distributed-lock.actuator.force-release-enabled=true}. Dangerous: it removes a lock whoever holds it, and a
 * live holder keeps running without it, so only fencing tokens still protect the resource. Meant for clearing a lock
 * whose holder is gone for good.
 */
@Endpoint(id = "locks")
public final class ForceReleaseLocksEndpoint extends LocksEndpoint {

	private static final Log logger = LogFactory.getLog(ForceReleaseLocksEndpoint.class);

	/**
	 * An endpoint over the template's locks that can also force-release them.
	 */
	public ForceReleaseLocksEndpoint(LockOperations operations, int statusLimit) {
		super(operations, statusLimit);
	}

	/**
	 * Deletes the lock with this store key (as listed, the template's prefix included) whoever holds it.
	 * @param key the key's path segments; a key containing {@code /} arrives split and is joined again
	 * @throws UnsupportedOperationException if the store has no forced release
	 */
	@DeleteOperation
	public ForceReleased forceRelease(@Selector(match = Selector.Match.ALL_REMAINING) String[] key) {
		String storeKey = String.join("/", key);
		boolean released = operations().forceRelease(storeKey);
		// Warn, as for a lost lock: a holder, if alive, has just lost its lock.
		logger.warn("Lock '" + storeKey + "' was force-released through the locks endpoint"
				+ (released ? "" : "; the store had no such lock"));
		return new ForceReleased(storeKey, released);
	}

	@Override
	protected boolean isForceReleaseEnabled() {
		return true;
	}

	/**
	 * The body of a forced release.
	 * @param key the store key
	 * @param released whether the store had the lock and removed it
	 */
	public record ForceReleased(String key, boolean released) {
	}

}
