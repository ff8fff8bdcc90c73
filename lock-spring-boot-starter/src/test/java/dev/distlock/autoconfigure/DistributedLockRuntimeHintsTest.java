package dev.distlock.autoconfigure;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.core.io.support.SpringFactoriesLoader;

import dev.distlock.autoconfigure.actuate.ForceReleaseLocksEndpoint;
import dev.distlock.autoconfigure.actuate.LocksActuatorProperties;
import dev.distlock.autoconfigure.actuate.LocksDescriptor;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.redis.RedisLockSettings;
import dev.distlock.spring.LockExpressionRoot;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hints a native image gets from the starter, registered as Spring's AOT processing finds them: through
 * {@code META-INF/spring/aot.factories}. Members are listed by reflection, so a getter or record component added later
 * is checked without editing this test.
 */
class DistributedLockRuntimeHintsTest {

	@Test
	void keyExpressionsCanCallEveryGetterOfTheirRoot() throws Exception {
		RuntimeHints hints = hintsFromAotFactories(getClass().getClassLoader());

		List<Method> getters = publicGetters(LockExpressionRoot.class);
		assertThat(getters).extracting(Method::getName)
			.contains("getMethod", "getMethodName", "getTarget", "getArgs");
		for (Method getter : getters) {
			assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(getter)).as(getter.toString())
				.accepts(hints);
		}
		// #root.method.name and #root.target.class.simpleName: the names ReflectionGuard lets through.
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Method.class.getMethod("getName")))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Class.class.getMethod("getName")))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Class.class.getMethod("getSimpleName")))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Method.class.getMethod("invoke",
				Object.class, Object[].class)))
			.rejects(hints);
	}

	@Test
	void everyRecordTheLocksEndpointWritesCanBeReadByJackson() {
		RuntimeHints hints = hintsFromAotFactories(getClass().getClassLoader());

		List<Class<?>> records = new ArrayList<>(List.of(LocksDescriptor.class,
				ForceReleaseLocksEndpoint.ForceReleased.class, LockInfo.class));
		Arrays.stream(LocksDescriptor.class.getDeclaredClasses()).filter(Class::isRecord).forEach(records::add);
		assertThat(records).contains(LocksDescriptor.HeldLock.class, LocksDescriptor.StoreLocks.class,
				LocksDescriptor.Query.class, LocksDescriptor.StoreLock.class);
		for (Class<?> type : records) {
			for (RecordComponent component : type.getRecordComponents()) {
				assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(component.getAccessor()))
					.as(type.getSimpleName() + "." + component.getName())
					.accepts(hints);
			}
		}
	}

	@Test
	void everyPropertiesClassCanBeBoundBySetter() {
		RuntimeHints hints = hintsFromAotFactories(getClass().getClassLoader());

		for (Class<?> type : List.of(DistributedLockProperties.class,
				RedisLockProperties.class, MongoLockProperties.class, LocksActuatorProperties.class)) {
			List<Method> setters = Arrays.stream(type.getDeclaredMethods())
				.filter(method -> Modifier.isPublic(method.getModifiers()) && method.getName().startsWith("set"))
				.toList();
			assertThat(setters).as(type.getSimpleName()).isNotEmpty();
			for (Method setter : setters) {
				assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(setter)).as(setter.toString())
					.accepts(hints);
			}
		}
	}

	@Test
	void withoutTheActuatorOrAStoreModuleTheirTypesAreLeftAlone() {
		RuntimeHints hints = hintsFromAotFactories(new FilteredClassLoader(Endpoint.class, RedisLockSettings.class));

		assertThat(RuntimeHintsPredicates.reflection().onType(LocksDescriptor.class)).rejects(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(RedisLockProperties.class)).rejects(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(MongoLockProperties.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(LockExpressionRoot.class)).accepts(hints);
	}

	private static RuntimeHints hintsFromAotFactories(ClassLoader classLoader) {
		RuntimeHints hints = new RuntimeHints();
		List<RuntimeHintsRegistrar> registrars = SpringFactoriesLoader
			.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class);
		assertThat(registrars).hasAtLeastOneElementOfType(DistributedLockRuntimeHints.class);
		registrars.stream()
			.filter(DistributedLockRuntimeHints.class::isInstance)
			.forEach(registrar -> registrar.registerHints(hints, classLoader));
		return hints;
	}

	private static List<Method> publicGetters(Class<?> type) {
		return Arrays.stream(type.getDeclaredMethods())
			.filter(method -> Modifier.isPublic(method.getModifiers()) && method.getName().startsWith("get"))
			.toList();
	}

}
