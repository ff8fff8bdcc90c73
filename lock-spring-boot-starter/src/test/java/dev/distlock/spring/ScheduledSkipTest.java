package dev.distlock.spring;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.core.LockAttempt;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockMode;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.memory.InMemoryLockProvider;
import dev.distlock.core.spi.LockProvider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A scheduled job with {@code onFailure = SKIP} does nothing while another instance holds its lock, and runs once the
 * lock is free. The other instance is a second template on the same store.
 */
class ScheduledSkipTest {

	private static final InMemoryLockProvider store = new InMemoryLockProvider();

	private static final AtomicInteger runs = new AtomicInteger();

	private static final AtomicInteger skips = new AtomicInteger();

	@Test
	void scheduledJobSkipsWhileAnotherInstanceHoldsTheLock() {
		LockTemplate otherInstance = new LockTemplate(store);
		LockHandle held = otherInstance.acquire("report");
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
			.withUserConfiguration(JobConfig.class)
			.run(context -> {
				await().atMost(5, TimeUnit.SECONDS).until(() -> skips.get() >= 2);
				assertThat(runs).hasValue(0);
				held.release();
				await().atMost(5, TimeUnit.SECONDS).until(() -> runs.get() >= 1);
			});
		otherInstance.close();
	}

	/** The job: a report that must run on one instance at a time. */
	static class ReportJob {

		@Scheduled(fixedDelay = 20)
		@DistributedLock(key = "'report'", onFailure = dev.distlock.core.FailureMode.SKIP)
		public void report() {
			runs.incrementAndGet();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class JobConfig {

		@Bean
		LockProvider sharedStore() {
			return store;
		}

		@Bean
		ReportJob reportJob() {
			return new ReportJob();
		}

		@Bean
		LockListener skipCounter() {
			return new LockListener() {
				@Override
				public void onAcquireFailed(LockAttempt attempt, int attempts, Duration waited, boolean skipped) {
					if (skipped) {
						skips.incrementAndGet();
					}
				}
			};
		}

	}

}
