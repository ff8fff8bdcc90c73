package dev.distlock.core.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.distlock.core.DistributedLockException;
import dev.distlock.core.LockAttempt;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockStoreException;

/**
 * Fans events out to several listeners; one listener's exception never reaches the lock caller or the others.
 */
public final class Listeners implements LockListener {

	private static final Log logger = LogFactory.getLog(Listeners.class);

	private final List<LockListener> listeners;

	/**
	 * Fans out to these listeners, in order.
	 */
	public Listeners(List<LockListener> listeners) {
		this.listeners = List.copyOf(listeners);
	}

	@Override
	public void onAcquireStarted(LockAttempt attempt) {
		each(listener -> listener.onAcquireStarted(attempt));
	}

	@Override
	public void onAcquireEnded(LockAttempt attempt, LockAttempt.Outcome outcome, int attempts, Duration waited) {
		each(listener -> listener.onAcquireEnded(attempt, outcome, attempts, waited));
	}

	@Override
	public void onAcquired(LockHandle handle) {
		each(listener -> listener.onAcquired(handle));
	}

	@Override
	public void onAcquireFailed(LockAttempt attempt, int attempts, Duration waited, boolean skipped) {
		each(listener -> listener.onAcquireFailed(attempt, attempts, waited, skipped));
	}

	@Override
	public void onAcquireError(LockAttempt attempt, LockStoreException error) {
		each(listener -> listener.onAcquireError(attempt, error));
	}

	@Override
	public void onReleased(LockHandle handle, Duration heldFor) {
		each(listener -> listener.onReleased(handle, heldFor));
	}

	@Override
	public void onReleaseFailed(LockHandle handle, DistributedLockException error) {
		each(listener -> listener.onReleaseFailed(handle, error));
	}

	@Override
	public void onRenewed(LockHandle handle) {
		each(listener -> listener.onRenewed(handle));
	}

	@Override
	public void onLost(LockHandle handle, LockLostException cause) {
		each(listener -> listener.onLost(handle, cause));
	}

	/**
	 * Opens each listener's scope in order; the result closes them in reverse, each once, whatever the others do.
	 */
	@Override
	public Scope onWorkStarted(List<LockHandle> handles) {
		List<Scope> opened = new ArrayList<>(listeners.size());
		each(listener -> opened.add(listener.onWorkStarted(handles)));
		if (opened.stream().allMatch(scope -> scope == Scope.NONE)) {
			return Scope.NONE;
		}
		return () -> {
			for (int i = opened.size() - 1; i >= 0; i--) {
				Scope scope = opened.get(i);
				try {
					scope.close();
				}
				catch (RuntimeException ex) {
					logger.warn("Lock listener scope " + scope + " failed to close", ex);
				}
			}
		};
	}

	private void each(Consumer<LockListener> call) {
		for (LockListener listener : listeners) {
			try {
				call.accept(listener);
			}
			catch (RuntimeException ex) {
				logger.warn("Lock listener " + listener + " failed", ex);
			}
		}
	}

}
