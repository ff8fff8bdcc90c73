package dev.distlock.autoconfigure.actuate;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
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

	/**
	 * Checks the template's store, waiting at most {@code timeout} for its ping.
	 */
	public LocksHealthIndicator(LockOperations operations, Duration timeout) {
		super("Lock store health check failed");
		this.operations = operations;
		this.timeout = timeout;
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
	 * Pings on a daemon thread of its own, so a store that does not answer cannot hold the health endpoint for the
	 * client's whole command timeout.
	 */
	private Optional<Duration> ping() throws InterruptedException {
		FutureTask<Optional<Duration>> task = new FutureTask<>(operations::ping);
		Thread thread = new Thread(task, "distlock-health-ping");
		thread.setDaemon(true);
		thread.start();
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
