package dev.distlock.reliability.worker;

import java.util.function.Consumer;

import org.springframework.stereotype.Component;

import dev.distlock.core.LockHandle;
import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.LockContext;

/**
 * The locked methods the workers call. Every option comes from {@code worker.*} placeholders so one class serves the
 * fuzz (short lease, long wait) and the fault scenarios (short auto-renewed lease).
 */
@Component
public class LockedOperations {

	/**
	 * The fuzz's critical section: records (fencing token, start, end) around one unguarded increment. The interval
	 * spans the whole read–sleep–write, so a section of another holder that starts inside it is an overlap.
	 */
	@DistributedLock(key = "#key", timeoutString = "${worker.lease:10s}", retriesString = "${worker.retries:1000000}",
			delayString = "${worker.delay:5ms}", maxWaitString = "${worker.max-wait:120s}")
	public void increment(String key, UnguardedCounter counter, IntervalLog log) {
		long token = LockContext.current().fencingToken();
		long start = System.nanoTime();
		counter.increment();
		long end = System.nanoTime();
		log.record(token, start, end);
	}

	/**
	 * Runs the body while holding the key; the body gets the handle from {@link LockContext}.
	 */
	@DistributedLock(key = "#key", timeoutString = "${worker.lease:2s}", autoRenewString = "${worker.auto-renew:true}",
			retriesString = "${worker.retries:1000000}", delayString = "${worker.delay:20ms}",
			maxWaitString = "${worker.max-wait:60s}")
	public void hold(String key, Consumer<LockHandle> body) {
		body.accept(LockContext.current());
	}

}
