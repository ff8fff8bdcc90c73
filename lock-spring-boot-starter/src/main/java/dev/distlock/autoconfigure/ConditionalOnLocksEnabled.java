package dev.distlock.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Conditional;

/**
 * Matches when {@code distributed-lock.enabled} is {@code true} or unset; a value that is not a boolean fails startup
 * naming the property, rather than quietly leaving every lock off.
 */
@Target({ ElementType.TYPE, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Conditional(OnLocksEnabledCondition.class)
@interface ConditionalOnLocksEnabled {

}
