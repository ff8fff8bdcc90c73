package dev.distlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.distlock.core.FailureMode;
import dev.distlock.core.InvalidLockOptionException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.memory.InMemoryLockProvider;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.mongo.MongoLockProvider;
import dev.distlock.mongo.testsupport.MongoTestServer;
import dev.distlock.redis.RedisLockProvider;
import dev.distlock.redis.RedisLockSettings;
import dev.distlock.spring.DistributedLockBeanPostProcessor;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(OutputCaptureExtension.class)
class DistributedLockAutoConfigurationTest {

	private static MongoTestServer mongo;

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(AutoConfigurations
		.of(RedisLockAutoConfiguration.class, MongoLockAutoConfiguration.class, DistributedLockAutoConfiguration.class));

	@BeforeAll
	static void startMongo() {
		mongo = MongoTestServer.startInProcess();
	}

	@AfterAll
	static void stopMongo() {
		mongo.close();
	}

	@Test
	void withoutStoreFallsBackToInMemoryWithPropertyDefaults() {
		runner.withPropertyValues("distributed-lock.timeout=30s", "distributed-lock.retries=3",
				"distributed-lock.delay=20ms", "distributed-lock.backoff-multiplier=2", "distributed-lock.max-delay=1s",
				"distributed-lock.on-failure=skip", "distributed-lock.auto-renew=true", "distributed-lock.key-prefix=app:")
			.run(context -> {
				assertThat(context).hasSingleBean(InMemoryLockProvider.class)
					.hasSingleBean(LockTemplate.class)
					.hasSingleBean(DistributedLockBeanPostProcessor.class);
				LockTemplate template = context.getBean(LockTemplate.class);
				assertThat(template.defaults()).isEqualTo(LockOptions.builder()
					.timeout(Duration.ofSeconds(30))
					.retries(3)
					.delay(Duration.ofMillis(20))
					.backoffMultiplier(2)
					.maxDelay(Duration.ofSeconds(1))
					.onFailure(FailureMode.SKIP)
					.autoRenew(true)
					.build());
				assertThat(template.keyPrefix()).isEqualTo("app:");
			});
	}

	@Test
	void redisConnectionFactorySelectsRedis() {
		runner.withUserConfiguration(RedisConfig.class)
			.run(context -> assertThat(context.getBean(LockProvider.class)).isInstanceOf(RedisLockProvider.class));
	}

	@Test
	void redisFencingIsOnByDefaultAndTurnedOffByItsProperty() {
		runner.withUserConfiguration(RedisConfig.class)
			.run(context -> assertThat(context.getBean(RedisLockProvider.class).settings().fencing()).isTrue());
		runner.withUserConfiguration(RedisConfig.class)
			.withPropertyValues("distributed-lock.redis.fencing=false")
			.run(context -> assertThat(context.getBean(RedisLockProvider.class).settings())
				.isEqualTo(RedisLockSettings.defaults().withFencing(false)));
	}

	@Test
	void mongoTemplateSelectsMongo() {
		runner.withUserConfiguration(MongoConfig.class)
			.run(context -> assertThat(context.getBean(LockProvider.class)).isInstanceOf(MongoLockProvider.class));
	}

	@Test
	void autoPrefersRedisOverMongo() {
		runner.withUserConfiguration(RedisConfig.class, MongoConfig.class)
			.run(context -> assertThat(context).hasSingleBean(LockProvider.class)
				.getBean(LockProvider.class)
				.isInstanceOf(RedisLockProvider.class));
	}

	@Test
	void explicitMongoWinsOverRedis() {
		runner.withUserConfiguration(RedisConfig.class, MongoConfig.class)
			.withPropertyValues("distributed-lock.provider=mongo")
			.run(context -> assertThat(context.getBean(LockProvider.class)).isInstanceOf(MongoLockProvider.class));
	}

