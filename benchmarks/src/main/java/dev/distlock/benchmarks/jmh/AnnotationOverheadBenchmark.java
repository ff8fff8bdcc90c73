package dev.distlock.benchmarks.jmh;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.spring.DistributedLock;

/**
 * The cost of {@code @DistributedLock} with a SpEL key over the same lock taken by a direct {@link LockTemplate} call,
 * both on the in-memory provider, so the store costs nothing and only the proxy, the expression and the option
 * resolution remain. A plain Spring context with the starter's core auto-configuration, no Boot application.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AnnotationOverheadBenchmark {

	private AnnotationConfigApplicationContext context;

	private LockTemplate template;

	private LockOptions options;

	private Guarded guarded;

	private long id;

	/**
	 * Starts the context with the in-memory provider.
	 */
	@Setup(Level.Trial)
	public void start() {
		context = new AnnotationConfigApplicationContext();
		context.getEnvironment()
			.getPropertySources()
			.addFirst(new MapPropertySource("bench", java.util.Map.of("distributed-lock.provider", "in-memory")));
		context.register(Config.class);
		context.refresh();
		template = context.getBean(LockTemplate.class);
		options = template.defaults();
		guarded = context.getBean(Guarded.class);
	}

	/**
	 * Closes the context.
	 */
	@TearDown(Level.Trial)
	public void stop() {
		context.close();
	}

	/**
	 * The lock through the template, key built in Java.
	 */
	@Benchmark
	public long direct() {
		long next = ++id & 1023;
		return template.execute("order:" + next, options, handle -> Guarded.work(next));
	}

	/**
	 * The lock through the annotation, key from SpEL on the argument.
	 */
	@Benchmark
	public long annotated() {
		return guarded.process(++id & 1023);
	}

	/**
	 * The annotation with a constant key: the proxy and option cost without the expression's.
	 */
	@Benchmark
	public long annotatedConstantKey() {
		return guarded.processConstant(++id & 1023);
	}

	/**
	 * The context: the starter's core auto-configuration and one guarded bean.
	 */
	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(DistributedLockAutoConfiguration.class)
	public static class Config {

		/**
		 * The guarded bean.
		 */
		@Bean
		public Guarded guarded() {
			return new Guarded();
		}

	}

	/**
	 * A bean with locked methods doing trivial work.
	 */
	public static class Guarded {

		/**
		 * Locked on a key computed from the argument.
		 */
		@DistributedLock(key = "'order:' + #id")
		public long process(long id) {
			return work(id);
		}

		/**
		 * Locked on a constant key.
		 */
		@DistributedLock(key = "'order:constant'")
		public long processConstant(long id) {
			return work(id);
		}

		static long work(long id) {
			return id * 31;
		}

	}

}
