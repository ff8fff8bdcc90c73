package dev.distlock.core.internal;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.distlock.core.LockLostException;

/**
 * Tells everyone that a handle's lock was lost: the log (a warning), the template's registry and listeners
 * ({@link HandleRegistry#lost}), and the callbacks registered on the handle. One callback's exception reaches neither
 * the others nor the code that found the loss.
 */
final class LostSignal {

	private static final Log logger = LogFactory.getLog(LostSignal.class);

	private final LeaseHandle handle;

	private final HandleRegistry registry;

	private final List<Runnable> callbacks = new CopyOnWriteArrayList<>();

	/** Set before the callbacks run, so one added from then on runs at once. */
	private volatile boolean sent;

	LostSignal(LeaseHandle handle, HandleRegistry registry) {
		this.handle = handle;
		this.registry = registry;
	}

	/**
	 * Adds a callback, run when the loss is found, or at once (on the caller's thread) if it was found already.
	 */
	void add(Runnable callback) {
		callbacks.add(callback);
		if (sent) {
			callback.run();
		}
	}

	/**
	 * Reports the loss: the handle calls this once, when it moves to lost.
	 */
	void send(LockLostException cause) {
		sent = true;
		logger.warn("Lock '" + handle.key() + "' was lost (fencing token " + handle.fencingToken() + ")");
		registry.lost(handle, cause);
		for (Runnable callback : callbacks) {
			try {
				callback.run();
			}
			catch (RuntimeException ex) {
				logger.warn("Lock-lost callback for '" + handle.key() + "' failed", ex);
			}
		}
	}

}
