package dev.distlock.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Conditional;

/**
 * Matches when {@code distributed-lock.provider} is {@code auto} (or unset) or the given store.
 */
@Target({ ElementType.TYPE, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Conditional(OnLockProviderCondition.class)
@interface ConditionalOnLockProvider {

	/**
	 * The store the annotated configuration provides.
	 */
	LockProviderType value();

}
