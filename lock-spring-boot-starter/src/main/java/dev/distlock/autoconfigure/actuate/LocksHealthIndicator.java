package dev.distlock.autoconfigure.actuate;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import dev.distlock.core.LockStoreException;
import dev.distlock.core.LockOperations;

/**
 * The {@code locks} health indicator: UP with the ping latency when the lock store answers, DOWN when it does not
 * within the timeout. It only pings, so contention, however heavy, never makes it DOWN. A provider without a ping
 * reports UNKNOWN.
 */
public final class LocksHealthIndicator extends AbstractHealthIndicator {

	private final LockOperations operations;

	private final Duration timeout;

	private final Executor pings;

	/**
	 * Checks the template's store, pinging on {@code pings} (the auto-configuration passes distlock's
	 * {@code LockThreads} executor) and waiting at most {@code timeout} for the answer.
	 */
	public LocksHealthIndicator(LockOperations operations, Duration timeout, Executor pings) {
		super("Lock store health check failed");
		this.operations = operations;
		this.timeout = timeout;
		this.pings = pings;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) throws Exception {
		builder.withDetail("provider", providerName());
		Optional<Duration> latency = ping();
		if (latency.isEmpty()) {
			builder.unknown().withDetail("reason", "the provider has no ping");
			return;
		}
		builder.up().withDetail("latency", latency.get().toNanos() / 1_000 / 1_000.0 + "ms");
	}

	/**
	 * Pings on the executor, not on the caller's thread, so a store that does not answer cannot hold the health
	 * endpoint for the client's whole command timeout; a ping past the timeout is interrupted.
	 */
	private Optional<Duration> ping() throws InterruptedException {
		FutureTask<Optional<Duration>> task = new FutureTask<>(operations::ping);
		try {
			pings.execute(task);
		}
		catch (RejectedExecutionException ex) {
			throw new LockStoreException(null, "Ping of lock store '" + providerName()
					+ "' was refused by its executor (shutting down?)", ex);
		}
		try {
			return task.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			task.cancel(true);
			throw new LockStoreException(null,
					"Lock store '" + providerName() + "' did not answer a ping within " + timeout, null);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof RuntimeException runtime) {
				throw runtime;
			}
			throw new LockStoreException(null, "Ping of lock store '" + providerName() + "' failed",
					ex.getCause());
		}
	}

	private String providerName() {
		return operations.template().provider().name();
	}

}
