package dev.distlock.autoconfigure;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.mongo.MongoLockProvider;

/**
 * Runs {@link MongoLockProvider#purge()} on one daemon thread every interval while the context runs; stopped on
 * shutdown. Does nothing when the provider is not MongoDB or the interval is unset.
 */
public final class MongoLockPurger implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(MongoLockPurger.class);

	private final ObjectProvider<LockProvider> provider;

	private final @Nullable Duration interval;

	private volatile @Nullable ScheduledExecutorService executor;

	/**
	 * A purger for the provider, if it is MongoDB.
	 */
	public MongoLockPurger(ObjectProvider<LockProvider> provider, @Nullable Duration interval) {
		this.provider = provider;
		this.interval = interval;
	}

	@Override
	public synchronized void start() {
		if (executor != null || interval == null || !(provider.getIfUnique() instanceof MongoLockProvider mongo)) {
			return;
		}
		ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
			Thread thread = new Thread(runnable, "distlock-mongo-purge");
			thread.setDaemon(true);
			return thread;
		});
		long millis = interval.toMillis();
		scheduler.scheduleWithFixedDelay(() -> purge(mongo), millis, millis, TimeUnit.MILLISECONDS);
		executor = scheduler;
	}

	@Override
	public synchronized void stop() {
		ScheduledExecutorService scheduler = executor;
		if (scheduler != null) {
			scheduler.shutdownNow();
			executor = null;
		}
	}

	@Override
	public boolean isRunning() {
		return executor != null;
	}

	private static void purge(MongoLockProvider mongo) {
		try {
			long removed = mongo.purge();
			logger.debug("Purged " + removed + " expired lock document(s)");
		}
		catch (RuntimeException ex) {
			// The next run retries; a store outage shows in lock calls, not here.
			logger.debug("Purge of expired lock documents failed: " + ex.getMessage());
		}
	}

}
