package dev.distlock.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.autoconfigure.RedisLockAutoConfiguration;
import dev.distlock.core.LockAttempt;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockTemplate;
import dev.distlock.redis.testsupport.RedisServerProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 23, part 6: three application instances on one Redis, each with a {@code @Scheduled} job whose schedule is
 * offset from the others' (different initial delays and fixed delays), run the job exactly once per period of the
 * store's clock, with no period missed while all three run, and skip the other attempts quietly.
 */
@ExtendWith(OutputCaptureExtension.class)
class OncePerPeriodTest {

	private static final Duration PERIOD = Duration.ofSeconds(1);

	private static final Queue<Run> runs = new ConcurrentLinkedQueue<>();

	private static RedisServerProcess redis;

	@BeforeAll
	static void startRedis() {
		redis = RedisServerProcess.startOnFreePort();
	}

	@AfterAll
	static void stopRedis() {
		redis.close();
	}

	@Test
	void threeInstancesWithOffsetSchedulesRunTheJobExactlyOncePerPeriod(CapturedOutput output) {
		List<ConfigurableApplicationContext> instances = new ArrayList<>();
		long firstWhole;
		long lastWhole;
		String beforeShutdown;
		try {
			instances.add(start("a", 0, 90));
			instances.add(start("b", 35, 130));
			instances.add(start("c", 70, 170));
			LockTemplate clock = instances.get(0).getBean(LockTemplate.class);
			// The first period that all three instances run through from its start.
			firstWhole = period(clock) + 1;
			await().atMost(60, TimeUnit.SECONDS).pollInterval(50, TimeUnit.MILLISECONDS)
				.until(() -> period(clock) >= firstWhole + 6);
			// The last period that ended before the first instance stops.
			lastWhole = period(clock) - 1;
			for (ConfigurableApplicationContext instance : instances) {
				assertThat(instance.getBean(SkipCounter.class).skipped).as("skipped attempts").hasPositiveValue();
			}
			beforeShutdown = output.toString();
		}
		finally {
			instances.forEach(ConfigurableApplicationContext::close);
		}
		Map<Long, List<Run>> byPeriod = runs.stream().collect(Collectors.groupingBy(Run::period));
		assertThat(byPeriod).allSatisfy((period, inPeriod) -> assertThat(inPeriod).as("runs in period %d", period)
			.hasSize(1));
		assertThat(byPeriod).containsKeys(LongStream.rangeClosed(firstWhole, lastWhole).boxed().toArray(Long[]::new));
		assertThat(lastWhole - firstWhole).isGreaterThanOrEqualTo(5);
		// Skipped attempts are no failures: nothing reached the scheduler's error handler while the instances ran.
		// (At shutdown, a run the scheduler starts after the connection factory stopped fails, as any lock would.)
		assertThat(beforeShutdown).doesNotContain("Unexpected error occurred in scheduled task")
			.doesNotContain("LockAcquisitionException");
	}

	private static long period(LockTemplate template) {
		return new LockPeriod(PERIOD).number(template.storeTime().orElseThrow());
	}

	private static ConfigurableApplicationContext start(String instance, long initialDelay, long fixedDelay) {
		return new SpringApplicationBuilder(Instance.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "job.instance=" + instance, "job.initial-delay=" + initialDelay,
					"job.fixed-delay=" + fixedDelay, "job.redis-port=" + redis.port())
			.run();
	}

	/** One run of the job: which instance ran it, in which period. */
	record Run(String instance, long period) {
	}

	/** The job every instance schedules: a report to make once per second. */
	static class ReportJob {

		private final String instance;

		ReportJob(String instance) {
			this.instance = instance;
		}

		@Scheduled(initialDelayString = "${job.initial-delay}", fixedDelayString = "${job.fixed-delay}")
		@DistributedLock(key = "'report'", period = "1s")
		public void report() {
			String key = LockContext.current().key();
			runs.add(new Run(instance, Long.parseLong(key.substring(key.lastIndexOf('@') + 1))));
		}

	}

	/** Counts the attempts an instance skipped because another had the period. */
	static class SkipCounter implements LockListener {

		final AtomicInteger skipped = new AtomicInteger();

		@Override
		public void onAcquireFailed(LockAttempt attempt, int attempts, Duration waited, boolean skip) {
			if (skip) {
				skipped.incrementAndGet();
			}
		}

	}

	/** One application instance: the job, scheduled, on the shared Redis. */
	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@ImportAutoConfiguration({ RedisLockAutoConfiguration.class, DistributedLockAutoConfiguration.class })
	static class Instance {

		@Bean
		LettuceConnectionFactory redisConnectionFactory(@Value("${job.redis-port}") int port) {
			return new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
		}

		@Bean
		ReportJob reportJob(@Value("${job.instance}") String instance) {
			return new ReportJob(instance);
		}

		@Bean
		SkipCounter skipCounter() {
			return new SkipCounter();
		}

	}

}
