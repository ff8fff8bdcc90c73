package dev.distlock.mongo;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.spi.Acquisition;
import dev.distlock.core.spi.LockRequest;

/**
 * A waiting acquisition on MongoDB: it polls (the template's backoff decides when), and while an exclusive request
 * waits it keeps a mark in the lock document that refuses new shared holders (writer priority). Each refused attempt
 * renews the mark for a short validity on the database clock, so a waiter that died stops keeping readers out soon;
 * the grant or {@link #close()} removes it.
 */
final class MongoAcquisition implements Acquisition {

	/** The least a mark lives: attempts on a loaded machine come further apart than the backoff says. */
	static final Duration MIN_MARK = Duration.ofSeconds(1);

	/** The most a mark lives, whatever the backoff: a writer that died keeps readers out no longer. */
	static final Duration MAX_MARK = Duration.ofSeconds(30);

	private final MongoLockProvider provider;

	private final LockRequest request;

	/** The last wait between attempts; the mark must outlive the next one. */
	private long lastWaitMillis;

	private boolean marked;

	MongoAcquisition(MongoLockProvider provider, LockRequest request) {
		this.provider = provider;
		this.request = request;
	}

	@Override
	public Optional<Granted> tryOnce() {
		long sent = System.nanoTime();
		Optional<Granted> granted = provider.tryAcquire(request).map(lease -> new Granted(lease, sent));
		if (granted.isPresent()) {
			marked = false; // an exclusive grant removes the mark
		}
		else if (!request.shared()) {
			long validity = Math.min(MAX_MARK.toMillis(), Math.max(MIN_MARK.toMillis(), 3 * lastWaitMillis));
			marked |= provider.markWaiter(request, validity);
		}
		return granted;
	}

	@Override
	public boolean awaitSignal(Duration max) throws InterruptedException {
		lastWaitMillis = max.toMillis();
		TimeUnit.NANOSECONDS.sleep(max.toNanos());
		return false;
	}

	@Override
	public void close() {
		if (marked) {
			provider.clearWaiter(request);
		}
	}

}
