package dev.distlock.core;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.internal.HandleRegistry;
import dev.distlock.core.internal.StoreErrors;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.OperatorSupport;
import dev.distlock.core.spi.StatusQuery;

/**
 * What operators call, beside the locking that application code does on {@link LockTemplate}: the locks this
 * template's callers hold, releasing them all, the store's status, a forced release and a ping. The actuator endpoint,
 * the health indicator and the shutdown hook use it; the starter offers one as a bean. Thread-safe.
 */
public final class LockOperations {

	private final LockTemplate template;

	private final @Nullable OperatorSupport store;

	private final StoreErrors calls;

	private final HandleRegistry handles;

	/**
	 * The operator calls on the template's store and on the locks its callers hold.
	 */
	public LockOperations(LockTemplate template) {
		this.template = template;
		this.store = (template.provider() instanceof OperatorSupport support) ? support : null;
		this.calls = template.storeErrors();
		this.handles = template.handles();
	}

	/**
	 * The locks the template's callers hold now, in no particular order.
	 */
	public List<LockHandle> heldLocks() {
		return handles.held();
	}

	/**
	 * Releases every lock the template's callers hold. Failures are logged, not thrown.
	 * @return how many were released cleanly
	 */
	public int releaseAll() {
		return handles.releaseAll();
	}

	/**
	 * The store's locks matching the query, every instance's.
	 * @throws UnsupportedOperationException if the provider has no status query
	 */
	public List<LockInfo> status(StatusQuery query) {
		OperatorSupport support = support("status query");
		return calls.call(query.keyPrefix(), "read the status of", () -> support.status(query));
	}

	/**
	 * Deletes a lock whoever holds it, for operators clearing a lock whose holder is gone for good. Dangerous: a live
	 * holder keeps running without its lock, so only fencing tokens still protect the resource.
	 * @param storeKey the key as {@link #status(StatusQuery)} lists it, the template's prefix included
	 * @return whether the store had the lock and removed it
	 * @throws UnsupportedOperationException if the provider has no forced release
	 */
	public boolean forceRelease(String storeKey) {
		OperatorSupport support = support("forced release");
		String key = LockKeys.validate(storeKey);
		return calls.call(key, "force-release", () -> support.forceRelease(key));
	}

	/**
	 * Sends one cheap request to the store and returns how long it took, for health checks; empty when the provider
	 * has no ping.
	 * @throws LockStoreException if the store cannot be reached
	 */
	public Optional<Duration> ping() {
		OperatorSupport support = store;
		if (support == null) {
			return Optional.empty();
		}
		return Optional.of(calls.call(null, "ping", support::ping));
	}

	/** The template whose store and locks these calls reach. */
	public LockTemplate template() {
		return template;
	}

	private OperatorSupport support(String feature) {
		OperatorSupport support = store;
		if (support == null) {
			throw new UnsupportedOperationException(
					"Lock provider '" + template.provider().name() + "' has no " + feature);
		}
		return support;
	}

}
