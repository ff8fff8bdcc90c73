package dev.distlock.spring;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;
import org.springframework.expression.EvaluationException;

import dev.distlock.core.DistributedLockException;

/**
 * A key expression failed when evaluated for a call, such as an index past the arguments, a method missing on an
 * argument or throwing, a reach for reflection, or a value without a stable text (one with only an identity
 * {@code toString()}). Nothing was locked and the method did not run; the message names the method and the expression.
 */
public class LockKeyEvaluationException extends DistributedLockException {

	private final String method;

	private final String expression;

	/**
	 * Creates the error for the method and expression.
	 */
	public LockKeyEvaluationException(Method method, String expression, @Nullable Throwable cause) {
		super(null, "Lock key expression '" + expression + "' of " + MethodNames.describe(method) + " failed"
				+ (cause != null ? ": " + describe(cause) : ""), cause);
		this.method = MethodNames.describe(method);
		this.expression = expression;
	}

	/**
	 * Creates the error for the method and expression, saying what is wrong with it.
	 */
	public LockKeyEvaluationException(Method method, String expression, String reason, @Nullable Throwable cause) {
		super(null, "Lock key expression '" + expression + "' of " + MethodNames.describe(method) + " failed: " + reason,
				cause);
		this.method = MethodNames.describe(method);
		this.expression = expression;
	}

	/**
	 * The method whose key failed, as {@code OrderService.place(Order)}.
	 * @return the method's description
	 */
	public String method() {
		return method;
	}

	/**
	 * The key expression that failed, as written on the annotation.
	 * @return the expression
	 */
	public String expression() {
		return expression;
	}

	// SpEL's own messages say enough; a method's exception (such as substring's) needs its type to be understood.
	private static @Nullable String describe(Throwable cause) {
		return cause instanceof EvaluationException ? cause.getMessage() : cause.toString();
	}

}
