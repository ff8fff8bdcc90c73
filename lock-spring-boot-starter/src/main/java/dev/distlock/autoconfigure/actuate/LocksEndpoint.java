package dev.distlock.autoconfigure.actuate;

import java.util.Comparator;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

import dev.distlock.core.DistributedLockException;
import dev.distlock.core.LockOperations;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.StatusQuery;

/**
 * The {@code locks} actuator endpoint: the locks this instance holds, and the store's locks filtered by key prefix,
 * owner and state. Read-only; {@link ForceReleaseLocksEndpoint} adds the forced release when enabled.
 */
@Endpoint(id = "locks")
public class LocksEndpoint {

	private static final Log logger = LogFactory.getLog(LocksEndpoint.class);

	private static final Comparator<LocksDescriptor.HeldLock> BY_KEY = Comparator
		.comparing(LocksDescriptor.HeldLock::key)
		.thenComparingLong(LocksDescriptor.HeldLock::fencingToken);

	private final LockOperations operations;

	private final int statusLimit;

	/**
	 * An endpoint over the template's locks, listing at most {@code statusLimit} store locks per request.
	 */
	public LocksEndpoint(LockOperations operations, int statusLimit) {
		this.operations = operations;
		this.statusLimit = statusLimit;
	}

	/**
	 * The held locks and the store's status. The key prefix matches store keys as listed (the template's prefix
	 * included) and defaults to the template's prefix; state defaults to held, since a store may keep released and
	 * expired locks' records (MongoDB until its purger runs), which {@code state=any} or {@code state=expired} show.
	 */
	@ReadOperation
	public LocksDescriptor locks(@Nullable String keyPrefix, @Nullable String owner,
			StatusQuery.@Nullable State state) {
		List<LocksDescriptor.HeldLock> held = operations.heldLocks()
			.stream()
			.map(LocksDescriptor.HeldLock::of)
			.sorted(BY_KEY)
			.toList();
		String prefix = (keyPrefix != null) ? keyPrefix : operations.template().keyPrefix();
		// One more than shown, so the store stops early and the body can still tell that the list was cut.
		StatusQuery query = new StatusQuery(prefix.isEmpty() ? null : prefix, owner,
				(state != null) ? state : StatusQuery.State.HELD, null, (int) Math.min(StatusQuery.UNLIMITED,
						statusLimit + 1L));
		return new LocksDescriptor(operations.template().provider().name(), operations.template().keyPrefix(),
				isForceReleaseEnabled(), held, store(query));
	}

	/**
	 * Whether this endpoint offers the forced release.
	 */
	protected boolean isForceReleaseEnabled() {
		return false;
	}

	/**
	 * The operator calls the endpoint makes.
	 */
	protected final LockOperations operations() {
		return operations;
	}

	private LocksDescriptor.StoreLocks store(StatusQuery query) {
		try {
			List<LockInfo> infos = operations.status(query);
			return LocksDescriptor.StoreLocks.of(query, infos, statusLimit);
		}
		catch (UnsupportedOperationException ex) {
			return LocksDescriptor.StoreLocks.unavailable(query, false, ex.getMessage());
		}
		catch (DistributedLockException ex) {
			// The held locks are still worth showing when the store is down, so the error goes in the body.
			logger.debug("Status query of the locks endpoint failed", ex);
			return LocksDescriptor.StoreLocks.unavailable(query, true, ex.getMessage());
		}
	}

}
