package dev.distlock.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Reads {@code distributed-lock.enabled} through the binder, as {@link DistributedLockProperties} does. Spring's
 * {@code @ConditionalOnBooleanProperty} would read {@code notaboolean} as "not true" and switch locking off without
 * a word; the binder refuses it, naming the property.
 */
final class OnLocksEnabledCondition extends SpringBootCondition {

	private static final String PROPERTY = "distributed-lock.enabled";

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		boolean enabled = Binder.get(context.getEnvironment()).bind(PROPERTY, Boolean.class).orElse(true);
		return enabled ? ConditionOutcome.match(PROPERTY + " is true")
				: ConditionOutcome.noMatch(PROPERTY + " is false");
	}

}
