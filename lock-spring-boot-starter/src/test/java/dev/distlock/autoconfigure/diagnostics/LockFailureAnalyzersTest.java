package dev.distlock.autoconfigure.diagnostics;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.Predicate;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.stereotype.Service;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.autoconfigure.MongoLockAutoConfiguration;
import dev.distlock.autoconfigure.RedisLockAutoConfiguration;
import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.LockAnnotationException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * What each failure analyzer makes of a real startup failure: the description names the property, method or missing
 * dependency, and the action says what to change.
 */
class LockFailureAnalyzersTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(AutoConfigurations
		.of(RedisLockAutoConfiguration.class, MongoLockAutoConfiguration.class, DistributedLockAutoConfiguration.class));

	@Test
	void negativeTimeoutNamesThePropertyItsRuleAndWhereItWasSet() {
		FailureAnalysis analysis = optionAnalysis(runner.withPropertyValues("distributed-lock.timeout=-5s"));
		assertThat(analysis.getDescription())
			.startsWith("The property 'distributed-lock.timeout' is invalid: must be positive, was PT-5S.")
			.contains("Origin: \"distributed-lock.timeout\" from property source \"test\"");
		assertThat(analysis.getAction()).isEqualTo("Change 'distributed-lock.timeout' in the application's "
				+ "configuration (it must be positive), or remove it to use its default.");
	}

	@Test
	void eachInvalidPropertyIsNamed() {
		assertThat(optionAnalysis(runner.withPropertyValues("distributed-lock.backoff-multiplier=0.5")))
			.satisfies(analysis -> assertThat(analysis.getDescription())
				.startsWith("The property 'distributed-lock.backoff-multiplier' is invalid: must be a number from 1.0 "
						+ "to 100.0, was 0.5."))
			.satisfies(analysis -> assertThat(analysis.getAction()).contains("(it must be a number from 1.0 to 100.0)"));
		assertThat(optionAnalysis(runner.withPropertyValues("distributed-lock.key-prefix=a{b")).getDescription())
			.startsWith("The property 'distributed-lock.key-prefix' is invalid: must not contain '{' or '}'");
	}

	@Test
	void invalidAnnotationAttributeNamesTheMethodNotTheOption() {
		Started started = new Started();
		started.runner(runner.withPropertyValues("distributed-lock.provider=in-memory").withBean(NegativeLease.class))
			.run(context -> {
				Throwable failure = context.getStartupFailure();
				assertThat(new InvalidLockOptionFailureAnalyzer(started.context.getEnvironment()).analyze(failure))
					.isNull();
				FailureAnalysis analysis = new LockAnnotationFailureAnalyzer().analyze(failure);
				assertThat(analysis.getDescription()).startsWith("The @DistributedLock annotation on "
						+ "NegativeLease.run() is invalid: ").contains("timeout");
				assertThat(analysis.getAction())
					.isEqualTo("Correct the @DistributedLock annotation on NegativeLease.run().");
			});
	}

	@Test
	void keyNamingAMissingParameterNamesTheMethodAndTheParameters() {
		runner.withPropertyValues("distributed-lock.provider=in-memory").withBean(MissingParameter.class).run(context -> {
			FailureAnalysis analysis = new LockAnnotationFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).isEqualTo("The @DistributedLock annotation on "
					+ "MissingParameter.reserve(String) is invalid: key expression '#seatId' references #seatId, which "
					+ "is not a parameter of the method (parameters: seat; compile with -parameters to use names).");
			assertThat(analysis.getAction()).isEqualTo("Correct the @DistributedLock annotation on "
					+ "MissingParameter.reserve(String).");
		});
	}

	@Test
	void classCompiledWithoutParameterNamesGetsTheCompilerFlagAsItsAction(@TempDir Path dir) throws Exception {
		Class<?> compiled = compileWithoutParameters(dir, "example.Reservations", """
				package example;

				public class Reservations {

					@dev.distlock.spring.DistributedLock(key = "'seat:' + #seat")
					public void reserve(String seat) {
					}

				}
				""");
		runner.withPropertyValues("distributed-lock.provider=in-memory")
			.withClassLoader(compiled.getClassLoader())
			.withBean("reservations", Object.class, () -> newInstance(compiled))
			.run(context -> {
				assertThat(context).hasFailed().getFailure().isInstanceOf(LockAnnotationException.class);
				FailureAnalysis analysis = new LockAnnotationFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).startsWith("The @DistributedLock annotation on "
						+ "Reservations.reserve(String) is invalid: key expression ''seat:' + #seat' references #seat")
					.contains("(parameters: #p0..#p0;");
				assertThat(analysis.getAction()).startsWith("Compile Reservations.reserve(String)'s class with the "
						+ "-parameters flag")
					.contains("<parameters>true</parameters>")
					.endsWith("or refer to the parameters by position: #p0, #p1 and so on.");
			});
	}

	@Test
	void redisWithoutLockRedisNamesTheModule() {
		FailureAnalysis analysis = storeAnalysis(runner.withPropertyValues("distributed-lock.provider=redis")
			.withClassLoader(withoutJars("dev.distlock.redis")));
		assertThat(analysis.getDescription()).isEqualTo("'distributed-lock.provider' is redis, but no Redis lock "
				+ "provider could be configured: dev.distlock:lock-redis is not on the classpath.");
		assertThat(analysis.getAction()).isEqualTo("Add dev.distlock:lock-redis to the application's dependencies, "
				+ "or set distributed-lock.provider to another store.");
	}

	@Test
	void redisWithoutSpringDataRedisNamesTheStarter() {
		FailureAnalysis analysis = storeAnalysis(runner.withPropertyValues("distributed-lock.provider=redis")
			.withClassLoader(withoutJars("org.springframework.data.redis")));
		assertThat(analysis.getDescription()).endsWith(
				"org.springframework.boot:spring-boot-starter-data-redis is not on the classpath.");
		assertThat(analysis.getAction()).startsWith("Add org.springframework.boot:spring-boot-starter-data-redis ");
	}

	@Test
	void mongoWithNeitherModuleNamesBoth() {
		FailureAnalysis analysis = storeAnalysis(runner.withPropertyValues("distributed-lock.provider=mongo")
			.withClassLoader(withoutJars("dev.distlock.mongo", "org.springframework.data.mongodb")));
		assertThat(analysis.getDescription()).isEqualTo("'distributed-lock.provider' is mongo, but no MongoDB lock "
				+ "provider could be configured: dev.distlock:lock-mongo and "
				+ "org.springframework.boot:spring-boot-starter-data-mongodb are not on the classpath.");
	}

	@Test
	void redisWithoutConnectionFactoryBeanSaysHowToGetOne() {
		FailureAnalysis analysis = storeAnalysis(runner.withPropertyValues("distributed-lock.provider=redis"));
		assertThat(analysis.getDescription()).isEqualTo("'distributed-lock.provider' is redis, but no Redis lock "
				+ "provider could be configured: the application has no RedisConnectionFactory bean.");
		assertThat(analysis.getAction()).isEqualTo("Add org.springframework.boot:spring-boot-starter-data-redis, "
				+ "which configures one from spring.data.redis.*, or declare a RedisConnectionFactory bean.");
	}

	@Test
	void redisWithTwoConnectionFactoriesAsksForAPrimaryOne() {
		FailureAnalysis analysis = storeAnalysis(runner.withPropertyValues("distributed-lock.provider=redis")
			.withBean("cache", RedisConnectionFactory.class, () -> mock(RedisConnectionFactory.class))
			.withBean("sessions", RedisConnectionFactory.class, () -> mock(RedisConnectionFactory.class)));
		assertThat(analysis.getDescription()).endsWith("the application has 2 RedisConnectionFactory beans "
				+ "[cache, sessions] and none is primary.");
		assertThat(analysis.getAction()).startsWith("Mark the RedisConnectionFactory the locks should use as @Primary");
	}

	@Test
	void otherFailuresAreLeftToOtherAnalyzers() {
		Throwable unrelated = new IllegalStateException("no");
		assertThat(new InvalidLockOptionFailureAnalyzer(null).analyze(unrelated)).isNull();
		assertThat(new LockAnnotationFailureAnalyzer().analyze(unrelated)).isNull();
		assertThat(new MissingLockStoreFailureAnalyzer(null).analyze(unrelated)).isNull();
		Started started = new Started();
		started.runner(runner.withPropertyValues("distributed-lock.timeout=-5s"))
			.run(context -> assertThat(new MissingLockStoreFailureAnalyzer(started.context.getBeanFactory())
				.analyze(context.getStartupFailure())).isNull());
	}

	private static FailureAnalysis optionAnalysis(ApplicationContextRunner runner) {
		FailureAnalysis[] analysis = new FailureAnalysis[1];
		Started started = new Started();
		started.runner(runner).run(context -> {
			assertThat(context).hasFailed();
			analysis[0] = new InvalidLockOptionFailureAnalyzer(started.context.getEnvironment())
				.analyze(context.getStartupFailure());
		});
		assertThat(analysis[0]).isNotNull();
		return analysis[0];
	}

	private static FailureAnalysis storeAnalysis(ApplicationContextRunner runner) {
		FailureAnalysis[] analysis = new FailureAnalysis[1];
		Started started = new Started();
		started.runner(runner).run(context -> {
			assertThat(context).hasFailed();
			Throwable failure = context.getStartupFailure();
			// As SpringApplication does: the failed context's bean factory, before the context is closed.
			analysis[0] = new MissingLockStoreFailureAnalyzer(started.context.getBeanFactory()).analyze(failure);
			// The generic analyzer leaves it to this one.
			assertThat(new InvalidLockOptionFailureAnalyzer(started.context.getEnvironment()).analyze(failure))
				.isNull();
		});
		assertThat(analysis[0]).isNotNull();
		return analysis[0];
	}

	/** The context a runner creates, which a failed run's assertable context no longer hands out. */
	private static final class Started {

		private ConfigurableApplicationContext context;

		ApplicationContextRunner runner(ApplicationContextRunner runner) {
			return runner.withInitializer(created -> this.context = created);
		}

	}

	private static FilteredClassLoader withoutJars(String... packages) {
		Predicate<String> hidden = name -> Arrays.stream(packages)
			.anyMatch(pkg -> name.startsWith(pkg) || name.startsWith(pkg.replace('.', '/')));
		return new FilteredClassLoader(hidden);
	}

	private static Class<?> compileWithoutParameters(Path dir, String className, String source) throws IOException,
			ClassNotFoundException {
		Path file = dir.resolve(className.replace('.', '/') + ".java");
		Files.createDirectories(file.getParent());
		Files.writeString(file, source);
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		// Surefire's own jar may stand for the whole class path, which it then names in this property.
		String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
		int status = compiler.run(null, null, null, "-proc:none", "-classpath", classPath, "-d", dir.toString(),
				file.toString());
		assertThat(status).isZero();
		URLClassLoader loader = new URLClassLoader(new URL[] { dir.toUri().toURL() },
				LockFailureAnalyzersTest.class.getClassLoader());
		return loader.loadClass(className);
	}

	private static Object newInstance(Class<?> type) {
		try {
			return type.getConstructor().newInstance();
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Service
	static class NegativeLease {

		@DistributedLock(key = "'k'", timeoutString = "-1s")
		public void run() {
		}

	}

	@Service
	static class MissingParameter {

		@DistributedLock(key = "#seatId")
		public void reserve(String seat) {
		}

	}

}
