package dev.distlock.autoconfigure;

import java.util.concurrent.ScheduledExecutorService;

import org.springframework.boot.task.SimpleAsyncTaskExecutorBuilder;
import org.springframework.boot.task.ThreadPoolTaskExecutorBuilder;
import org.springframework.boot.task.ThreadPoolTaskSchedulerBuilder;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * distlock's threads in a Spring Boot application, built with Boot's own task builders so that Boot's settings apply
 * to them: {@code spring.threads.virtual.enabled}, the application's {@code TaskDecorator} (context propagation), the
 * builders' customizers and the {@code spring.task.*.shutdown} waits. A two-thread scheduler ({@value #TICK_PREFIX}n)
 * ticks the renewals and holder checks and runs the Mongo and JDBC purgers (two threads, so a purge in progress never
 * delays a tick); the executor ({@value #TASK_PREFIX}n) runs the renewals' store calls and the health check's pings,
 * on virtual threads when they are enabled, otherwise on a pool that grows with the calls in flight and reuses its
 * threads. They are distlock's own rather than the application's, so a renewal never waits behind an
 * {@code @Scheduled} job on Boot's one-thread scheduler, and they are no beans of an executor type, so Boot's own
 * executor and scheduler still appear and nothing stops them before the locks are released at shutdown. Closing stops
 * them, after the template that uses them.
 */
public final class LockThreads implements AutoCloseable {

	/** The name prefix of the threads that tick renewals and holder checks and run the purgers. */
	public static final String TICK_PREFIX = "distlock-tick-";

	/** The name prefix of the threads that run renewals, holder checks and pings. */
	public static final String TASK_PREFIX = "distlock-task-";

	private final ThreadPoolTaskScheduler scheduler;

	private final AsyncTaskExecutor executor;

	private LockThreads(ThreadPoolTaskScheduler scheduler, AsyncTaskExecutor executor) {
		this.scheduler = scheduler;
		this.executor = executor;
	}

	/**
	 * Platform threads from Boot's pool builders: a two-thread scheduler and an executor whose pool grows with the
	 * calls in flight (no queue, so a renewal stuck in the store holds up no other) and lets idle threads go.
	 */
	public static LockThreads platform(ThreadPoolTaskSchedulerBuilder schedulers,
			ThreadPoolTaskExecutorBuilder executors) {
		ThreadPoolTaskExecutor executor = executors.threadNamePrefix(TASK_PREFIX)
			.corePoolSize(0)
			.maxPoolSize(Integer.MAX_VALUE)
			.queueCapacity(0)
			.build();
		executor.setDaemon(true);
		executor.initialize();
		return new LockThreads(scheduler(schedulers), executor);
	}

	/**
	 * Renewals, holder checks and pings on virtual threads from Boot's simple executor builder, one per call; the
	 * ticks on platform threads, as Boot's own {@code SimpleAsyncTaskScheduler} ticks on one.
	 */
	public static LockThreads virtual(ThreadPoolTaskSchedulerBuilder schedulers,
			SimpleAsyncTaskExecutorBuilder executors) {
		SimpleAsyncTaskExecutor executor = executors.threadNamePrefix(TASK_PREFIX).virtualThreads(true).build();
		return new LockThreads(scheduler(schedulers), executor);
	}

	private static ThreadPoolTaskScheduler scheduler(ThreadPoolTaskSchedulerBuilder schedulers) {
		ThreadPoolTaskScheduler scheduler = schedulers.threadNamePrefix(TICK_PREFIX).poolSize(2).build();
		scheduler.setDaemon(true);
		scheduler.setRemoveOnCancelPolicy(true); // a released lock's ticks leave the queue at once
		scheduler.initialize();
		return scheduler;
	}

	/**
	 * The scheduler that ticks renewals and holder checks, for {@code LockTemplate.Builder.scheduler}, and runs the
	 * providers' purgers.
	 */
	public ScheduledExecutorService scheduler() {
		return scheduler.getScheduledExecutor();
	}

	/** The executor of renewals, holder checks and pings, for {@code LockTemplate.Builder.renewalExecutor}. */
	public AsyncTaskExecutor executor() {
		return executor;
	}

	/**
	 * Stops the threads, waiting for running calls as Boot's {@code spring.task.*.shutdown} settings say.
	 */
	@Override
	public void close() {
		if (executor instanceof ThreadPoolTaskExecutor pool) {
			pool.shutdown();
		}
		else if (executor instanceof SimpleAsyncTaskExecutor simple) {
			simple.close();
		}
		scheduler.shutdown();
	}

}
