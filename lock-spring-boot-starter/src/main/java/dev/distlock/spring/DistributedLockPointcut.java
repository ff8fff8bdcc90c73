package dev.distlock.spring;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;

/**
 * Matches methods annotated with {@link DistributedLock}, directly, through an interface or superclass, or through
 * their class (then public methods only); or only those whose lock is {@link DistributedLock#transactionScoped()}.
 */
final class DistributedLockPointcut extends StaticMethodMatcherPointcut {

	private final boolean transactionScopedOnly;

	/**
	 * Matches every locked method.
	 */
	DistributedLockPointcut() {
		this(false);
	}

	/**
	 * Matches every locked method, or only those whose lock is transaction-scoped.
	 */
	DistributedLockPointcut(boolean transactionScopedOnly) {
		this.transactionScopedOnly = transactionScopedOnly;
	}

	@Override
	public boolean matches(Method method, Class<?> targetClass) {
		DistributedLock annotation = find(method, targetClass);
		return annotation != null && (!transactionScopedOnly || annotation.transactionScoped());
	}

	/**
	 * The annotation governing the method on the target class, or null.
	 */
	static @Nullable DistributedLock find(Method method, Class<?> targetClass) {
		if (method.isBridge() || method.isSynthetic() || method.getDeclaringClass() == Object.class) {
			return null;
		}
		Class<?> userClass = ClassUtils.getUserClass(targetClass);
		Method specific = AopUtils.getMostSpecificMethod(method, userClass);
		DistributedLock annotation = AnnotatedElementUtils.findMergedAnnotation(specific, DistributedLock.class);
		if (annotation == null && specific != method) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
		}
		if (annotation == null && Modifier.isPublic(method.getModifiers()) && !Modifier.isStatic(method.getModifiers())) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(userClass, DistributedLock.class);
		}
		return annotation;
	}

}
