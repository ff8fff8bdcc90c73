package dev.distlock.autoconfigure.diagnostics;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.util.ClassUtils;

import dev.distlock.core.InvalidLockOptionException;

/**
 * Reports {@code distributed-lock.provider=redis} (or {@code mongo}, {@code jdbc}) when that store's provider could not be
 * configured, naming what is missing: distlock's store module, Spring Data for the store, or the one connection bean
 * the provider is built on.
 */
class MissingLockStoreFailureAnalyzer extends AbstractFailureAnalyzer<InvalidLockOptionException> {

	static final String PROVIDER = "distributed-lock.provider";

	private static final Store REDIS = new Store("redis", "Redis", "dev.distlock.redis.RedisLockProvider",
			"dev.distlock:lock-redis", "org.springframework.data.redis.connection.RedisConnectionFactory",
			"org.springframework.boot:spring-boot-starter-data-redis", "spring.data.redis.*");

	private static final Store MONGO = new Store("mongo", "MongoDB", "dev.distlock.mongo.MongoLockProvider",
			"dev.distlock:lock-mongo", "org.springframework.data.mongodb.core.MongoTemplate",
			"org.springframework.boot:spring-boot-starter-data-mongodb", "spring.mongodb.*");

	private static final Store JDBC = new Store("jdbc", "JDBC", "dev.distlock.jdbc.JdbcLockProvider",
			"dev.distlock:lock-jdbc", "javax.sql.DataSource", "org.springframework.boot:spring-boot-starter-jdbc",
			"spring.datasource.*");

	private final @Nullable BeanFactory beanFactory;

	MissingLockStoreFailureAnalyzer(@Nullable BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	@Override
	protected @Nullable FailureAnalysis analyze(Throwable rootFailure, InvalidLockOptionException cause) {
		Store store = store(cause);
		if (store == null || beanFactory == null) {
			return null;
		}
		String opening = "'" + PROVIDER + "' is " + store.name + ", but no " + store.title
				+ " lock provider could be configured: ";
		List<String> missing = new ArrayList<>();
		if (!isPresent(store.providerClass)) {
			missing.add(store.module);
		}
		if (!isPresent(store.connectionClass)) {
			missing.add(store.starter);
		}
		String connection = ClassUtils.getShortName(store.connectionClass);
		if (!missing.isEmpty()) {
			return new FailureAnalysis(opening + String.join(" and ", missing) + (missing.size() > 1 ? " are" : " is")
					+ " not on the classpath.", "Add " + String.join(" and ", missing)
							+ " to the application's dependencies, or set " + PROVIDER + " to another store.",
					cause);
		}
		String[] beans = connectionBeans(store);
		if (beans.length == 0) {
			return new FailureAnalysis(opening + "the application has no " + connection + " bean.",
					"Add " + store.starter + ", which configures one from " + store.properties + ", or declare a "
							+ connection + " bean.",
					cause);
		}
		if (beans.length > 1) {
			return new FailureAnalysis(
					opening + "the application has " + beans.length + " " + connection + " beans "
							+ Arrays.toString(beans) + " and none is primary.",
					"Mark the " + connection + " the locks should use as @Primary, or declare a LockProvider bean "
							+ "built on it.",
					cause);
		}
		return new FailureAnalysis(opening + "its auto-configuration did not run although " + store.module + " and a "
				+ connection + " bean are present.", "Check that the application does not exclude distlock's "
						+ store.title + " auto-configuration, or declare a LockProvider bean.",
				cause);
	}

	/**
	 * Whether the error is a store asked for in {@code distributed-lock.provider} that could not be configured.
	 */
	static boolean handles(InvalidLockOptionException error) {
		return store(error) != null;
	}

	// The core auto-configuration's detail opens with "is redis,", "is mongo," or "is jdbc,".
	private static @Nullable Store store(InvalidLockOptionException error) {
		if (!PROVIDER.equals(error.option())) {
			return null;
		}
		String detail = error.detail().toLowerCase(Locale.ROOT);
		return detail.startsWith("is redis,") ? REDIS : detail.startsWith("is mongo,") ? MONGO
				: detail.startsWith("is jdbc,") ? JDBC : null;
	}

	private boolean isPresent(String className) {
		ClassLoader classLoader = (beanFactory instanceof ConfigurableBeanFactory configurable)
				? configurable.getBeanClassLoader() : null;
		return ClassUtils.isPresent(className, classLoader);
	}

	private String[] connectionBeans(Store store) {
		if (!(beanFactory instanceof ListableBeanFactory listable)) {
			return new String[0];
		}
		ClassLoader classLoader = (beanFactory instanceof ConfigurableBeanFactory configurable)
				? configurable.getBeanClassLoader() : null;
		Class<?> type = ClassUtils.resolveClassName(store.connectionClass, classLoader);
		return listable.getBeanNamesForType(type, true, false);
	}

	private record Store(String name, String title, String providerClass, String module, String connectionClass,
			String starter, String properties) {
	}

}