	@Test
	void explicitInMemoryIgnoresRedis() {
		runner.withUserConfiguration(RedisConfig.class)
			.withPropertyValues("distributed-lock.provider=in-memory")
			.run(context -> assertThat(context.getBean(LockProvider.class)).isInstanceOf(InMemoryLockProvider.class));
	}

	@Test
	void missingRedisModuleFallsBackToInMemory() {
		runner.withUserConfiguration(RedisConfig.class)
			.withClassLoader(new FilteredClassLoader(RedisLockProvider.class))
			.run(context -> assertThat(context.getBean(LockProvider.class)).isInstanceOf(InMemoryLockProvider.class));
	}

	@Test
	void missingMongoModuleFallsBackToInMemory() {
		runner.withUserConfiguration(MongoConfig.class)
			.withClassLoader(new FilteredClassLoader(MongoLockProvider.class))
			.run(context -> assertThat(context.getBean(LockProvider.class)).isInstanceOf(InMemoryLockProvider.class));
	}

	@Test
	void explicitRedisWithoutRedisFailsNamingTheProperty() {
		runner.withPropertyValues("distributed-lock.provider=redis")
			.run(context -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("distributed-lock.provider")
				.hasMessageContaining("lock-redis"));
	}

	@Test
	void explicitMongoWithoutMongoModuleFailsNamingTheProperty() {
		runner.withUserConfiguration(MongoConfig.class)
			.withClassLoader(new FilteredClassLoader(MongoLockProvider.class))
			.withPropertyValues("distributed-lock.provider=mongo")
			.run(context -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("distributed-lock.provider")
				.hasMessageContaining("lock-mongo"));
	}

	@Test
	void unknownProviderFailsNamingTheProperty() {
		runner.withPropertyValues("distributed-lock.provider=zookeeper")
			.run(context -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("Failed to bind properties under 'distributed-lock.provider'"));
	}

	@Test
	void userProviderAndTemplateWin() {
		runner.withUserConfiguration(RedisConfig.class, UserBeans.class).run(context -> {
			assertThat(context.getBean(LockProvider.class)).isSameAs(UserBeans.provider);
			assertThat(context.getBean(LockTemplate.class)).isSameAs(context.getBean("userTemplate"));
		});
	}

	@Test
	void userMongoProviderWinsOverTheMongoStore() {
		runner.withUserConfiguration(MongoConfig.class, UserBeans.class)
			.run(context -> assertThat(context).hasSingleBean(LockProvider.class)
				.doesNotHaveBean(MongoLockProvider.class)
				.getBean(LockProvider.class)
				.isSameAs(UserBeans.provider));
	}

	@Test
	void userPostProcessorWins() {
		runner.withUserConfiguration(UserPostProcessor.class)
			.run(context -> assertThat(context).hasSingleBean(DistributedLockBeanPostProcessor.class)
				.getBean(DistributedLockBeanPostProcessor.class)
				.isSameAs(UserPostProcessor.postProcessor));
	}

	@Test
	void nonBooleanEnabledFailsStartupInsteadOfTurningLocksOff() {
		runner.withUserConfiguration(RedisConfig.class, MongoConfig.class)
			.withPropertyValues("distributed-lock.enabled=notaboolean")
			.run(context -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("Failed to bind properties under 'distributed-lock.enabled'"));
	}

