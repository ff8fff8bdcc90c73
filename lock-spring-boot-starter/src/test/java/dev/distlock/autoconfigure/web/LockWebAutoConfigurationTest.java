package dev.distlock.autoconfigure.web;

import java.util.Arrays;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.ProblemDetail;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.memory.InMemoryLockProvider;

import static org.assertj.core.api.Assertions.assertThat;

class LockWebAutoConfigurationTest {

	private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations
		.of(DistributedLockAutoConfiguration.class, LockWebAutoConfiguration.class);

	private final WebApplicationContextRunner servlet = new WebApplicationContextRunner()
		.withConfiguration(CONFIGURATIONS)
		.withPropertyValues("distributed-lock.provider=in-memory");

	private final ReactiveWebApplicationContextRunner reactive = new ReactiveWebApplicationContextRunner()
		.withConfiguration(CONFIGURATIONS)
		.withPropertyValues("distributed-lock.provider=in-memory");

	@Test
	void mappedInServletAndReactiveApplications() {
		servlet.run(context -> assertThat(context).hasNotFailed().hasSingleBean(LockExceptionHandler.class));
		reactive.run(context -> assertThat(context).hasNotFailed().hasSingleBean(LockExceptionHandler.class));
	}

	@Test
	void notMappedOutsideAWebApplication() {
		new ApplicationContextRunner().withConfiguration(CONFIGURATIONS)
			.withPropertyValues("distributed-lock.provider=in-memory")
			.run(context -> assertThat(context).hasNotFailed()
				.hasSingleBean(LockTemplate.class)
				.doesNotHaveBean(LockExceptionHandler.class));
	}

	@Test
	void propertyTurnsItOff() {
		servlet.withPropertyValues("distributed-lock.web.problem-details.enabled=false")
			.run(context -> assertThat(context).hasNotFailed()
				.hasSingleBean(LockTemplate.class)
				.doesNotHaveBean(LockExceptionHandler.class));
		reactive.withPropertyValues("distributed-lock.web.problem-details.enabled=false")
			.run(context -> assertThat(context).doesNotHaveBean(LockExceptionHandler.class));
	}

	@Test
	void notMappedWhenLocksAreDisabled() {
		servlet.withPropertyValues("distributed-lock.enabled=false")
			.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockExceptionHandler.class));
	}

	@Test
	void applicationsOwnHandlerBeanReplacesIt() {
		servlet.withBean("myHandler", LockExceptionHandler.class, () -> new LockExceptionHandler(
				new LockTemplate(new InMemoryLockProvider())))
			.run(context -> assertThat(context).hasSingleBean(LockExceptionHandler.class).hasBean("myHandler"));
	}

	@Test
	void backsOffWithoutProblemDetailClass() {
		servlet.withClassLoader(new FilteredClassLoader(ProblemDetail.class))
			.run(context -> assertThat(context).hasNotFailed()
				.hasSingleBean(LockTemplate.class)
				.doesNotHaveBean(LockExceptionHandler.class));
	}

	@Test
	void backsOffCleanlyWithoutAnyWebJar() {
		// Imported by name, as applications import it, with spring-web, webmvc and webflux hidden as if absent.
		new ApplicationContextRunner().withUserConfiguration(ImportedByName.class)
			.withPropertyValues("distributed-lock.provider=in-memory")
			.withClassLoader(withoutJars("org.springframework.web", "org.springframework.http"))
			.run(context -> assertThat(context).hasNotFailed()
				.hasSingleBean(LockTemplate.class)
				.doesNotHaveBean(LockExceptionHandler.class));
	}

	private static FilteredClassLoader withoutJars(String... packages) {
		Predicate<String> hidden = name -> Arrays.stream(packages)
			.anyMatch(pkg -> name.startsWith(pkg) || name.startsWith(pkg.replace('.', '/')));
		return new FilteredClassLoader(hidden);
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DistributedLockAutoConfiguration.class, LockWebAutoConfiguration.class })
	static class ImportedByName {

	}

}
