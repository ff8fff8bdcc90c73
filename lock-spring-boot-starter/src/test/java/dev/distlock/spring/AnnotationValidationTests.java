package dev.distlock.spring;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.core.FailureMode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every annotated method is checked at startup; a bad declaration fails the context naming the method.
 */
class AnnotationValidationTests {

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
	void skipOnAPrimitiveResultFailsStartup() {
		assertFailure(SkipPrimitive.class, "SkipPrimitive.run()", "SKIP");
	}

	@Test
	void maxConcurrentWithoutSharedFailsStartup() {
		assertFailure(ExclusiveLimit.class, "ExclusiveLimit.run()", "shared");
	}

	private void assertFailure(Class<?> bean, String method, String detail) {
		runner.withUserConfiguration(Beans.class)
			.withPropertyValues("bean=" + bean.getName())
			.run(context -> {
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

	static class ExclusiveLimit {

		@DistributedLock(maxConcurrent = 3)
		public void run() {
		}

	}

}
