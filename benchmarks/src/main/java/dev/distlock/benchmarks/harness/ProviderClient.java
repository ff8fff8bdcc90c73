package dev.distlock.benchmarks.harness;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

import dev.distlock.core.LockMode;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;

/**
 * The client of the "provider alone" arms: a distlock provider called through its SPI, without {@code LockTemplate}:
 * an exclusive 10 s lease under a token made as the floors make their own, retried after the arm's pause while the
 * lock is held, and released through its {@link Lease}.
 */
public final class ProviderClient implements LockClient {

	private static final Duration LEASE = Duration.ofSeconds(10);

	private static final OwnerDetails OWNER = new OwnerDetails("benchmarks", "localhost");

	private final LockProvider provider;

	private final Runnable retryPause;

	private final Runnable closing;

	/**
	 * A client of the provider.
	 * @param retryPause what to do before trying a held lock again
	 * @param closing closes the provider and what it runs on
	 */
	public ProviderClient(LockProvider provider, Runnable retryPause, Runnable closing) {
		this.provider = provider;
		this.retryPause = retryPause;
		this.closing = closing;
	}

	@Override
	public Object lock(String key) {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		LockRequest request = new LockRequest(key,
				Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong()), LEASE, LockMode.EXCLUSIVE, 1,
				OWNER);
		Optional<Lease> lease;
		while ((lease = provider.tryAcquire(request)).isEmpty()) {
			retryPause.run();
		}
		return lease.get();
	}

	@Override
	public void unlock(Object held) {
		((Lease) held).release();
	}

	@Override
	public void close() {
		closing.run();
	}

}
