package dev.distlock.spring;

import java.lang.reflect.Method;

/**
 * The {@code #root} of a key expression: {@code #root.method}, {@code #root.target}, {@code #root.args} and
 * {@code #root.methodName}.
 */
public final class LockExpressionRoot {

	private final Method method;

	private final Object target;

	private final @org.jspecify.annotations.Nullable Object[] args;

	LockExpressionRoot(Method method, Object target, @org.jspecify.annotations.Nullable Object[] args) {
		this.method = method;
		this.target = target;
		this.args = args;
	}

	/** The annotated method. */
	public Method getMethod() {
		return method;
	}

	/** The annotated method's name. */
	public String getMethodName() {
		return method.getName();
	}

	/** The bean the method runs on. */
	public Object getTarget() {
		return target;
	}

	/** The call's arguments. */
	public @org.jspecify.annotations.Nullable Object[] getArgs() {
		return args;
	}

}
