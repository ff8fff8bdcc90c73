package dev.distlock.core.memory;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.spi.Acquisition;
import dev.distlock.core.spi.LockRequest;

/**
 * One waiting acquisition on the in-memory provider. The provider watches its key from {@link
 * InMemoryLockProvider#begin} to {@link #close()} and gives it a permit on every release, so a release between a
 * refused attempt and the wait is never missed. While an exclusive acquisition waits, its refused attempts keep it
 * among the writers of the key's slot, which keeps new shared holders out.
 */
final class MemoryAcquisition implements Acquisition {

	private final InMemoryLockProvider provider;

	private final LockRequest request;

	private final Semaphore permits = new Semaphore(0);

	MemoryAcquisition(InMemoryLockProvider provider, LockRequest request) {
		this.provider = provider;
		this.request = request;
	}

	@Override
	public Optional<Granted> tryOnce() {
		long sent = System.nanoTime();
		return provider.tryAcquire(request, request.shared() ? null : this).map(lease -> new Granted(lease, sent));
	}

	@Override
	public boolean awaitSignal(Duration max) throws InterruptedException {
		return permits.tryAcquire(max.toNanos(), TimeUnit.NANOSECONDS);
	}

	/** The key was released: the next {@link #awaitSignal} returns at once. */
	void signal() {
		permits.release();
	}

	/**
	 * Stops watching and, for an exclusive acquisition, leaves the writers of its slot, waking the shared requests it
	 * kept out.
	 */
	@Override
	public void close() {
		provider.unwatch(request.key(), this);
		MemorySlot slot = request.shared() ? null : provider.slot(request.key());
		if (slot == null) {
			return;
		}
		boolean left;
		synchronized (slot) {
			left = slot.writers.remove(this);
			provider.removeIfIdle(request.key(), slot);
		}
		if (left) {
			provider.signalRelease(request.key());
		}
	}

}
