package dev.distlock.core.spi;

import java.util.function.Supplier;

/**
 * Runs cleanup store calls (release, withdrawal, rollback) with the thread's interrupt flag cleared and restores it
 * afterwards: a client that sees the flag aborts the call, and a lock the caller no longer wants would be stranded
 * for its whole lease. Core and providers use it alike.
 */
public final class Interrupts {

	private Interrupts() {
	}

	/**
	 * Runs the call with the interrupt flag cleared, then sets it again if it was set (or got set meanwhile).
	 */
	public static <T> T uninterruptibly(Supplier<T> call) {
		boolean interrupted = Thread.interrupted();
		try {
			return call.get();
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Runs the action with the interrupt flag cleared, then sets it again if it was set.
	 */
	public static void uninterruptibly(Runnable action) {
		uninterruptibly(() -> {
			action.run();
			return null;
		});
	}

}
