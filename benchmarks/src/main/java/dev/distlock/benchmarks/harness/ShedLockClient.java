package dev.distlock.benchmarks.harness;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * The client of the ShedLock arms: a 10 s lock at most and nothing at least, retried after the arm's pause while it
 * is held (ShedLock does not wait), and unlocked through its {@link SimpleLock}.
 */
public final class ShedLockClient implements LockClient {

	private static final Duration LOCK_AT_MOST = Duration.ofSeconds(10);

	private final LockProvider provider;

	private final Runnable retryPause;

	private final Runnable closing;

	/**
	 * A client of the ShedLock provider.
	 * @param retryPause what to do before trying a held lock again
	 * @param closing closes what the provider runs on
	 */
	public ShedLockClient(LockProvider provider, Runnable retryPause, Runnable closing) {
		this.provider = provider;
		this.retryPause = retryPause;
		this.closing = closing;
	}

	@Override
	public Object lock(String key) {
		while (true) {
			Optional<SimpleLock> lock = provider
				.lock(new LockConfiguration(Instant.now(), key, LOCK_AT_MOST, Duration.ZERO));
			if (lock.isPresent()) {
				return lock.get();
			}
			retryPause.run();
		}
	}

	@Override
	public void unlock(Object held) {
		((SimpleLock) held).unlock();
	}

	@Override
	public void close() {
		closing.run();
	}

}
