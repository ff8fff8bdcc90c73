package dev.distlock.spring;

import java.util.Set;

import org.jspecify.annotations.Nullable;
import org.springframework.expression.AccessException;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.MethodResolver;
import org.springframework.expression.PropertyAccessor;
import org.springframework.expression.TypedValue;

/**
 * Keeps key expressions away from reflection: no method may be called on a {@code java.lang.reflect} or
 * {@code java.lang.invoke} object, a {@code Class}, a {@code ClassLoader}, a {@code Module} or a {@code Thread}, and of
 * their properties only {@code name} and {@code simpleName} may be read. Otherwise
 * {@code #root.method.invoke(#root.target, #root.args)} would run the method body, unlocked, while its key is built.
 */
final class ReflectionGuard {

	// Harmless text: #root.method.name is a documented way to build a key.
	private static final Set<String> readableProperties = Set.of("name", "simpleName");

	private ReflectionGuard() {
	}

	/**
	 * Whether values of the type give a way to reflection, class loading or threads.
	 */
	static boolean isRestricted(Class<?> type) {
		String packageName = type.getPackageName();
		return packageName.equals("java.lang.reflect") || packageName.equals("java.lang.invoke") || type == Class.class
				|| ClassLoader.class.isAssignableFrom(type) || type == Module.class || type == ModuleLayer.class
				|| Thread.class.isAssignableFrom(type) || type == Runtime.class || Process.class.isAssignableFrom(type)
				|| type == ProcessBuilder.class;
	}

	private static String describe(Object target) {
		return target instanceof Class<?> ? "java.lang.Class" : target.getClass().getName();
	}

	/**
	 * Resolves methods through the given resolver, refusing any on a restricted target.
	 */
	static MethodResolver methods(MethodResolver resolver) {
		return (context, target, name, argumentTypes) -> {
			if (isRestricted(target.getClass())) {
				throw new Refused("calls " + name + "() on a " + describe(target) + "; key expressions may not invoke "
						+ "methods of java.lang.reflect, Class, ClassLoader or Thread");
			}
			return resolver.resolve(context, target, name, argumentTypes);
		};
	}

	/**
	 * A property accessor, to be tried first, that refuses to read properties of restricted targets other than
	 * {@code name} and {@code simpleName}, which the next accessors then read.
	 */
	static PropertyAccessor properties() {
		return new ReadOnlyPropertyAccessor() {

			@Override
			public Class<?> @Nullable [] getSpecificTargetClasses() {
				return null;
			}

			@Override
			public boolean canRead(EvaluationContext context, @Nullable Object target, String name) {
				return target != null && isRestricted(target.getClass()) && !readableProperties.contains(name);
			}

			@Override
			public TypedValue read(EvaluationContext context, @Nullable Object target, String name)
					throws AccessException {
				throw new Refused("reads '" + name + "' of a " + (target != null ? describe(target) : "null")
						+ "; key expressions may read only the name of reflective objects");
			}

		};
	}

	/**
	 * A reach for reflection, found in an evaluation error's causes to name it plainly.
	 */
	static final class Refused extends AccessException {

		Refused(String message) {
			super(message);
		}

	}

}
