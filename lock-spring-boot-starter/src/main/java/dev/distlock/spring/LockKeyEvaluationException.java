package dev.distlock.spring;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.DistributedLockException;

/**
 * A key expression failed when evaluated for a call, such as an index past the arguments or a method missing on an
 * argument. Nothing was locked and the method did not run; the message names the method and the expression.
 */
public class LockKeyEvaluationException extends DistributedLockException {

	/**
	 * Creates the error for the method and expression.
	 */
	public LockKeyEvaluationException(Method method, String expression, @Nullable Throwable cause) {
		super(null, "Lock key expression '" + expression + "' of " + Methods.describe(method) + " failed"
				+ (cause != null ? ": " + cause.getMessage() : ""), cause);
	}

}
