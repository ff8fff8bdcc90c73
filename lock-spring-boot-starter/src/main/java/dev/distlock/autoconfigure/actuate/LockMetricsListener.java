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
import dev.distlock.core.LockAttempt;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockMode;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.LockTemplate;

/**
 * Records lock events as Micrometer meters, tagged with provider, mode, key prefix and method, never the raw key:
 * {@code distlock.acquire} (timer of the wait, by outcome), {@code distlock.held} (long task timer of locks held now)
 * and the counters {@code distlock.acquire.errors}, {@code distlock.lost}, {@code distlock.renewals} and
 * {@code distlock.release.failures}.
 */
public final class LockMetricsListener implements LockListener {

	/** Timer of the time spent acquiring, tagged with outcome acquired, failed or skipped. */
	public static final String ACQUIRE = "distlock.acquire";

	/** Counter of acquires stopped because the store could not be asked. */
	public static final String ACQUIRE_ERRORS = "distlock.acquire.errors";

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

	// Keyed by handle identity; each entry is removed once, by whichever of release, failed release or loss comes
	// first. It keeps the tags chosen on the acquiring thread for events heard later on other threads.
	private final Map<LockHandle, Held> held = new ConcurrentHashMap<>();

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
		Tags common = tags(tags.site(handle), handle.mode());
		acquireTimer(common, "acquired").record(handle.waited());
		LongTaskTimer.Sample sample = LongTaskTimer.builder(HELD)
			.description("Distributed locks held now, and for how long")
			.tags(common)
			.register(registry)
			.start();
		held.put(handle, new Held(common, sample));
	}

	@Override
	public void onAcquireFailed(LockAttempt attempt, int attempts, Duration waited, boolean skipped) {
		acquireTimer(tags(tags.site(attempt), attempt.mode()), skipped ? "skipped" : "failed").record(waited);
	}

	@Override
	public void onAcquireError(LockAttempt attempt, LockStoreException error) {
		// Counted apart from the timer: the time spent is not known here, and a zero would drag its latencies down.
		Counter.builder(ACQUIRE_ERRORS)
			.description("Distributed lock acquires stopped because the store could not be asked")
			.tags(tags(tags.site(attempt), attempt.mode()))
			.register(registry)
			.increment();
	}

	@Override
	public void onReleased(LockHandle handle, Duration heldFor) {
		stopHeld(handle);
	}

	@Override
	public void onReleaseFailed(LockHandle handle, DistributedLockException error) {
		count(RELEASE_FAILURES, "Distributed lock releases that failed", stopHeld(handle));
	}

	@Override
	public void onRenewed(LockHandle handle) {
		Held entry = held.get(handle);
		Tags tags = entry != null ? entry.tags() : untracked(handle);
		count(RENEWALS, "Distributed lock leases renewed by the watchdog", tags);
	}

	@Override
	public void onLost(LockHandle handle, LockLostException cause) {
		count(LOST, "Distributed locks found lost while held", stopHeld(handle));
	}

	/**
	 * How many held-lock samples are open; for tests that prove none leak.
	 */
	int openSamples() {
		return held.size();
	}

	private Timer acquireTimer(Tags common, String outcome) {
		return Timer.builder(ACQUIRE)
			.description("Time spent acquiring distributed locks")
			.tags(common)
			.tag(LockTags.OUTCOME, outcome)
			.register(registry);
	}

	// Stops the hold once and returns its tags.
	private Tags stopHeld(LockHandle handle) {
		Held entry = held.remove(handle);
		if (entry == null) {
			return untracked(handle);
		}
		entry.sample().stop();
		return entry.tags();
	}

	private void count(String name, String description, Tags tags) {
		Counter.builder(name).description(description).tags(tags).register(registry).increment();
	}

	// A handle this listener never saw acquired.
	private Tags untracked(LockHandle handle) {
		return tags(tags.site(handle), handle.mode());
	}

	private Tags tags(LockTags.Site site, LockMode mode) {
		return Tags.of(LockTags.PROVIDER, tags.provider(), LockTags.MODE, LockTags.mode(mode), LockKeyTag.TAG,
				site.keyPrefix(), LockTags.METHOD, site.method());
	}

	private record Held(Tags tags, LongTaskTimer.Sample sample) {
	}

}