	@Test
	void fallbackWarnsOnceThatLocksAreJvmLocal(CapturedOutput output) {
		runner.run(context -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			template.execute("warned", handle -> null);
			template.execute("warned", handle -> null);
		});
		// The simple name: once a Spring Boot test in the same JVM has set up Boot's logging, the logger's package is
		// abbreviated (d.d.a.DistributedLockAutoConfiguration).
		assertThat(output.getOut().lines().filter(line -> line.contains("WARN"))).singleElement()
			.asString()
			.contains(DistributedLockAutoConfiguration.class.getSimpleName())
			.contains("locks are JVM-local and do not exclude other instances");
	}

	@Test
	void explicitInMemoryDoesNotWarn(CapturedOutput output) {
		runner.withPropertyValues("distributed-lock.provider=in-memory")
			.run(context -> assertThat(context).hasSingleBean(InMemoryLockProvider.class));
		assertThat(output.getOut().lines().filter(line -> line.contains("WARN"))).isEmpty();
	}

	@Test
	void disabledConfiguresNothing() {
		runner.withUserConfiguration(RedisConfig.class)
			.withPropertyValues("distributed-lock.enabled=false")
			.run(context -> assertThat(context).doesNotHaveBean(LockProvider.class)
				.doesNotHaveBean(LockTemplate.class)
				.doesNotHaveBean(DistributedLockBeanPostProcessor.class));
	}

	@Test
	void listenerBeansHearLockEvents() {
		runner.withUserConfiguration(ListenerConfig.class).run(context -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			try (LockHandle handle = template.acquire("heard")) {
				assertThat(ListenerConfig.acquired).containsExactly("heard");
			}
		});
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			distributed-lock.timeout=0s                  | distributed-lock.timeout
			distributed-lock.retries=-1                  | distributed-lock.retries
			distributed-lock.delay=-5ms                  | distributed-lock.delay
			distributed-lock.backoff-multiplier=0.5      | distributed-lock.backoff-multiplier
			distributed-lock.max-delay=1ms               | distributed-lock.max-delay
			distributed-lock.max-wait=0s                 | distributed-lock.max-wait
			distributed-lock.timeout=ten seconds         | distributed-lock.timeout
			distributed-lock.on-failure=retry            | distributed-lock.on-failure
			distributed-lock.key-prefix=a\tb             | distributed-lock.key-prefix
			distributed-lock.owner=\t                    | distributed-lock.owner
			distributed-lock.enabled=notaboolean         | distributed-lock.enabled
			distributed-lock.auto-renew=sometimes        | distributed-lock.auto-renew
			distributed-lock.retries=three               | distributed-lock.retries
			distributed-lock.backoff-multiplier=fast     | distributed-lock.backoff-multiplier
			distributed-lock.backoff-multiplier=NaN      | distributed-lock.backoff-multiplier
			distributed-lock.delay=soon                  | distributed-lock.delay
			distributed-lock.max-delay=-1s               | distributed-lock.max-delay
			distributed-lock.max-wait=forever            | distributed-lock.max-wait
			distributed-lock.spel.bean-references=maybe  | distributed-lock.spel.bean-references
			distributed-lock.aop.order=first             | distributed-lock.aop.order
			distributed-lock.aop.before-existing-advisors=yes please | distributed-lock.aop.before-existing-advisors
			distributed-lock.shutdown-wait=0s            | distributed-lock.shutdown-wait
			""")
	void badCorePropertyFailsNamingIt(String property, String name) {
		runner.withPropertyValues(property.replace("\\t", "\t"))
			.run(context -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining(name));
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			distributed-lock.timeout=500us               | distributed-lock.timeout            | at least 1ms
			distributed-lock.delay=500us                 | distributed-lock.delay              | at least 1ms
			distributed-lock.max-wait=999us              | distributed-lock.max-wait           | at least 1ms
			distributed-lock.timeout=366d                | distributed-lock.timeout            | 365 days
			distributed-lock.max-wait=9999999d           | distributed-lock.max-wait           | 365 days
			distributed-lock.max-delay=400d              | distributed-lock.max-delay          | 365 days
			distributed-lock.delay=400d                  | distributed-lock.delay              | 365 days
			distributed-lock.backoff-multiplier=1e308    | distributed-lock.backoff-multiplier | 100
			distributed-lock.backoff-multiplier=Infinity | distributed-lock.backoff-multiplier | 100
			distributed-lock.key-prefix=app}:            | distributed-lock.key-prefix         | hash-tag braces
			distributed-lock.key-prefix={app}:           | distributed-lock.key-prefix         | hash-tag braces
			""")
	void outOfBoundsPropertyFailsStartupNamingItAndTheBound(String property, String name, String reason) {
		runner.withPropertyValues(property)
			.run(context -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidLockOptionException.class)
				.hasMessageContaining("'" + name + "'")
				.hasMessageContaining(reason));
	}

	@Test
	void keyPrefixLeavingNoRoomForAKeyFailsStartupNamingIt() {
		runner.withPropertyValues("distributed-lock.key-prefix=" + "p".repeat(512))
			.run(context -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidLockOptionException.class)
				.hasMessageContaining("'distributed-lock.key-prefix'")
				.hasMessageContaining("leaves no room for a key"));
	}

	@Test
	void subMillisecondMongoPurgeIntervalFailsStartupNamingIt() {
		runner.withUserConfiguration(MongoConfig.class)
			.withPropertyValues("distributed-lock.mongo.purge-interval=500us")
			.run(context -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidLockOptionException.class)
				.hasMessageContaining("'distributed-lock.mongo.purge-interval'")
				.hasMessageContaining("at least 1ms"));
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			distributed-lock.redis.namespace=\t          | distributed-lock.redis.namespace
			distributed-lock.redis.pub-sub=often         | distributed-lock.redis.pub-sub
			distributed-lock.redis.replica-acks=-1       | distributed-lock.redis.replica-acks
			distributed-lock.redis.fence-retention=0s    | distributed-lock.redis.fence-retention
			distributed-lock.enabled=notaboolean         | distributed-lock.enabled
			""")
	void badRedisPropertyFailsNamingIt(String property, String name) {
		runner.withUserConfiguration(RedisConfig.class)
			.withPropertyValues(property.replace("\\t", "\t"))
			.run(context -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining(name));
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			distributed-lock.mongo.write-concern=most    | distributed-lock.mongo.write-concern
			distributed-lock.mongo.collection=bad$name   | distributed-lock.mongo.collection
			distributed-lock.mongo.purge-interval=0s     | distributed-lock.mongo.purge-interval
			distributed-lock.mongo.purge-grace=-1s       | distributed-lock.mongo.purge-grace
			distributed-lock.mongo.purge-grace=30s       | distributed-lock.mongo.purge-grace
			distributed-lock.mongo.call-timeout=0s       | distributed-lock.mongo.call-timeout
			distributed-lock.mongo.purge-interval=hourly | distributed-lock.mongo.purge-interval
			distributed-lock.mongo.create-indexes=always | distributed-lock.mongo.create-indexes
			distributed-lock.mongo.collection=\t         | distributed-lock.mongo.collection
			distributed-lock.enabled=notaboolean         | distributed-lock.enabled
			""")
	void badMongoPropertyFailsNamingIt(String property, String name) {
		runner.withUserConfiguration(MongoConfig.class)
			.withPropertyValues(property.replace("\\t", "\t"))
			.run(context -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining(name));
	}

	@Configuration(proxyBeanMethods = false)
	static class RedisConfig {

		// Never started against a server: building the provider must not connect.
		@Bean
		RedisConnectionFactory redisConnectionFactory() {
			return new LettuceConnectionFactory(new RedisStandaloneConfiguration("localhost", 1));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class MongoConfig {

		@Bean
		MongoTemplate mongoTemplate() {
			return mongo.template();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserBeans {

		static final LockProvider provider = new InMemoryLockProvider();

		@Bean
		LockProvider userProvider() {
			return provider;
		}

		@Bean
		LockTemplate userTemplate() {
			return new LockTemplate(provider);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserPostProcessor {

		static final DistributedLockBeanPostProcessor postProcessor = new DistributedLockBeanPostProcessor(
				() -> new LockTemplate(new InMemoryLockProvider()), false);

		@Bean
		static DistributedLockBeanPostProcessor userLockPostProcessor() {
			return postProcessor;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ListenerConfig {

		static final List<String> acquired = new ArrayList<>();

		@Bean
		LockListener recordingListener() {
			return new LockListener() {
				@Override
				public void onAcquired(LockHandle handle) {
					acquired.add(handle.key());
				}
			};
		}

	}

}
