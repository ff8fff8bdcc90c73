package dev.distlock.autoconfigure;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;

import dev.distlock.core.LockOperations;

/**
 * Releases the template's locks when the application stops, while the store's connections are still open: its phase
 * stops it after the web server and the task executors (which let running work finish) and before the Redis
 * connection factory (phase 0). Locked work still running gets {@code shutdown-wait} to finish and release its own
 * locks; what is still held then is released, so no lock outlives the application by its lease.
 */
final class LockShutdown implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(LockShutdown.class);

	/** After the web server's graceful shutdown (DEFAULT_PHASE - 1024) and its stop (- 2048), before phase 0. */
	static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

	private final LockOperations operations;

	private final Duration wait;

	private volatile boolean running;

	LockShutdown(LockOperations operations, Duration wait) {
		this.operations = operations;
		this.wait = wait;
	}

	@Override
	public void start() {
		running = true;
	}

	@Override
	public void stop() {
		running = false;
		long deadline = System.nanoTime() + wait.toNanos();
		try {
			while (!operations.heldLocks().isEmpty() && System.nanoTime() - deadline < 0) {
				Thread.sleep(10);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		int held = operations.heldLocks().size();
		if (held > 0) {
			logger.warn("Releasing " + held + " lock(s) still held at shutdown");
			operations.releaseAll();
		}
	}

	@Override
	public boolean isRunning() {
		return running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

}
