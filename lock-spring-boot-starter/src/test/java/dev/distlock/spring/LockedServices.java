package dev.distlock.spring;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.FailureMode;
import dev.distlock.core.LockHandle;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Beans with annotated methods, one per behaviour under test.
 */
final class LockedServices {

	private LockedServices() {
	}

	/** An order, to read a record component from a key expression. */
	record Order(String id, int seats) {
	}

	/** An unguarded read-sleep-write counter per name: exact only if calls on one name never overlap. */
	static class Counter {

		private final Map<String, Integer> values = new HashMap<>();

		@DistributedLock(key = "'counter:' + #name", retries = Integer.MAX_VALUE, delay = 1, maxWaitString = "20s")
		public void increment(String name) throws InterruptedException {
			Integer read = values.getOrDefault(name, 0);
			Thread.sleep(1);
			values.put(name, read + 1);
		}

		int value(String name) {
			return values.getOrDefault(name, 0);
		}

	}

	/** Methods that show what the key expressions and the context holder see. */
	static class Keys {

		private final AtomicInteger bodies = new AtomicInteger();

		/** How many annotated bodies ran; read through the proxy, which has no state of its own. */
		public int bodies() {
			return bodies.get();
		}

		@DistributedLock(key = "#root.methodName + ':' + #p0 + ':' + #a1 + ':' + #order.id + ':' + #order.seats()")
		public String describe(String name, int count, Order order) {
			bodies.incrementAndGet();
			return LockContext.current().key();
		}

		/** Read by key expressions as {@code #root.target.region}. */
		public String getRegion() {
			return "eu";
		}

		@DistributedLock(key = "#root.method.name + ':' + #root.target.region + ':' + #root.args[0] + ':'"
				+ " + #root.args.length")
		public String rooted(String id, int count) {
			return LockContext.current().key();
		}

		@DistributedLock(key = "#id")
		public void byId(@Nullable String id) {
			bodies.incrementAndGet();
		}

		@DistributedLock(keys = { "'seat:' + #a", "'seat:' + #b" })
		public List<String> pair(String a, String b) {
			return LockContext.currentHandles().stream().map(LockHandle::key).toList();
		}

		@DistributedLock(key = "'meet:' + #key")
		public boolean meet(String key, CountDownLatch latch) throws InterruptedException {
			latch.countDown();
			return latch.await(5, TimeUnit.SECONDS);
		}

		@DistributedLock(key = "'skip:' + #key", onFailure = FailureMode.SKIP)
		public @Nullable String skipping(String key) {
			bodies.incrementAndGet();
			return "ran";
		}

		@DistributedLock(key = "'skip:' + #key", onFailure = FailureMode.SKIP)
		public Optional<String> skippingOptional(String key) {
			bodies.incrementAndGet();
			return Optional.of("ran");
		}

		@DistributedLock(key = "'brief:' + #key", timeoutString = "${test.lease:10s}", holdAtLeastString = "${test.hold:5s}")
		public long brief(String key) {
			return LockContext.current().fencingToken();
		}

		@DistributedLock(key = "'shared:' + #key", shared = true, maxConcurrent = 2)
		public boolean shared(String key, CountDownLatch latch) throws InterruptedException {
			latch.countDown();
			return latch.await(5, TimeUnit.SECONDS);
		}

	}

	/** Every public method locked through the class. */
	@DistributedLock
	static class WholeClass {

		public String first() {
			return LockContext.current().key();
		}

		public String second() {
			return LockContext.current().key();
		}

	}

	/** Async methods whose completion the test controls. */
	static class Async {

		private final CompletableFuture<String> gate = new CompletableFuture<>();

		private volatile @Nullable LockHandle seen;

		/** Completes the async results; read through the proxy, which has no state of its own. */
		public CompletableFuture<String> gate() {
			return gate;
		}

		/** The handle the Flux method saw while assembling. */
		public @Nullable LockHandle seen() {
			return seen;
		}

		@DistributedLock(key = "'future'")
		public CompletableFuture<String> future() {
			LockHandle handle = LockContext.current();
			return gate.thenApply(value -> value + ":" + handle.key());
		}

		@DistributedLock(key = "'mono'")
		public Mono<String> mono() {
			return Mono.fromFuture(gate)
				.flatMap(value -> Mono.deferContextual(
						ctx -> Mono.just(value + ":" + ctx.<LockHandle>get(LockContext.CONTEXT_KEY).key())));
		}

		@DistributedLock(key = "'flux'")
		public Flux<Long> endless() {
			seen = LockContext.current();
			return Flux.interval(Duration.ofMillis(50));
		}

	}

}
