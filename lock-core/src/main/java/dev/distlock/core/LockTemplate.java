package dev.distlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.distlock.core.internal.HandleRegistry;
import dev.distlock.core.internal.OwnerTokens;
import dev.distlock.core.internal.WaitLoop;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.LockStatusSource;
import dev.distlock.core.spi.ReleaseNotifier;
import dev.distlock.core.spi.StatusQuery;

/**
 * The programmatic API: run work under a lock, or take a {@link LockHandle} to close with try-with-resources. Waiting,
 * retries, backoff, groups and renewal happen here, once, for every provider. Thread-safe; share one per application.
 */
public final class LockTemplate implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LockTemplate.class);

	private final LockProvider provider;

	private final LockOptions defaults;

	private final String keyPrefix;

	private final OwnerDetails owner;

	private final LongSupplier nanoClock = System::nanoTime;

	private final HandleRegistry handles;

	private LockTemplate(Builder builder) {
		this.provider = builder.provider;
		this.defaults = builder.defaults;
		this.keyPrefix = builder.keyPrefix;
		this.owner = builder.owner;
		this.handles = new HandleRegistry(builder.listeners, builder.scheduler, nanoClock);
	}

	/**
	 * A template on the provider with default options.
	 */
	public LockTemplate(LockProvider provider) {
		this(builder(provider));
	}

	/**
	 * A builder for a template on the provider.
	 */
	public static Builder builder(LockProvider provider) {
		return new Builder(provider);
	}

	/** Acquires with the default options; see {@link #acquire(String, LockOptions)}. */
	public LockHandle acquire(String key) {
		return acquire(key, defaults);
	}

	/**
	 * Acquires the lock, waiting per the options. Always throws when the lock stays held, whatever
	 * {@link LockOptions#onFailure()} says: a handle cannot be skipped; use {@link #tryAcquire(String, LockOptions)}.
	 * @throws LockAcquisitionException if it stayed held through every attempt
	 * @throws InvalidLockKeyException if the key is unusable
	 * @throws LockStoreException if the store cannot be reached
	 */
	public LockHandle acquire(String key, LockOptions options) {
		return tryAcquire(key, options, false).orElseThrow();
	}

	/** Like {@link #acquire(String, LockOptions)} with the default options, but empty instead of throwing. */
	public Optional<LockHandle> tryAcquire(String key) {
		return tryAcquire(key, defaults);
	}

	/** Like {@link #acquire(String, LockOptions)}, but returns empty when the lock stayed held. */
	public Optional<LockHandle> tryAcquire(String key, LockOptions options) {
		return tryAcquire(key, options, true);
	}

	/** Runs the callback under the lock with the default options; see {@link #execute(String, LockOptions, LockCallback)}. */
	public <T extends @Nullable Object> @Nullable T execute(String key, LockCallback<T> callback) {
		return execute(key, defaults, callback);
	}

	/**
	 * Runs the callback under the lock and releases it afterwards. With {@link FailureMode#SKIP} in the options, a lock
	 * that stayed held skips the callback and returns null instead of throwing.
	 * @throws LockAcquisitionException if the lock stayed held through every attempt and the options say
	 * {@link FailureMode#THROW}; the callback did not run
	 * @throws LockReleaseException if the lock was lost while the callback ran
	 */
	public <T extends @Nullable Object> @Nullable T execute(String key, LockOptions options, LockCallback<T> callback) {
		Optional<LockHandle> acquired = tryAcquire(key, options, options.onFailure() == FailureMode.SKIP);
		if (acquired.isEmpty()) {
			return null;
		}
		try (LockHandle handle = acquired.get()) {
			return callback.doInLock(handle);
		}
	}

	/**
	 * Runs the callback under the lock if it can be had, else skips it. A null result also reads as empty.
	 */
	public <T> Optional<T> tryExecute(String key, LockOptions options, LockCallback<@Nullable T> callback) {
		Optional<LockHandle> acquired = tryAcquire(key, options);
		if (acquired.isEmpty()) {
			return Optional.empty();
		}
		try (LockHandle handle = acquired.get()) {
			return Optional.ofNullable(callback.doInLock(handle));
		}
	}

	/**
	 * Acquires every key as one group, all or nothing, in sorted key order so overlapping groups cannot deadlock.
	 * @throws LockAcquisitionException if any key stayed held; then none is left locked
	 */
	public LockGroup acquireAll(Collection<String> keys, LockOptions options) {
		return tryAcquireAll(keys, options, false).orElseThrow();
	}

	/** Like {@link #acquireAll}, but returns empty when a key stayed held. */
	public Optional<LockGroup> tryAcquireAll(Collection<String> keys, LockOptions options) {
		return tryAcquireAll(keys, options, true);
	}

	/**
	 * Whether the key is currently held by anyone (redislock's {@code check}).
	 */
	public boolean isLocked(String key) {
		String fullKey = fullKey(key);
		return guard(fullKey, () -> provider.isLocked(fullKey));
	}

	/**
	 * Waits until the key is not held, checking per the options' retries and backoff; takes no lock.
	 * @throws LockHeldException if it was still held after the last check
	 */
	public void awaitFree(String key, LockOptions options) {
		String fullKey = fullKey(key);
		WaitLoop.Outcome<Boolean> outcome = WaitLoop.run(fullKey, options, notifier(), nanoClock,
				(attempt, loop) -> guard(fullKey, () -> provider.isLocked(fullKey)) ? null : Boolean.TRUE);
		if (outcome.value() == null) {
			throw new LockHeldException(fullKey, outcome.attempts(), outcome.waited());
		}
	}

	/**
	 * The cache-stampede pattern of lua-resty-lock: read the cache; on a miss take the lock, read again (another caller
	 * may have filled it meanwhile), and only then compute and write, so one caller computes while the rest wait.
	 * A lock that stays held throws {@link LockAcquisitionException} whatever {@link LockOptions#onFailure()} says:
	 * there is no value to return.
	 */
	public <T> T computeIfMissing(String key, Supplier<@Nullable T> cacheRead, Supplier<T> compute,
			Consumer<? super T> cacheWrite, LockOptions options) {
		T cached = cacheRead.get();
		if (cached != null) {
			return cached;
		}
		try (LockHandle handle = acquire(key, options)) {
			cached = cacheRead.get();
			if (cached != null) {
				return cached;
			}
			T value = compute.get();
			cacheWrite.accept(value);
			return value;
		}
	}

	/**
	 * The locks this template's callers hold now, in no particular order.
	 */
	public List<LockHandle> heldLocks() {
		return handles.held();
	}

	/**
	 * Releases every lock this template's callers hold. Failures are logged, not thrown.
	 * @return how many were released cleanly
	 */
	public int releaseAll() {
		return handles.releaseAll();
	}

	/**
	 * The store's locks matching the query.
	 * @throws UnsupportedOperationException if the provider has no status query
	 */
	public List<LockInfo> status(StatusQuery query) {
		if (!(provider instanceof LockStatusSource source)) {
			throw new UnsupportedOperationException("Lock provider '" + provider.name() + "' has no status query");
		}
		return guard(query.keyPrefix(), () -> source.status(query));
	}

	/** The provider behind this template. */
	public LockProvider provider() {
		return provider;
	}

	/** The options used where none are given. */
	public LockOptions defaults() {
		return defaults;
	}

	/** The prefix put before every key. */
	public String keyPrefix() {
		return keyPrefix;
	}

	/**
	 * Releases every held lock and stops the watchdog.
	 */
	@Override
	public void close() {
		handles.close();
	}

	private Optional<LockHandle> tryAcquire(String key, LockOptions options, boolean skip) {
		String fullKey = fullKey(key);
		LockRequest request = request(fullKey, OwnerTokens.next(), options);
		ReleaseNotifier notifier = notifier();
		ReleaseNotifier watcher = notifier != null ? new RequestWatcher(notifier, request) : null;
		WaitLoop.Outcome<LockHandle> outcome = reportingStoreErrors(fullKey, options,
				() -> WaitLoop.run(fullKey, options, watcher, nanoClock,
						(attempt, loop) -> guard(fullKey, () -> provider.tryAcquire(request))
							.<LockHandle>map(lease -> handles.register(lease, options, null,
									Math.min(attempt, lease.leaseStartNanos(attempt)), loop))
							.orElse(null)));
		return finish(fullKey, options, outcome, skip);
	}

	private Optional<LockGroup> tryAcquireAll(Collection<String> keys, LockOptions options, boolean skip) {
		List<String> sorted = keys.stream().map(this::fullKey).distinct().sorted().toList();
		if (sorted.isEmpty()) {
			throw new InvalidLockKeyException(null, "A lock group needs at least one key");
		}
		String token = OwnerTokens.next();
		String groupId = OwnerTokens.next().substring(0, 12);
		List<LockRequest> requests = sorted.stream().map(fullKey -> request(fullKey, token, options)).toList();
		String label = String.join(",", sorted);
		// Groups poll with backoff: a release signal on one key says little about the others.
		WaitLoop.Outcome<LockGroup> outcome = reportingStoreErrors(label, options,
				() -> WaitLoop.run(label, options, null, nanoClock,
						(attempt, loop) -> guard(label, () -> provider.tryAcquireAll(requests)).map(leases -> {
							List<LockHandle> members = new ArrayList<>(leases.size());
							for (Lease lease : leases) {
								members.add(handles.register(lease, options, groupId, attempt, loop));
							}
							return new LockGroup(groupId, members);
						}).orElse(null)));
		return finish(label, options, outcome, skip);
	}

	private <T> WaitLoop.Outcome<T> reportingStoreErrors(String key, LockOptions options,
			Supplier<WaitLoop.Outcome<T>> waiting) {
		try {
			return waiting.get();
		}
		catch (LockStoreException ex) {
			handles.listeners().onAcquireError(key, options.mode(), ex);
			throw ex;
		}
	}

	private <T> Optional<T> finish(String key, LockOptions options, WaitLoop.Outcome<T> outcome, boolean skip) {
		if (outcome.value() != null) {
			return Optional.of(outcome.value());
		}
		handles.listeners().onAcquireFailed(key, options.mode(), outcome.attempts(), outcome.waited(), skip);
		if (skip) {
			logger.debug("Lock '" + key + "' is held elsewhere; skipping after " + outcome.attempts() + " attempt(s)");
			return Optional.empty();
		}
		throw new LockAcquisitionException(key, outcome.attempts(), outcome.waited(), null);
	}

	private LockRequest request(String fullKey, String token, LockOptions options) {
		OwnerDetails details = options.owner() != null ? options.owner() : owner;
		return new LockRequest(fullKey, token, options.timeout(), options.mode(), options.maxConcurrent(), details);
	}

	private @Nullable ReleaseNotifier notifier() {
		return provider instanceof ReleaseNotifier notifier ? notifier : null;
	}

	private String fullKey(@Nullable String key) {
		return LockKeys.validate(keyPrefix + LockKeys.validate(key));
	}

	private <T> T guard(@Nullable String key, Supplier<T> storeCall) {
		try {
			return storeCall.get();
		}
		catch (DistributedLockException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			throw new LockStoreException(key, "Lock store '" + provider.name() + "' failed" + (key != null
					? " for '" + key + "'" : "") + ": " + ex.getMessage(), ex);
		}
	}

	/**
	 * Opens watches on behalf of one request, so a provider can queue it for a direct hand-off.
	 */
	private record RequestWatcher(ReleaseNotifier notifier, LockRequest request) implements ReleaseNotifier {

		@Override
		public Watch watch(String key) {
			return notifier.watch(request);
		}

		@Override
		public boolean isWatchFree(String key) {
			return notifier.isWatchFree(key);
		}

	}

	/**
	 * Builds a {@link LockTemplate}.
	 */
	public static final class Builder {

		private final LockProvider provider;

		private LockOptions defaults = LockOptions.defaults();

		private String keyPrefix = "";

		private OwnerDetails owner = OwnerDetails.local();

		private final List<LockListener> listeners = new ArrayList<>();

		private @Nullable ScheduledExecutorService scheduler;

		private Builder(LockProvider provider) {
			this.provider = provider;
		}

		/** Sets the options used where none are given. */
		public Builder defaults(LockOptions defaults) {
			this.defaults = defaults;
			return this;
		}

		/** Sets a prefix put before every key, such as {@code myapp:}. */
		public Builder keyPrefix(String keyPrefix) {
			this.keyPrefix = keyPrefix;
			return this;
		}

		/** Sets the owner details stored with every lock. */
		public Builder owner(OwnerDetails owner) {
			this.owner = owner;
			return this;
		}

		/** Adds a listener for lock events, such as the lock-lost signal. */
		public Builder listener(LockListener listener) {
			this.listeners.add(listener);
			return this;
		}

		/** Runs renewals on this scheduler instead of the template's own daemon thread. */
		public Builder scheduler(ScheduledExecutorService scheduler) {
			this.scheduler = scheduler;
			return this;
		}

		/** Builds the template. */
		public LockTemplate build() {
			return new LockTemplate(this);
		}

	}

}
