package dev.distlock.test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.DistributedLockException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.memory.InMemoryLockProvider;
import dev.distlock.core.spi.Acquisition;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockIdSupport;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockRenewal;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.OperatorSupport;
import dev.distlock.core.spi.StatusQuery;
import dev.distlock.core.spi.StoreClock;
import dev.distlock.core.spi.WaitingLockProvider;

/**
 * The in-memory lock store for application tests, with the controls a real store does not give: move its clock
 * ({@link #advance(Duration)}), let a lock's lease run out now ({@link #expire(String)}), take a lock away from its
 * holder and tell it at once ({@link #loseLock(String)}), and read which keys were locked ({@link #acquiredKeys()}).
 * It behaves as {@link InMemoryLockProvider} otherwise: same exclusion, fencing tokens, shared locks, lock IDs and
 * waiting.
 * <p>
 * It is also a {@link LockListener}: a template with it as listener tells it which handles are held, so that
 * {@link #loseLock(String)} can reach their holders. {@link #newTemplate()} builds such a template; in a Spring Boot
 * test, {@link AutoConfigureTestDistributedLock} makes it the application's provider and listener. Keys are the
 * store's keys: the template's key prefix ({@code distributed-lock.key-prefix}, empty by default) included.
 */
public final class TestLockProvider implements WaitingLockProvider, OperatorSupport, StoreClock, LockIdSupport,
		LockListener {

	/** Any valid lease: an extend asked only to learn that the store no longer has the lock. */
	private static final Duration PROBE = Duration.ofMinutes(1);

	/** How far {@link #advance(Duration)} has moved the store's clock ahead of the real one. */
	private final AtomicLong ahead = new AtomicLong();

	private final InMemoryLockProvider store = new InMemoryLockProvider(() -> System.nanoTime() + ahead.get());

	private final Set<LockHandle> handles = ConcurrentHashMap.newKeySet();

	private final List<String> acquired = Collections.synchronizedList(new ArrayList<>());

	/**
	 * An empty store whose clock runs with the real one until {@link #advance(Duration)} moves it.
	 */
	public TestLockProvider() {
		LockAssertions.register(this);
	}

	/**
	 * A template on this store with this store as its listener, so that {@link #loseLock(String)} reaches its
	 * holders. Close it at the end of the test, as any template.
	 */
	public LockTemplate newTemplate() {
		return LockTemplate.builder(this).listener(this).build();
	}

	/**
	 * Moves the store's clock forward: every lease shorter than {@code duration} runs out, as if the holders had
	 * stalled that long. Holders learn of it at their next renewal, extend or release, as with a real store; their
	 * handles count their own lease on the real clock, so {@link LockHandle#isHeld()} does not change by itself.
	 * @throws IllegalArgumentException if {@code duration} is negative: a store's clock does not go back
	 */
	public void advance(Duration duration) {
		if (duration.isNegative()) {
			throw new IllegalArgumentException("A lock store's clock does not go back: advance(" + duration + ")");
		}
		ahead.addAndGet(duration.toNanos());
	}

	/**
	 * Lets the lease of every lock on {@code key} run out now: others can take the key at once, and each holder finds
	 * the lock gone at its next renewal, extend or release (then its {@link LockHandle#onLost} callbacks run and the
	 * release throws), as a holder that stalled past its lease does. Unlike a real expiry, a lock taken under a lock
	 * ID leaves no expired record for {@link #unlock(String)} and {@link #renew(String, Duration)} to report.
	 * @return whether a lock was held on the key
	 */
	public boolean expire(String key) {
		return store.forceRelease(key);
	}

	/**
	 * Takes every lock on {@code key} away from its holders and tells them now, as a renewal that finds the lock gone
	 * does: each handle held through a template that has this store as listener turns lost, and its
	 * {@link LockHandle#onLost} callbacks and the template's {@link LockListener#onLost} listeners run once, on the
	 * calling thread, before this method returns. Others can take the key at once.
	 * @return whether a lock was held on the key
	 */
	public boolean loseLock(String key) {
		boolean held = store.forceRelease(key);
		for (LockHandle handle : handles) {
			if (handle.key().equals(key)) {
				tellLost(handle);
			}
		}
		return held;
	}

	/**
	 * The keys granted since this store was made or last {@link #reset()}, one entry per grant, in grant order.
	 */
	public List<String> acquiredKeys() {
		synchronized (acquired) {
			return List.copyOf(acquired);
		}
	}

	/**
	 * The keys locked now, sorted.
	 */
	public List<String> lockedKeys() {
		return store.status(StatusQuery.held()).stream().map(LockInfo::key).toList();
	}

	/**
	 * Empties the store for the next test: every lock goes (its holders find it gone at their next store call), the
	 * record of grants is cleared, and the clock stays where it is. A Spring test context is shared by the test
	 * classes that configure it alike, so call this before or after each test that leaves locks behind.
	 */
	public void reset() {
		for (LockInfo info : store.status(StatusQuery.all())) {
			store.forceRelease(info.key());
		}
		handles.clear();
		acquired.clear();
	}

	@Override
	public String name() {
		return "test";
	}

	@Override
	public Optional<Lease> tryAcquire(LockRequest request) {
		return granted(request, store.tryAcquire(request));
	}

	@Override
	public boolean isLocked(String key) {
		return store.isLocked(key);
	}

	@Override
	public Acquisition begin(LockRequest request) {
		Acquisition waiting = store.begin(request);
		return new Acquisition() {
			@Override
			public Optional<Granted> tryOnce() {
				Optional<Granted> granted = waiting.tryOnce();
				granted.ifPresent(grant -> acquired.add(request.key()));
				return granted;
			}

			@Override
			public boolean awaitSignal(Duration max) throws InterruptedException {
				return waiting.awaitSignal(max);
			}

			@Override
			public @Nullable Duration longestWait() {
				return waiting.longestWait();
			}

			@Override
			public void close() {
				waiting.close();
			}
		};
	}

	@Override
	public List<LockInfo> status(StatusQuery query) {
		return store.status(query);
	}

	@Override
	public boolean forceRelease(String key) {
		return store.forceRelease(key);
	}

	@Override
	public List<LockInfo> unlock(String lockId) {
		return store.unlock(lockId);
	}

	@Override
	public LockRenewal renew(String lockId, Duration lease) {
		return store.renew(lockId, lease);
	}

	@Override
	public Duration ping() {
		return store.ping();
	}

	/** The store's clock: the real one plus whatever {@link #advance(Duration)} has added (periods follow it). */
	@Override
	public Instant storeTime() {
		return store.storeTime();
	}

	@Override
	public void onAcquired(LockHandle handle) {
		handles.add(handle);
	}

	@Override
	public void onReleased(LockHandle handle, Duration heldFor) {
		handles.remove(handle);
	}

	@Override
	public void onReleaseFailed(LockHandle handle, DistributedLockException error) {
		if (!handle.isHeld()) {
			handles.remove(handle);
		}
	}

	@Override
	public void onLost(LockHandle handle, LockLostException cause) {
		handles.remove(handle);
	}

	private Optional<Lease> granted(LockRequest request, Optional<Lease> lease) {
		lease.ifPresent(granted -> acquired.add(request.key()));
		return lease;
	}

	/**
	 * Makes the handle ask the store, which no longer has its lock: the template then marks it lost and tells its
	 * callbacks and listeners. A lock with a lease asks by extending (refused); one without expiry cannot be
	 * extended, so it asks by releasing (refused too, and the handle is lost either way).
	 */
	private static void tellLost(LockHandle handle) {
		try {
			if (LockInfo.NO_EXPIRY.equals(handle.remaining())) {
				handle.release();
			}
			else {
				handle.extend(PROBE);
			}
		}
		catch (DistributedLockException expected) {
			// the refusal that turned the handle lost; its holder sees the loss through the handle
		}
	}

}
