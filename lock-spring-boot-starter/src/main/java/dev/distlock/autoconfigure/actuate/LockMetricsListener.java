package dev.distlock.autoconfigure.actuate;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

import dev.distlock.core.DistributedLockException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockMode;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.LockTemplate;

/**
 * Records lock events as Micrometer meters, tagged with provider, mode and key prefix, never the raw key:
 * {@code distlock.acquire} (timer of the wait, by outcome), {@code distlock.held} (long task timer of locks held now)
 * and the counters {@code distlock.lost}, {@code distlock.renewals} and {@code distlock.release.failures}.
 */
public final class LockMetricsListener implements LockListener {

	/** Timer of the time spent acquiring, tagged with outcome acquired, failed, skipped or error. */
	public static final String ACQUIRE = "distlock.acquire";

	/** Long task timer of the locks held now. */
	public static final String HELD = "distlock.held";

	/** Counter of locks found lost while held. */
	public static final String LOST = "distlock.lost";

	/** Counter of lease renewals by the watchdog. */
	public static final String RENEWALS = "distlock.renewals";

	/** Counter of releases that failed. */
	public static final String RELEASE_FAILURES = "distlock.release.failures";

	private final MeterRegistry registry;

	private final LockTags tags;

	// Keyed by handle identity; each sample is stopped once, by whichever of release, failed release or loss comes first.
	private final Map<LockHandle, LongTaskTimer.Sample> held = new ConcurrentHashMap<>();

	/**
	 * Records the events of the template into the registry.
	 * @param template the template whose provider and key prefix the tags use, looked up on the first event
	 * @param keyTag turns a key into its {@code key.prefix} tag value
	 */
	public LockMetricsListener(MeterRegistry registry, Supplier<LockTemplate> template, LockKeyTag keyTag) {
		this.registry = registry;
		this.tags = new LockTags(template, keyTag);
	}

	@Override
	public void onAcquired(LockHandle handle) {
		Tags common = tags(handle.key(), handle.mode());
		Timer.builder(ACQUIRE)
			.description("Time spent acquiring distributed locks")
			.tags(common)
			.tag(LockTags.OUTCOME, "acquired")
			.register(registry)
			.record(handle.waited());
		LongTaskTimer.Sample sample = LongTaskTimer.builder(HELD)
			.description("Distributed locks held now, and for how long")
			.tags(common)
			.register(registry)
			.start();
		held.put(handle, sample);
	}

	@Override
	public void onAcquireFailed(String key, LockMode mode, int attempts, Duration waited, boolean skipped) {
		Timer.builder(ACQUIRE)
			.description("Time spent acquiring distributed locks")
			.tags(tags(key, mode))
			.tag(LockTags.OUTCOME, skipped ? "skipped" : "failed")
			.register(registry)
			.record(waited);
	}

	@Override
	public void onAcquireError(String key, LockMode mode, LockStoreException error) {
		// The store could not be asked; the time spent is not known here, so the timer counts the event only.
		Timer.builder(ACQUIRE)
			.description("Time spent acquiring distributed locks")
			.tags(tags(key, mode))
			.tag(LockTags.OUTCOME, "error")
			.register(registry)
			.record(Duration.ZERO);
	}

	@Override
	public void onReleased(LockHandle handle, Duration heldFor) {
		stopHeld(handle);
	}

	@Override
	public void onReleaseFailed(LockHandle handle, DistributedLockException error) {
		stopHeld(handle);
		count(RELEASE_FAILURES, "Distributed lock releases that failed", handle);
	}

	@Override
	public void onRenewed(LockHandle handle) {
		count(RENEWALS, "Distributed lock leases renewed by the watchdog", handle);
	}

	@Override
	public void onLost(LockHandle handle, LockLostException cause) {
		stopHeld(handle);
		count(LOST, "Distributed locks found lost while held", handle);
	}

	/**
	 * How many held-lock samples are open; for tests that prove none leak.
	 */
	int openSamples() {
		return held.size();
	}

	private void stopHeld(LockHandle handle) {
		LongTaskTimer.Sample sample = held.remove(handle);
		if (sample != null) {
			sample.stop();
		}
	}

	private void count(String name, String description, LockHandle handle) {
		Counter.builder(name).description(description).tags(tags(handle.key(), handle.mode())).register(registry)
			.increment();
	}

	private Tags tags(String key, LockMode mode) {
		return Tags.of(LockTags.PROVIDER, tags.provider(), LockTags.MODE, LockTags.mode(mode), LockKeyTag.TAG,
				tags.keyPrefix(key));
	}

}
