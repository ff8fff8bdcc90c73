package dev.distlock.spring;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.context.annotation.Scope;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.PropertyPlaceholderHelper;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.core.FailureMode;
import dev.distlock.core.LockOptions;
import dev.distlock.core.memory.InMemoryLockProvider;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every annotated method is checked at startup; a bad declaration fails the context naming the method.
 */
class AnnotationValidationTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
		.withPropertyValues("distributed-lock.provider=in-memory");

	@Test
	void unparsableKeyFailsStartupNamingTheMethod() {
		assertFailure(BadSyntax.class, "BadSyntax.run(String)", "does not parse");
	}

	@Test
	void missingParameterFailsStartupNamingTheMethodAndVariable() {
		assertFailure(MissingParameter.class, "MissingParameter.run(String)", "#orderId");
	}

	@Test
	void typeReferenceFailsStartup() {
		assertFailure(TypeReference.class, "TypeReference.run(String)", "types");
	}

	@Test
	void beanReferenceFailsUnlessEnabled() {
		assertFailure(BeanReference.class, "BeanReference.run(String)", "distributed-lock.spel.bean-references");
		runner.withPropertyValues("distributed-lock.spel.bean-references=true")
			.withBean(BeanReference.class)
			.withBean("prefixes", Prefixes.class)
			.run(context -> assertThat(context.getBean(BeanReference.class).run("x")).isEqualTo("tenant-x"));
	}

	@Test
	void badDurationStringFailsStartupNamingTheMethodAndAttribute() {
		assertFailure(BadDuration.class, "BadDuration.run()", "timeoutString");
	}

	@Test
	void unresolvablePlaceholderFailsStartup() {
		assertFailure(UnresolvedPlaceholder.class, "UnresolvedPlaceholder.run()", "${missing.hold}");
	}

	@Test
	void holdAtLeastBeyondTheLeaseFailsStartup() {
		assertFailure(HoldTooLong.class, "HoldTooLong.run()", "holdAtLeast");
	}

	@Test
	void subMillisecondDurationsFailStartupNamingTheMethodAndTheOption() {
		assertFailure(SubMillisecondTimeout.class, "SubMillisecondTimeout.run()", "'timeout': must be at least 1ms");
		assertFailure(SubMillisecondDelay.class, "SubMillisecondDelay.run()", "'delay': must be at least 1ms");
		assertFailure(SubMillisecondHold.class, "SubMillisecondHold.run()", "'holdAtLeast': must be at least 1ms");
	}

	@Test
	void durationsBeyond365DaysFailStartupNamingTheMethodAndTheBound() {
		assertFailure(YearLongTimeout.class, "YearLongTimeout.run()", "'timeout': must be at most 365 days");
		assertFailure(YearLongMaxWait.class, "YearLongMaxWait.run()", "'maxWait': must be at most 365 days");
		assertFailure(OverflowingTimeout.class, "OverflowingTimeout.run()", "timeout 9223372036854775807 DAYS");
	}

	@Test
	void anUnboundedBackoffMultiplierFailsStartupNamingTheMethod() {
		assertFailure(HugeMultiplier.class, "HugeMultiplier.run()", "'backoffMultiplier'");
	}

	@Test
	void skipOnAPrimitiveResultFailsStartup() {
		assertFailure(SkipPrimitive.class, "SkipPrimitive.run()", "SKIP");
	}

	@Test
	void maxConcurrentWithoutSharedFailsStartup() {
		assertFailure(ExclusiveLimit.class, "ExclusiveLimit.run()", "shared");
	}

	@Test
	void autoRenewIsABooleanWhoseTextTwinTakesPlaceholdersAndCanSayFalse() throws Exception {
		LockOptions renewByDefault = LockOptions.builder().autoRenew(true).build();
		assertThat(definition("renewed", "true").options().autoRenew()).isTrue();
		assertThat(definition(Renewals.class.getMethod("notRenewed"), renewByDefault).options().autoRenew()).isFalse();
		assertThat(definition("byPlaceholder", "true").options().autoRenew()).isTrue();
		assertThat(definition("byPlaceholder", "false").options().autoRenew()).isFalse();
		assertThat(definition("unset", "true").options().autoRenew()).isEqualTo(LockOptions.defaults().autoRenew());
		// false, the default, is unset: the properties' true stands.
		assertThat(definition(Renewals.class.getMethod("unset"), renewByDefault).options().autoRenew()).isTrue();
	}

	@Test
	void autoRenewThatIsNotABooleanFailsStartupNamingTheMethodAndAttribute() {
		assertFailure(BadAutoRenew.class, "BadAutoRenew.run()", "autoRenewString 'sometimes'");
		assertFailure(TwoRenewals.class, "TwoRenewals.run()", "set autoRenew or autoRenewString, not both");
	}

	@Test
	void onFailureIsOneValueWhoseTextTwinCanSayThrowAndUnsetFallsBackToTheDefault() throws Exception {
		assertThat(definition("skipping", "true").options().onFailure()).isEqualTo(FailureMode.SKIP);
		LockOptions skipByDefault = LockOptions.builder().onFailure(FailureMode.SKIP).build();
		assertThat(definition(Renewals.class.getMethod("unset"), skipByDefault).options().onFailure())
			.isEqualTo(FailureMode.SKIP);
		assertThat(definition(Renewals.class.getMethod("throwing"), skipByDefault).options().onFailure())
			.isEqualTo(FailureMode.THROW);
		assertThat(definition("skippingByText", "true").options().onFailure()).isEqualTo(FailureMode.SKIP);
		assertFailure(TwoFailureModes.class, "TwoFailureModes.run()", "set onFailure or onFailureString, not both");
		assertFailure(BadFailureMode.class, "BadFailureMode.run()", "onFailureString 'later'");
	}

	@Test
	void periodSkipsWithoutWaitingOrRenewalWhateverThePropertiesSay() throws Exception {
		LockOptions eager = LockOptions.builder().retries(5).maxWait(Duration.ofSeconds(3)).autoRenew(true).build();
		LockDefinition definition = definition(Renewals.class.getMethod("everyMinute"), eager);
		assertThat(definition.period()).isEqualTo(new LockPeriod(Duration.ofMinutes(1)));
		assertThat(definition.options().onFailure()).isEqualTo(FailureMode.SKIP);
		assertThat(definition.options().retries()).isZero();
		assertThat(definition.options().maxWait()).isNull();
		assertThat(definition.options().autoRenew()).isFalse();
		assertThat(definition("unset", "true").period()).isNull();
	}

	@Test
	void badPeriodsFailStartupNamingTheMethodAndTheProblem() {
		assertFailure(ShortPeriod.class, "ShortPeriod.run()", "period must lie between 1 s and 365 days, was PT0.5S");
		assertFailure(UnparsablePeriod.class, "UnparsablePeriod.run()", "period 'hourly' is not a duration");
		assertFailure(PeriodWithLease.class, "PeriodWithLease.run()", "remove timeout, autoRenew, retries");
		assertFailure(PeriodOnAPrimitive.class, "PeriodOnAPrimitive.run()", "period needs a void or object return type");
	}

	@Test
	void periodOnAStoreWithoutAClockFailsStartupNamingTheProvider() {
		assertStartupFails(new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
			.withBean(LockProvider.class, ClocklessProvider::new)
			.withBean(PeriodEveryMinute.class), "PeriodEveryMinute.run()", "lock provider 'clockless' cannot read it");
	}

	private static LockDefinition definition(String method, String renew) throws Exception {
		return definition(Renewals.class.getMethod(method), LockOptions.defaults(), renew);
	}

	private static LockDefinition definition(Method method, LockOptions defaults) {
		return definition(method, defaults, "true");
	}

	private static LockDefinition definition(Method method, LockOptions defaults, String renew) {
		PropertyPlaceholderHelper placeholders = new PropertyPlaceholderHelper("${", "}", ":", null, true);
		LockDefinitionFactory factory = new LockDefinitionFactory(new SpelExpressionParser(),
				text -> placeholders.replacePlaceholders(text, Map.of("renew", renew)::get), null);
		return factory.create(method, Renewals.class, method.getAnnotation(DistributedLock.class), defaults);
	}

	@Test
	void aLazyBeansBadKeyFailsStartupThoughTheBeanIsNotCreated() {
		assertDefinitionFailure(LazyBadKey.class, "LazyBadKeyService.run(String)", "#orderId");
	}

	@Test
	void aPrototypeBeansBadKeyFailsStartup() {
		assertDefinitionFailure(PrototypeBadKey.class, "PrototypeBadKeyService.run(String)", "#orderId");
	}

	@Test
	void validatingALazyBeanDoesNotCreateIt() {
		LazyGoodKey.created = 0;
		runner.withUserConfiguration(LazyGoodKeyConfig.class).run(context -> {
			assertThat(context).hasNotFailed();
			assertThat(LazyGoodKey.created).isZero();
			assertThat(context.getBean(LazyGoodKey.class).run("7")).isEqualTo("ran 7");
			assertThat(LazyGoodKey.created).isEqualTo(1);
		});
	}

	private void assertDefinitionFailure(Class<?> configuration, String method, String detail) {
		assertStartupFails(runner.withUserConfiguration(configuration), method, detail);
	}

	@Configuration(proxyBeanMethods = false)
	static class LazyBadKey {

		@Bean
		@Lazy
		LazyBadKeyService lazyService() {
			return new LazyBadKeyService();
		}

	}

	static class LazyBadKeyService {

		@DistributedLock(key = "'order:' + #orderId")
		public void run(String id) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PrototypeBadKey {

		@Bean
		@Scope("prototype")
		PrototypeBadKeyService prototypeService() {
			return new PrototypeBadKeyService();
		}

	}

	static class PrototypeBadKeyService {

		@DistributedLock(key = "'order:' + #orderId")
		public void run(String id) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class LazyGoodKeyConfig {

		@Bean
		@Lazy
		LazyGoodKey lazyGoodKey() {
			return new LazyGoodKey();
		}

	}

	static class LazyGoodKey {

		static volatile int created;

		LazyGoodKey() {
			created++;
		}

		@DistributedLock(key = "'order:' + #id")
		public String run(String id) {
			return "ran " + id;
		}

	}

	private void assertFailure(Class<?> bean, String method, String detail) {
		assertStartupFails(runner.withUserConfiguration(Beans.class).withPropertyValues("bean=" + bean.getName()),
				method, detail);
	}

	private static void assertStartupFails(ApplicationContextRunner contextRunner, String method, String detail) {
		contextRunner.run(context -> {
			assertThat(context).hasFailed();
			Throwable failure = context.getStartupFailure();
			while (failure != null && !(failure instanceof LockAnnotationException)) {
				failure = failure.getCause();
			}
			assertThat(failure).isInstanceOf(LockAnnotationException.class)
				.hasMessageContaining(method)
				.hasMessageContaining(detail);
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Beans {

		@Bean
		Object annotated(org.springframework.core.env.Environment environment) throws Exception {
			return Class.forName(environment.getRequiredProperty("bean")).getDeclaredConstructor().newInstance();
		}

	}

	static class BadSyntax {

		@DistributedLock(key = "'order:' + ")
		public void run(String orderId) {
		}

	}

	static class MissingParameter {

		@DistributedLock(key = "'order:' + #orderId")
		public void run(String id) {
		}

	}

	static class TypeReference {

		@DistributedLock(key = "T(java.lang.System).getenv('HOME') + #id")
		public void run(String id) {
		}

	}

	static class BeanReference {

		@DistributedLock(key = "@prefixes.tenant() + #id")
		public String run(String id) {
			return LockContext.current().key();
		}

	}

	/** A bean a key expression may reference when bean references are on. */
	public static class Prefixes {

		/** The tenant prefix. */
		public String tenant() {
			return "tenant-";
		}

	}

	static class BadDuration {

		@DistributedLock(timeoutString = "ten seconds")
		public void run() {
		}

	}

	static class UnresolvedPlaceholder {

		@DistributedLock(holdAtLeastString = "${missing.hold}")
		public void run() {
		}

	}

	static class SubMillisecondTimeout {

		@DistributedLock(timeoutString = "500us")
		public void run() {
		}

	}

	static class SubMillisecondDelay {

		@DistributedLock(retries = 3, delayString = "500us")
		public void run() {
		}

	}

	static class SubMillisecondHold {

		@DistributedLock(holdAtLeast = 500, timeUnit = TimeUnit.MICROSECONDS)
		public void run() {
		}

	}

	static class YearLongTimeout {

		@DistributedLock(timeout = 366, timeUnit = TimeUnit.DAYS)
		public void run() {
		}

	}

	static class YearLongMaxWait {

		@DistributedLock(maxWaitString = "400d")
		public void run() {
		}

	}

	static class OverflowingTimeout {

		@DistributedLock(timeout = Long.MAX_VALUE, timeUnit = TimeUnit.DAYS)
		public void run() {
		}

	}

	static class HugeMultiplier {

		@DistributedLock(retries = 3, backoffMultiplier = 1e308)
		public void run() {
		}

	}

	static class HoldTooLong {

		@DistributedLock(timeoutString = "1s", holdAtLeastString = "5s")
		public void run() {
		}

	}

	static class SkipPrimitive {

		@DistributedLock(onFailure = FailureMode.SKIP)
		public int run() {
			return 1;
		}

	}

	/** The ways to write autoRenew, onFailure and period. */
	static class Renewals {

		@DistributedLock(autoRenew = true)
		public void renewed() {
		}

		@DistributedLock(autoRenewString = "false")
		public void notRenewed() {
		}

		@DistributedLock(autoRenewString = "${renew}")
		public void byPlaceholder() {
		}

		@DistributedLock
		public void unset() {
		}

		@DistributedLock(onFailure = FailureMode.SKIP)
		public void skipping() {
		}

		@DistributedLock(onFailureString = "Skip")
		public void skippingByText() {
		}

		@DistributedLock(onFailureString = "throw")
		public void throwing() {
		}

		@DistributedLock(period = "1m")
		public void everyMinute() {
		}

	}

	static class BadAutoRenew {

		@DistributedLock(autoRenewString = "sometimes")
		public void run() {
		}

	}

	static class TwoRenewals {

		@DistributedLock(autoRenew = true, autoRenewString = "true")
		public void run() {
		}

	}

	static class TwoFailureModes {

		@DistributedLock(onFailure = FailureMode.SKIP, onFailureString = "throw")
		public void run() {
		}

	}

	static class BadFailureMode {

		@DistributedLock(onFailureString = "later")
		public void run() {
		}

	}

	static class ShortPeriod {

		@DistributedLock(period = "500ms")
		public void run() {
		}

	}

	static class UnparsablePeriod {

		@DistributedLock(period = "hourly")
		public void run() {
		}

	}

	static class PeriodWithLease {

		@DistributedLock(period = "PT1H", timeoutString = "10s", autoRenew = true, retries = 2)
		public void run() {
		}

	}

	static class PeriodOnAPrimitive {

		@DistributedLock(period = "1h")
		public int run() {
			return 1;
		}

	}

	static class PeriodEveryMinute {

		@DistributedLock(period = "1m")
		public void run() {
		}

	}

	/** A store that cannot tell the time. */
	static class ClocklessProvider implements LockProvider {

		private final InMemoryLockProvider store = new InMemoryLockProvider();

		@Override
		public Optional<Lease> tryAcquire(LockRequest request) {
			return store.tryAcquire(request);
		}

		@Override
		public boolean isLocked(String key) {
			return store.isLocked(key);
		}

		@Override
		public String name() {
			return "clockless";
		}

	}

	static class ExclusiveLimit {

		@DistributedLock(maxConcurrent = 3)
		public void run() {
		}

	}

}
