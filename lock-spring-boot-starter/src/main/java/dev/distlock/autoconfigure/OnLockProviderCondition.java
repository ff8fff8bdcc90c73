package dev.distlock.autoconfigure;

import java.util.Map;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Reads {@code distributed-lock.provider} through the binder, so a name that is not a store fails startup naming the
 * property.
 */
final class OnLockProviderCondition extends SpringBootCondition {

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		Map<String, Object> attributes = metadata.getAnnotationAttributes(ConditionalOnLockProvider.class.getName());
		LockProviderType wanted = (LockProviderType) attributes.get("value");
		LockProviderType chosen = Binder.get(context.getEnvironment())
			.bind("distributed-lock.provider", LockProviderType.class)
			.orElse(LockProviderType.AUTO);
		if (chosen == LockProviderType.AUTO || chosen == wanted) {
			return ConditionOutcome.match("distributed-lock.provider is " + chosen);
		}
		return ConditionOutcome.noMatch("distributed-lock.provider is " + chosen + ", not " + wanted);
	}

}
