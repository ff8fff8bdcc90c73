package dev.distlock.autoconfigure;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import dev.distlock.autoconfigure.actuate.ForceReleaseLocksEndpoint;
import dev.distlock.autoconfigure.actuate.LocksActuatorProperties;
import dev.distlock.autoconfigure.actuate.LocksDescriptor;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.spring.LockExpressionRoot;

/**
 * What a native image needs of the starter, registered through {@code META-INF/spring/aot.factories}: the key
 * expressions' root object and the reflective names they may read, the records the {@code locks} endpoint writes as
 * JSON, and the properties classes. The types an application's own key expressions read ({@code #order.id}) are the
 * application's to register, as for any SpEL.
 */
final class DistributedLockRuntimeHints implements RuntimeHintsRegistrar {

	private static final String ENDPOINT = "org.springframework.boot.actuate.endpoint.annotation.Endpoint";

	private static final String REDIS_SETTINGS = "dev.distlock.redis.RedisLockSettings";

	private static final String MONGO_SETTINGS = "dev.distlock.mongo.MongoLockSettings";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		registerKeyExpressionHints(hints);
		BindableRuntimeHintsRegistrar.forTypes(DistributedLockProperties.class, LocksActuatorProperties.class)
			.registerHints(hints);
		// The store properties name their module's settings type, which is on the class path only with the module.
		if (ClassUtils.isPresent(REDIS_SETTINGS, classLoader)) {
			BindableRuntimeHintsRegistrar.forTypes(RedisLockProperties.class).registerHints(hints);
		}
		if (ClassUtils.isPresent(MONGO_SETTINGS, classLoader)) {
			BindableRuntimeHintsRegistrar.forTypes(MongoLockProperties.class).registerHints(hints);
		}
		// Written by Jackson in the endpoint's response; only there when the actuator is.
		if (ClassUtils.isPresent(ENDPOINT, classLoader)) {
			new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(), LocksDescriptor.class,
					ForceReleaseLocksEndpoint.ForceReleased.class, LockInfo.class);
		}
	}

	/**
	 * {@code #root.methodName}, {@code #root.args} and the like are read through the root's getters, and of
	 * reflective objects key expressions may read only {@code name} and {@code simpleName}.
	 */
	private static void registerKeyExpressionHints(RuntimeHints hints) {
		hints.reflection().registerType(LockExpressionRoot.class, MemberCategory.INVOKE_PUBLIC_METHODS);
		for (Method getter : new Method[] { method(Method.class, "getName"), method(Class.class, "getName"),
				method(Class.class, "getSimpleName") }) {
			hints.reflection().registerMethod(getter, ExecutableMode.INVOKE);
		}
	}

	private static Method method(Class<?> type, String name) {
		Method method = ReflectionUtils.findMethod(type, name);
		if (method == null) {
			throw new IllegalStateException(type.getName() + "." + name + "() not found");
		}
		return method;
	}

}
