package dev.distlock.autoconfigure.diagnostics;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.autoconfigure.RedisLockAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * A real {@link SpringApplication} run: the analyzers are registered in {@code META-INF/spring.factories}, and a bad
 * lock setting prints Spring Boot's "APPLICATION FAILED TO START" report instead of a bean-creation stack trace.
 */
@ExtendWith(OutputCaptureExtension.class)
class LockFailureReportTest {

	@Test
	void negativeTimeoutPrintsTheReportNamingThePropertyAndWhatToChange(CapturedOutput output) {
		assertThatException().isThrownBy(() -> run("--distributed-lock.timeout=-5s"));
		assertThat(output).contains("""
				***************************
				APPLICATION FAILED TO START
				***************************

				Description:

				The property 'distributed-lock.timeout' is invalid: must be positive, was PT-5S.

				    Origin: "distributed-lock.timeout" from property source "commandLineArgs"

				Action:

				Change 'distributed-lock.timeout' in the application's configuration (it must be positive), or remove \
				it to use its default.
				""");
	}

	@Test
	void redisWithoutAConnectionPrintsWhatIsMissing(CapturedOutput output) {
		assertThatException().isThrownBy(() -> run("--distributed-lock.provider=redis"));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("'distributed-lock.provider' is redis, but no Redis lock provider could be configured: the "
					+ "application has no RedisConnectionFactory bean.")
			.contains("Add org.springframework.boot:spring-boot-starter-data-redis, which configures one from "
					+ "spring.data.redis.*, or declare a RedisConnectionFactory bean.");
	}

	private static void run(String... args) {
		SpringApplication application = new SpringApplication(LockApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		application.run(args).close();
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ RedisLockAutoConfiguration.class, DistributedLockAutoConfiguration.class })
	static class LockApplication {

	}

}
