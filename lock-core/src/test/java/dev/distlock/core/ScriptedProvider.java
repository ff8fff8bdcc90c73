package dev.distlock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;

/**
 * A provider whose answers the test sets: which keys are refused, whether extends succeed, whether the store is down.
 * Counts every call, so tests can assert exact interactions.
 */
final class ScriptedProvider implements LockProvider {

	final Set<String> refused = ConcurrentHashMap.newKeySet();

	final AtomicBoolean extendSucceeds = new AtomicBoolean(true);

	final AtomicBoolean releaseThrows = new AtomicBoolean(false);

	final AtomicBoolean down = new AtomicBoolean(false);

	final AtomicInteger attempts = new AtomicInteger();

	final AtomicInteger extends_ = new AtomicInteger();

	final AtomicInteger releases = new AtomicInteger();

	private final AtomicLong fencing = new AtomicLong();

	@Override
	public Optional<Lease> tryAcquire(LockRequest request) {
		attempts.incrementAndGet();
		if (down.get()) {
			throw new IllegalStateException("connection refused");
		}
		if (refused.contains(request.key())) {
			return Optional.empty();
		}
		long token = fencing.incrementAndGet();
		return Optional.of(new Lease() {
			@Override
			public long fencingToken() {
				return token;
			}

			@Override
			public boolean extend(Duration lease) {
				extends_.incrementAndGet();
				return extendSucceeds.get();
			}

			@Override
			public boolean release() {
				releases.incrementAndGet();
				if (releaseThrows.get()) {
					throw new LockStoreException(request.key(), "store down", null);
				}
				return true;
			}
		});
	}

	@Override
	public boolean isLocked(String key) {
		return refused.contains(key);
	}

}
