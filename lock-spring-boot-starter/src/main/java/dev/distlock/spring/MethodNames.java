package dev.distlock.spring;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.stream.Collectors;

import org.springframework.util.ClassUtils;

/**
 * Names methods in messages and default keys.
 */
final class MethodNames {

	private MethodNames() {
	}

	/**
	 * {@code OrderService.reserve(String,int)}.
	 */
	static String describe(Method method) {
		return ClassUtils.getUserClass(method.getDeclaringClass()).getSimpleName() + "." + method.getName()
				+ Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(",", "(", ")"));
	}

	/**
	 * The default key {@code ClassName.methodName}, after the user class rather than a proxy.
	 */
	static String defaultKey(Method method, Class<?> targetClass) {
		return ClassUtils.getUserClass(targetClass).getSimpleName() + "." + method.getName();
	}

}
