package dev.distlock.autoconfigure.actuate;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names the observation of a held lock {@code distlock.lock}. Provider, mode, key prefix and method are
 * low-cardinality (metrics and spans); the full key and the fencing token are high-cardinality (spans only). Extend
 * it, or declare an {@code ObservationConvention<LockObservationContext>} bean, to change them.
 */
public class DefaultLockObservationConvention implements ObservationConvention<LockObservationContext> {

	/** The observation name; with Boot's default handler it also yields timers of the same name. */
	public static final String NAME = "distlock.lock";

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(LockObservationContext context) {
		return "lock " + (LockKeyTag.NONE.equals(context.getMethod()) ? context.getKeyPrefix() : context.getMethod());
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(LockObservationContext context) {
		return KeyValues.of(LockTags.PROVIDER, context.getProvider(), LockTags.MODE,
				LockTags.mode(context.getHandle().mode()), LockKeyTag.TAG, context.getKeyPrefix(), LockTags.METHOD,
				context.getMethod());
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(LockObservationContext context) {
		return KeyValues.of("distlock.key", context.getHandle().key(), "distlock.fencing.token",
				Long.toString(context.getHandle().fencingToken()));
	}

	@Override
	public boolean supportsContext(Observation.Context context) {
		return context instanceof LockObservationContext;
	}

}
