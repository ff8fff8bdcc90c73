package dev.distlock.autoconfigure.actuate;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

import dev.distlock.core.LockAttempt;

/**
 * Names the observation of an acquisition {@code distlock.acquire}, from the first attempt to the grant or the
 * give-up. Provider, mode, key prefix, method and (once ended) outcome are low-cardinality (metrics and spans); the
 * key and the number of attempts are high-cardinality (spans only). Extend it, or declare an
 * {@code ObservationConvention<LockAcquireObservationContext>} bean, to change them.
 */
public class DefaultLockAcquireObservationConvention implements ObservationConvention<LockAcquireObservationContext> {

	/**
	 * The observation name; with Boot's default handler it also yields the timer {@code distlock.acquire} and the long
	 * task timer {@code distlock.acquire.active} (callers waiting now).
	 */
	public static final String NAME = "distlock.acquire";

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(LockAcquireObservationContext context) {
		return "acquire " + (LockKeyTag.NONE.equals(context.getMethod()) ? context.getKeyPrefix() : context.getMethod());
	}

	/**
	 * The outcome is left out while the acquisition runs, so the long task timer of callers waiting now is tagged by
	 * lock only.
	 */
	@Override
	public KeyValues getLowCardinalityKeyValues(LockAcquireObservationContext context) {
		KeyValues tags = KeyValues.of(LockTags.PROVIDER, context.getProvider(), LockTags.MODE,
				LockTags.mode(context.getAttempt().mode()), LockKeyTag.TAG, context.getKeyPrefix(), LockTags.METHOD,
				context.getMethod());
		LockAttempt.Outcome outcome = context.getOutcome();
		return outcome == null ? tags : tags.and(LockTags.OUTCOME, LockTags.outcome(outcome));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(LockAcquireObservationContext context) {
		KeyValues keys = KeyValues.of("distlock.key", String.join(",", context.getAttempt().keys()));
		return context.getOutcome() == null ? keys
				: keys.and("distlock.attempts", Integer.toString(context.getAttempts()));
	}

	@Override
	public boolean supportsContext(Observation.Context context) {
		return context instanceof LockAcquireObservationContext;
	}

}
