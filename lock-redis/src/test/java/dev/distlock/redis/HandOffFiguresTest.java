package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.redis.testsupport.RedisServerProcess;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Prints contended-handoff figures (time from a holder starting its release to the next holder's acquire) for eight
 * threads on one key, with pub/sub on and off. A measurement, not a test of speed: it asserts only that every cycle
 * ran. Run with {@code -Ddistlock.figures=true -Dtest=HandOffFiguresTest}.
 */
@EnabledIfSystemProperty(named = "distlock.figures", matches = "true")
class HandOffFiguresTest {

	private static final int THREADS = 8;

	private static final int CYCLES_PER_THREAD = 60;

	@Test
	void printHandOffLatencyWithAndWithoutPubSub() throws Exception {
		try (RedisServerProcess server = RedisServerProcess.startOnFreePort()) {
			LettuceConnectionFactory factory = server.connectionFactory();
			try {
				for (boolean pubSub : new boolean[] { true, false, true, false }) {
					List<Long> handoffs = run(factory, pubSub);
					assertThat(handoffs).hasSize(THREADS * CYCLES_PER_THREAD - 1);
					Collections.sort(handoffs);
					System.out.printf("pubSub=%-5s handoffs=%d p50=%.2f ms p99=%.2f ms max=%.2f ms%n", pubSub,
							handoffs.size(), millis(handoffs, 0.50), millis(handoffs, 0.99), millis(handoffs, 1.0));
				}
			}
			finally {
				factory.destroy();
			}
		}
	}

	private static List<Long> run(LettuceConnectionFactory factory, boolean pubSub) throws Exception {
		try (RedisLockProvider provider = new RedisLockProvider(factory, new RedisLockSettings("figures", pubSub))) {
			LockTemplate template = LockTemplate.builder(provider).build();
			LockOptions options = LockOptions.builder()
				.timeout(Duration.ofSeconds(30))
				.delay(Duration.ofMillis(5))
				.maxDelay(Duration.ofMillis(50))
				.waitUpTo(Duration.ofSeconds(60))
				.build();
			AtomicLong releaseStarted = new AtomicLong();
			List<Long> handoffs = Collections.synchronizedList(new ArrayList<>());
			ExecutorService executor = Executors.newFixedThreadPool(THREADS);
			try {
				List<Future<?>> futures = new ArrayList<>();
				for (int t = 0; t < THREADS; t++) {
					futures.add(executor.submit(() -> {
						for (int i = 0; i < CYCLES_PER_THREAD; i++) {
							LockHandle handle = template.acquire("handoff", options);
							long acquired = System.nanoTime();
							long previous = releaseStarted.get();
							if (previous != 0) {
								handoffs.add(acquired - previous);
							}
							Thread.sleep(1); // a short critical section
							releaseStarted.set(System.nanoTime());
							handle.release();
						}
						return null;
					}));
				}
				for (Future<?> future : futures) {
					future.get(5, TimeUnit.MINUTES);
				}
			}
			finally {
				executor.shutdownNow();
				template.close();
			}
			return new ArrayList<>(handoffs);
		}
	}

	private static double millis(List<Long> sorted, double quantile) {
		int index = (int) Math.min(sorted.size() - 1, Math.ceil(quantile * sorted.size()) - 1);
		return sorted.get(Math.max(0, index)) / 1_000_000.0;
	}

}
