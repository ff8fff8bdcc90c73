package dev.distlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.task.ThreadPoolTaskExecutorBuilder;
import org.springframework.boot.task.ThreadPoolTaskSchedulerBuilder;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.TaskDecorator;
import org.springframework.data.mongodb.core.MongoTemplate;

import dev.distlock.autoconfigure.actuate.DistributedLockActuatorAutoConfiguration;
import dev.distlock.autoconfigure.actuate.LocksHealthIndicator;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.memory.InMemoryLockProvider;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.OperatorSupport;
import dev.distlock.core.spi.StatusQuery;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.mongo.MongoLockProvider;
import dev.distlock.mongo.testsupport.MongoTestServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Renewals and health pings run on distlock's threads, built with Boot's task builders: named {@code distlock-task-},
 * through the application's task decorator, on virtual threads when {@code spring.threads.virtual.enabled} is set,
 * and stopped at shutdown.
 */
class LockThreadsTest {

	/** A 300 ms lease renews every 100 ms. */
	private static final LockOptions RENEWED = LockOptions.builder().timeout(Duration.ofMillis(300)).autoRenew(true)
		.build();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class,
				TaskSchedulingAutoConfiguration.class, DistributedLockAutoConfiguration.class,
				DistributedLockActuatorAutoConfiguration.class))
		.withPropertyValues("distributed-lock.shutdown-wait=100ms")
		.withUserConfiguration(RecordingConfig.class);

	@Test
	void byDefaultRenewalsRunOnDistlockPlatformThreadsThroughTheApplicationsTaskDecoratorAndStopAtShutdown() {
		RenewalRecorder recorder = new RenewalRecorder();
		runner.withBean(RenewalRecorder.class, () -> recorder).run(context -> {
			recorder.lockThreads = context.getBean(LockThreads.class);
			LockHandle handle = context.getBean(LockTemplate.class).acquire("k", RENEWED);
			await(() -> recorder.renewals.get() >= 3);
			assertThat(recorder.threads).allSatisfy(thread -> {
				assertThat(thread.getName()).startsWith(LockThreads.TASK_PREFIX);
				assertThat(isVirtual(thread)).isFalse();
			});
			assertThat(context.getBean(RecordingConfig.class).decorated.get())
				.as("tasks through the application's TaskDecorator").isGreaterThanOrEqualTo(3);
			assertThat(handle.isHeld()).isTrue();
		});
		assertStoppedAfterShutdown(recorder);
	}

	@Test
	@EnabledForJreRange(min = JRE.JAVA_21)
	void withVirtualThreadsEnabledRenewalsRunOnVirtualThreadsAndStopAtShutdown() {
		RenewalRecorder recorder = new RenewalRecorder();
		runner.withBean(RenewalRecorder.class, () -> recorder)
			.withPropertyValues("spring.threads.virtual.enabled=true")
			.run(context -> {
				recorder.lockThreads = context.getBean(LockThreads.class);
				LockHandle handle = context.getBean(LockTemplate.class).acquire("k", RENEWED);
				await(() -> recorder.renewals.get() >= 3);
				assertThat(recorder.threads).allSatisfy(thread -> {
					assertThat(isVirtual(thread)).as("virtual: " + thread).isTrue();
					assertThat(thread.getName()).startsWith(LockThreads.TASK_PREFIX);
				});
				assertThat(handle.isHeld()).isTrue();
			});
		assertStoppedAfterShutdown(recorder);
	}

	@Test
	@EnabledForJreRange(max = JRE.JAVA_20)
	void withVirtualThreadsAskedForBeforeJava21RenewalsStayOnPlatformThreads() {
		RenewalRecorder recorder = new RenewalRecorder();
		runner.withBean(RenewalRecorder.class, () -> recorder)
			.withPropertyValues("spring.threads.virtual.enabled=true")
			.run(context -> {
				context.getBean(LockTemplate.class).acquire("k", RENEWED);
				await(() -> recorder.renewals.get() >= 1);
				assertThat(recorder.threads).allSatisfy(
						thread -> assertThat(thread.getName()).startsWith(LockThreads.TASK_PREFIX));
			});
	}

	@Test
	void theHealthCheckPingsOnDistlockThreadsAndStartsNoThreadPerCall() {
		PingRecorder store = new PingRecorder();
		runner.withBean(LockProvider.class, () -> store).run(context -> {
			LocksHealthIndicator indicator = context.getBean(LocksHealthIndicator.class);
			int calls = 40;
			for (int i = 0; i < calls; i++) {
				assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
				Thread.sleep(5); // lets the pool thread go back to waiting for work
			}
			assertThat(store.threads).hasSize(calls)
				.allSatisfy(thread -> assertThat(thread.getName()).startsWith(LockThreads.TASK_PREFIX));
			// The pool reuses an idle thread: sequential calls share one or a few, never one each.
			assertThat(Set.copyOf(store.threads)).as("threads that pinged").hasSizeLessThan(calls / 2);
		});
	}

	@Test
	void theMongoPurgerRunsOnDistlocksSchedulerNotOnAThreadOfItsOwn() {
		try (MongoTestServer mongo = MongoTestServer.startInProcess()) {
			runner.withConfiguration(AutoConfigurations.of(MongoLockAutoConfiguration.class))
				.withBean(MongoTemplate.class, mongo::template)
				.withPropertyValues("distributed-lock.mongo.purge-interval=1h")
				.run(context -> {
					assertThat(context).hasSingleBean(MongoLockProvider.class);
					ScheduledThreadPoolExecutor scheduler = (ScheduledThreadPoolExecutor) context
						.getBean(LockThreads.class).scheduler();
					assertThat(scheduler.getQueue()).as("the purge, with no lock held").hasSize(1);
					assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
						.doesNotContain("distlock-mongo-purger");
				});
		}
	}

	@Test
	void aUserLockThreadsBeanReplacesDistlocksOwn() {
		runner.withBean("myLockThreads", LockThreads.class,
				() -> LockThreads.platform(new ThreadPoolTaskSchedulerBuilder(), new ThreadPoolTaskExecutorBuilder()),
				definition -> definition.setDestroyMethodName("close"))
			.run(context -> assertThat(context).hasSingleBean(LockThreads.class).hasBean("myLockThreads"));
	}

	/** Renewals stopped with the context: the ticking thread is shut down and no renewal came after the close. */
	private static void assertStoppedAfterShutdown(RenewalRecorder recorder) {
		int afterClose = recorder.renewals.get();
		sleep(500); // five tick intervals
		assertThat(recorder.renewals.get()).as("renewals after shutdown").isEqualTo(afterClose);
		assertThat(recorder.threads).isNotEmpty();
		assertThat(recorder.lockThreads).isNotNull();
		assertThat(recorder.lockThreads.scheduler().isShutdown()).isTrue();
	}

	private static boolean isVirtual(Thread thread) {
		try {
			return (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
		}
		catch (NoSuchMethodException ex) {
			return false; // before Java 21 every thread is a platform thread
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static void await(BooleanSupplier condition) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (!condition.getAsBoolean() && System.nanoTime() - deadline < 0) {
			sleep(10);
		}
		assertThat(condition.getAsBoolean()).isTrue();
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class RecordingConfig {

		final AtomicInteger decorated = new AtomicInteger();

		/** The application's decorator, which Boot's builders apply (where context propagation plugs in). */
		@Bean
		TaskDecorator countingDecorator() {
			return runnable -> {
				decorated.incrementAndGet();
				return runnable;
			};
		}

	}

	/** A listener bean recording the thread of every renewal, and the context's {@link LockThreads}. */
	static final class RenewalRecorder implements LockListener {

		final List<Thread> threads = new CopyOnWriteArrayList<>();

		final AtomicInteger renewals = new AtomicInteger();

		volatile LockThreads lockThreads;

		@Override
		public void onRenewed(LockHandle handle) {
			threads.add(Thread.currentThread());
			renewals.incrementAndGet();
		}

	}

	/** The in-memory store, recording the thread of every ping. */
	static final class PingRecorder implements LockProvider, OperatorSupport {

		private final InMemoryLockProvider delegate = new InMemoryLockProvider();

		final List<Thread> threads = new CopyOnWriteArrayList<>();

		@Override
		public Optional<Lease> tryAcquire(LockRequest request) {
			return delegate.tryAcquire(request);
		}

		@Override
		public boolean isLocked(String key) {
			return delegate.isLocked(key);
		}

		@Override
		public Duration ping() {
			threads.add(Thread.currentThread());
			return delegate.ping();
		}

		@Override
		public List<LockInfo> status(StatusQuery query) {
			return delegate.status(query);
		}

		@Override
		public boolean forceRelease(String key) {
			return delegate.forceRelease(key);
		}

	}

}
