package dev.distlock.autoconfigure.actuate;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import dev.distlock.core.DistributedLockException;
import dev.distlock.core.LockAttempt;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.LockTemplate;

/**
 * Observes each acquisition ({@code distlock.acquire}, failed ones too) and each held lock ({@code distlock.lock},
 * from the grant to the release), both under the caller's current observation, so a trace reads request, acquire,
 * hold; the hold is made current around guarded work, so the work's own spans nest under it. A lost lock or a failed
 * release ends the hold with the error.
 */
public final class LockObservationListener implements LockListener {

	private static final DefaultLockObservationConvention DEFAULT_CONVENTION = new DefaultLockObservationConvention();

	private static final DefaultLockAcquireObservationConvention DEFAULT_ACQUIRE_CONVENTION = new DefaultLockAcquireObservationConvention();

	private final ObservationRegistry registry;

	private final LockTags tags;

	private final @Nullable ObservationConvention<LockObservationContext> convention;

	private final @Nullable ObservationConvention<LockAcquireObservationContext> acquireConvention;

	// Keyed by handle identity; each observation is stopped once, by whichever of release, failed release or loss
	// comes first.
	private final Map<LockHandle, Observation> open = new ConcurrentHashMap<>();

	// The acquisitions running on this thread, innermost first: start and end come on one thread, never interleaved.
	private final ThreadLocal<@Nullable Acquiring> acquiring = new ThreadLocal<>();

	/**
	 * Observes the template's locks in the registry, with the default conventions for acquisitions.
	 * @param template the template whose provider and key prefix the tags use, looked up on the first event
	 * @param keyTag turns a key into its {@code key.prefix} tag value
	 * @param convention replaces the default naming and tags of held locks, or null for
	 * {@link DefaultLockObservationConvention}
	 */
	public LockObservationListener(ObservationRegistry registry, Supplier<LockTemplate> template, LockKeyTag keyTag,
			@Nullable ObservationConvention<LockObservationContext> convention) {
		this(registry, template, keyTag, convention, null);
	}

	/**
	 * Observes the template's locks in the registry.
	 * @param template the template whose provider and key prefix the tags use, looked up on the first event
	 * @param keyTag turns a key into its {@code key.prefix} tag value
	 * @param convention replaces the default naming and tags of held locks, or null for
	 * {@link DefaultLockObservationConvention}
	 * @param acquireConvention replaces the default naming and tags of acquisitions, or null for
	 * {@link DefaultLockAcquireObservationConvention}
	 */
	public LockObservationListener(ObservationRegistry registry, Supplier<LockTemplate> template, LockKeyTag keyTag,
			@Nullable ObservationConvention<LockObservationContext> convention,
			@Nullable ObservationConvention<LockAcquireObservationContext> acquireConvention) {
		this.registry = registry;
		this.tags = new LockTags(template, keyTag);
		this.convention = convention;
		this.acquireConvention = acquireConvention;
	}

	/**
	 * Starts the acquisition's observation under the caller's and makes it current while the caller waits, so the
	 * store client's own spans nest under it.
	 */
	@Override
	public void onAcquireStarted(LockAttempt attempt) {
		LockTags.Site site = tags.site(attempt);
		LockAcquireObservationContext context = new LockAcquireObservationContext(attempt, tags.provider(),
				site.keyPrefix(), site.method());
		@Nullable Observation caller = registry.getCurrentObservation();
		Observation observation = Observation
			.createNotStarted(usable(acquireConvention, context), DEFAULT_ACQUIRE_CONVENTION, () -> context, registry)
			.start();
		acquiring.set(new Acquiring(attempt, observation, context, observation.openScope(), caller, acquiring.get()));
	}

	@Override
	public void onAcquireError(LockAttempt attempt, LockStoreException error) {
		Acquiring current = acquiring.get();
		if (current != null) {
			current.observation.error(error);
		}
	}

	/**
	 * Ends the acquisition's observation, whichever way it ended, with its outcome, attempts and wait.
	 */
	@Override
	public void onAcquireEnded(LockAttempt attempt, LockAttempt.Outcome outcome, int attempts, Duration waited) {
		Acquiring current = acquiring.get();
		if (current == null || current.attempt != attempt) {
			return; // its start failed in this listener; an outer acquisition is not this one's to end
		}
		if (current.previous == null) {
			acquiring.remove();
		}
		else {
			acquiring.set(current.previous);
		}
		current.context.ended(outcome, attempts, waited);
		try {
			current.closeScope();
		}
		finally {
			current.observation.stop();
		}
	}

	/**
	 * Starts the hold under the caller's observation, a sibling of the acquisition, not its child. No scope is opened
	 * here: release may happen on another thread; guarded work opens one through {@link #onWorkStarted(List)}.
	 */
	@Override
	public void onAcquired(LockHandle handle) {
		LockTags.Site site = tags.site(handle);
		LockObservationContext context = new LockObservationContext(handle, tags.provider(), site.keyPrefix(),
				site.method());
		Acquiring current = acquiring.get();
		if (current != null) {
			// A tracer takes the current span over the parent observation's, so the wait must no longer be current.
			current.closeScope();
		}
		@Nullable Observation parent = current != null ? current.caller : registry.getCurrentObservation();
		Observation observation = Observation
			.createNotStarted(usable(convention, context), DEFAULT_CONVENTION, () -> context, registry)
			.parentObservation(parent)
			.start();
		if (!observation.isNoop()) {
			open.put(handle, observation);
		}
	}

	/**
	 * Makes the hold of the first handle (a group's first member in key order) current for the guarded work.
	 */
	@Override
	public Scope onWorkStarted(List<LockHandle> handles) {
		Observation observation = open.get(handles.get(0));
		if (observation == null) {
			return Scope.NONE;
		}
		Observation.Scope scope = observation.openScope();
		return scope::close;
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
	 * How many hold observations are open; for tests that prove none leak.
	 */
	int openObservations() {
		return open.size();
	}

	/**
	 * Whether an acquisition observation is open on this thread; for tests that prove none leak.
	 */
	boolean acquiringOnThisThread() {
		return acquiring.get() != null;
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

	// A user's convention bean, unless it is for another context (a raw ObservationConvention bean matches both).
	private static <C extends Observation.Context> @Nullable ObservationConvention<C> usable(
			@Nullable ObservationConvention<C> custom, C context) {
		return custom != null && custom.supportsContext(context) ? custom : null;
	}

	/**
	 * One acquisition running on a thread, current (its scope open) from its start until the grant or its end.
	 */
	private static final class Acquiring {

		// The very object the template passes to the start and the end of one acquisition.
		private final LockAttempt attempt;

		private final Observation observation;

		private final LockAcquireObservationContext context;

		private Observation.@Nullable Scope scope;

		// The observation current when it started: the parent of both the acquisition and its holds.
		private final @Nullable Observation caller;

		// The acquisition it runs inside, if a listener or provider took a lock while acquiring.
		private final @Nullable Acquiring previous;

		Acquiring(LockAttempt attempt, Observation observation, LockAcquireObservationContext context,
				Observation.Scope scope, @Nullable Observation caller, @Nullable Acquiring previous) {
			this.attempt = attempt;
			this.observation = observation;
			this.context = context;
			this.scope = scope;
			this.caller = caller;
			this.previous = previous;
		}

		// Once: at the first grant (a group has one per member), else at the end.
		void closeScope() {
			Observation.Scope open = scope;
			if (open != null) {
				scope = null;
				open.close();
			}
		}

	}

}
