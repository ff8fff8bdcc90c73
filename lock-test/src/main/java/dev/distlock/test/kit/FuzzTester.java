package dev.distlock.test.kit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;

/**
 * The fuzz oracle: threads run an unguarded read-sleep-write counter per key under the lock. Only mutual exclusion
 * keeps the count exact; each section also checks that its fencing token is above the last one seen for the key (a
 * token 0, a grant without one, is counted apart).
 */
public final class FuzzTester {

	private final LockTemplate template;

	private final int threads;

	private final List<String> keys;

	private final int iterations;

	private final Resource[] resources;

	/**
	 * A run of {@code threads} threads, each doing {@code iterations} sections spread over the keys.
	 */
	public FuzzTester(LockTemplate template, int threads, List<String> keys, int iterations) {
		this.template = template;
		this.threads = threads;
		this.keys = keys;
		this.iterations = iterations;
		this.resources = new Resource[keys.size()];
		for (int i = 0; i < resources.length; i++) {
			resources[i] = new Resource();
		}
	}

	/**
	 * Runs every thread to the end.
	 */
	public Result run() throws Exception {
		LockOptions options = LockOptions.builder()
			.timeout(Duration.ofSeconds(30))
			.delay(Duration.ofMillis(2))
			.backoffMultiplier(1.5)
			.maxDelay(Duration.ofMillis(20))
			.waitUpTo(Duration.ofSeconds(60))
			.build();
		AtomicInteger sections = new AtomicInteger();
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> futures = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int offset = t;
				futures.add(executor.submit(() -> {
					for (int i = 0; i < iterations; i++) {
						int index = (i + offset) % keys.size();
						Resource resource = resources[index];
						template.execute(keys.get(index), options, handle -> {
							resource.write(handle.fencingToken());
							sections.incrementAndGet();
							return null;
						});
					}
					return null;
				}));
			}
			for (Future<?> future : futures) {
				future.get(120, TimeUnit.SECONDS);
			}
		}
		finally {
			executor.shutdownNow();
		}
		List<Long> counts = new ArrayList<>();
		int violations = 0;
		int withoutToken = 0;
		for (Resource resource : resources) {
			counts.add(resource.count);
			violations += resource.violations;
			withoutToken += resource.withoutToken;
		}
		return new Result(counts, violations, sections.get(), withoutToken);
	}

	/**
	 * What a run ended with.
	 * @param counts the final counter per key, in key order
	 * @param fencingViolations sections whose token was not above the last one the resource had seen (tokens 0 left
	 * out: see {@code sectionsWithoutToken})
	 * @param sections how many sections ran
	 * @param sectionsWithoutToken sections whose token was 0, a grant without a fencing token (Redis with
	 * {@code fencing=false}); the resource leaves them out of its token check
	 */
	public record Result(List<Long> counts, int fencingViolations, int sections, int sectionsWithoutToken) {
	}

	/**
	 * A deliberately unguarded resource: read, pause, write. Overlapping sections lose updates.
	 */
	private static final class Resource {

		private volatile long count;

		private volatile long lastToken;

		private volatile int violations;

		private volatile int withoutToken;

		void write(long fencingToken) {
			long read = count;
			long seen = lastToken;
			Thread.yield();
			try {
				Thread.sleep(0, 200_000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			if (fencingToken == 0) {
				withoutToken = withoutToken + 1;
			}
			else {
				if (fencingToken <= seen) {
					violations = violations + 1;
				}
				lastToken = fencingToken;
			}
			count = read + 1;
		}

	}

}
