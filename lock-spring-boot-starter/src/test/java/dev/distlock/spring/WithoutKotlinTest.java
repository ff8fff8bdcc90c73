package dev.distlock.spring;

import java.io.File;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.DefaultPointcutAdvisor;

import dev.distlock.core.LockTemplate;
import dev.distlock.core.memory.InMemoryLockProvider;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Java applications have no Kotlin: with every Kotlin jar left off the class path, {@code Mono} and {@code Flux}
 * methods still lock, so the coroutine support ({@code CoroutineBody}) is never linked on their path. The starter's
 * other tests run with Kotlin present, for the Kotlin tests.
 */
class WithoutKotlinTest {

	@Test
	void monoAndFluxMethodsLockWithNoKotlinOnTheClassPath() throws Exception {
		String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
		URL[] urls = Arrays.stream(classPath.split(File.pathSeparator))
			.filter(entry -> !entry.contains("jetbrains"))
			.map(WithoutKotlinTest::url)
			.toArray(URL[]::new);
		try (URLClassLoader loader = new URLClassLoader(urls, ClassLoader.getPlatformClassLoader())) {
			assertThatExceptionOfType(ClassNotFoundException.class)
				.isThrownBy(() -> Class.forName("kotlin.Unit", false, loader));
			Method run = loader.loadClass(WithoutKotlinTest.class.getName()).getDeclaredMethod("lockedCalls");
			run.setAccessible(true); // another class loader: another runtime package
			assertThat(run.invoke(null)).isEqualTo(List.of("locked", "locked", "locked"));
		}
	}

	/** Runs inside the Kotlin-free class loader: a proxied Mono and Flux method, each reporting the lock's state. */
	static List<String> lockedCalls() {
		LockTemplate locks = new LockTemplate(new InMemoryLockProvider());
		ProxyFactory factory = new ProxyFactory(new Reactive(locks));
		factory.setProxyTargetClass(true);
		factory.addAdvisor(new DefaultPointcutAdvisor(new DistributedLockPointcut(),
				new DistributedLockInterceptor(() -> locks, null, null)));
		Reactive proxy = (Reactive) factory.getProxy(WithoutKotlinTest.class.getClassLoader());
		// Bounded: a class that fails to link inside a Reactor operator is thrown on its thread, and a plain block()
		// would then wait for ever.
		String mono = proxy.mono().block(Duration.ofSeconds(30));
		List<String> flux = proxy.flux().collectList().block(Duration.ofSeconds(30));
		return java.util.stream.Stream.concat(java.util.stream.Stream.of(mono), flux.stream()).toList();
	}

	private static URL url(String entry) {
		try {
			return new File(entry).toURI().toURL();
		}
		catch (MalformedURLException ex) {
			throw new IllegalArgumentException(entry, ex);
		}
	}

	static class Reactive {

		private final LockTemplate locks;

		Reactive(LockTemplate locks) {
			this.locks = locks;
		}

		@DistributedLock(key = "'reactive'")
		public Mono<String> mono() {
			return Mono.fromCallable(this::state);
		}

		@DistributedLock(key = "'reactive'")
		public Flux<String> flux() {
			return Flux.defer(() -> Flux.just(state(), state()));
		}

		private String state() {
			return locks.isLocked("reactive") ? "locked" : "free";
		}

	}

}
