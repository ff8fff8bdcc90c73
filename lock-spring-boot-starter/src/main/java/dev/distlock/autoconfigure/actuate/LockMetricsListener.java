package dev.distlock.autoconfigure.actuate;

import java.util.function.Supplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import dev.distlock.core.DistributedLockException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockTemplate;

/**
 * Counts what has no duration, tagged with provider, mode, key prefix and method, never the raw key:
 * {@code distlock.lost}, {@code distlock.renewals} and {@code distlock.release.failures}. The timers and the figures
 * of what runs now come from the observations alone ({@link LockObservationListener}): {@code distlock.acquire} and
 * {@code distlock.acquire.active} (callers waiting now), {@code distlock.lock} and {@code distlock.lock.active} (locks
 * held now), so no figure has two sources.
 */
public final class LockMetricsListener implements LockListener {

	/** Counter of locks found lost while held. */
	public static final String LOST = "distlock.lost";

	/** Counter of lease renewals by the watchdog. */
	public static final String RENEWALS = "distlock.renewals";

	/** Counter of releases that failed. */
	public static final String RELEASE_FAILURES = "distlock.release.failures";

	private final MeterRegistry registry;

	private final LockTags tags;

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
	public void onReleaseFailed(LockHandle handle, DistributedLockException error) {
		count(RELEASE_FAILURES, "Distributed lock releases that failed", handle);
	}

	@Override
	public void onRenewed(LockHandle handle) {
		count(RENEWALS, "Distributed lock leases renewed by the watchdog", handle);
	}

	@Override
	public void onLost(LockHandle handle, LockLostException cause) {
		count(LOST, "Distributed locks found lost while held", handle);
	}

	// The tags come from the handle alone, so an event heard on the watchdog's thread is tagged as the acquire was.
	private void count(String name, String description, LockHandle handle) {
		LockTags.Site site = tags.site(handle);
		Tags common = Tags.of(LockTags.PROVIDER, tags.provider(), LockTags.MODE, LockTags.mode(handle.mode()),
				LockKeyTag.TAG, site.keyPrefix(), LockTags.METHOD, site.method());
		Counter.builder(name).description(description).tags(common).register(registry).increment();
	}

}
