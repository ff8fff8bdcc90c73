package dev.distlock.autoconfigure.actuate;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import dev.distlock.core.DistributedLockException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockTemplate;

/**
 * Observes each held lock from acquire to release, so a trace shows the hold as a span under the work that took it.
 * A lost lock or a failed release ends the observation with the error.
 */
public final class LockObservationListener implements LockListener {

	private static final DefaultLockObservationConvention DEFAULT_CONVENTION = new DefaultLockObservationConvention();

	private final ObservationRegistry registry;

	private final LockTags tags;

	private final @Nullable ObservationConvention<LockObservationContext> convention;

	// Keyed by handle identity; each observation is stopped once, by whichever of release, failed release or loss
	// comes first.
	private final Map<LockHandle, Observation> open = new ConcurrentHashMap<>();

	/**
	 * Observes the template's locks in the registry.
	 * @param template the template whose provider and key prefix the tags use, looked up on the first event
	 * @param keyTag turns a key into its {@code key.prefix} tag value
	 * @param convention replaces the default naming and tags, or null for {@link DefaultLockObservationConvention}
	 */
	public LockObservationListener(ObservationRegistry registry, Supplier<LockTemplate> template, LockKeyTag keyTag,
			@Nullable ObservationConvention<LockObservationContext> convention) {
		this.registry = registry;
		this.tags = new LockTags(template, keyTag);
		this.convention = convention;
	}

	@Override
	public void onAcquired(LockHandle handle) {
		LockTags.Site site = tags.site(handle);
		LockObservationContext context = new LockObservationContext(handle, tags.provider(), site.keyPrefix(),
				site.method());
		// Started on the acquiring thread, so the current observation (a request, a scheduled task) is its parent.
		// No scope is opened: release may happen on another thread.
		Observation observation = Observation
			.createNotStarted(convention, DEFAULT_CONVENTION, () -> context, registry)
			.start();
		if (!observation.isNoop()) {
			open.put(handle, observation);
		}
	}

	@Override
	public void onReleased(LockHandle handle, Duration heldFor) {
		stop(handle, null);
	}

	@Override
	public void onReleaseFailed(LockHandle handle, DistributedLockException error) {
		stop(handle, error);
	}

	@Override
	public void onLost(LockHandle handle, LockLostException cause) {
		stop(handle, cause);
	}

	/**
	 * How many observations are open; for tests that prove none leak.
	 */
	int openObservations() {
		return open.size();
	}

	private void stop(LockHandle handle, @Nullable Throwable error) {
		Observation observation = open.remove(handle);
		if (observation == null) {
			return;
		}
		if (error != null) {
			observation.error(error);
		}
		observation.stop();
	}

}
