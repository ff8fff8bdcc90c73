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
import dev.distlock.core.LockTemplate;

/**
 * The {@code locks} health indicator: UP with the ping latency when the lock store answers, DOWN when it does not
 * within the timeout. It only pings, so contention, however heavy, never makes it DOWN. A provider without a ping
 * reports UNKNOWN.
 */
public final class LocksHealthIndicator extends AbstractHealthIndicator {

	private final LockTemplate template;

	private final Duration timeout;

	private final Executor pings;

	/**
	 * Checks the template's store, pinging on {@code pings} (the auto-configuration passes distlock's
	 * {@code LockThreads} executor) and waiting at most {@code timeout} for the answer.
	 */
	public LocksHealthIndicator(LockTemplate template, Duration timeout, Executor pings) {
		super("Lock store health check failed");
		this.template = template;
		this.timeout = timeout;
		this.pings = pings;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) throws Exception {
		builder.withDetail("provider", template.provider().name());
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
		FutureTask<Optional<Duration>> task = new FutureTask<>(template::ping);
		try {
			pings.execute(task);
		}
		catch (RejectedExecutionException ex) {
			throw new LockStoreException(null, "Ping of lock store '" + template.provider().name()
					+ "' was refused by its executor (shutting down?)", ex);
		}
		try {
			return task.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			task.cancel(true);
			throw new LockStoreException(null,
					"Lock store '" + template.provider().name() + "' did not answer a ping within " + timeout, null);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof RuntimeException runtime) {
				throw runtime;
			}
			throw new LockStoreException(null, "Ping of lock store '" + template.provider().name() + "' failed",
					ex.getCause());
		}
	}

}
