package dev.distlock.autoconfigure.web;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ProblemDetail;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.core.LockTemplate;

/**
 * Answers lock errors in Spring MVC and WebFlux applications with problem details (409, 503, 400) instead of an
 * anonymous 500. On by default; {@code distributed-lock.web.problem-details.enabled=false} turns it off.
 */
@AutoConfiguration(after = DistributedLockAutoConfiguration.class)
@ConditionalOnBean(LockTemplate.class)
@ConditionalOnWebApplication
@ConditionalOnClass(ProblemDetail.class)
@ConditionalOnBooleanProperty(name = "distributed-lock.web.problem-details.enabled", matchIfMissing = true)
public final class LockWebAutoConfiguration {

	/**
	 * The exception handler, unless the application declared its own.
	 */
	@Bean
	@ConditionalOnMissingBean
	LockExceptionHandler lockExceptionHandler(LockTemplate template) {
		return new LockExceptionHandler(template);
	}

}
