package dev.distlock.spring;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.DistributedLockException;

/**
 * A {@link DistributedLock @DistributedLock} declaration is invalid: a key expression does not parse or names a missing
 * parameter, or an attribute has a bad value. Thrown at startup; the message names the method.
 */
public class LockAnnotationException extends DistributedLockException {

	private final String method;

	/**
	 * Creates the error for the method.
	 */
	public LockAnnotationException(Method method, String message, @Nullable Throwable cause) {
		super(null, "Invalid @DistributedLock on " + MethodNames.describe(method) + ": " + message, cause);
		this.method = MethodNames.describe(method);
	}

	/**
	 * The method at fault, such as {@code OrderService.reserve(String,int)}.
	 */
	public String method() {
		return method;
	}

}
