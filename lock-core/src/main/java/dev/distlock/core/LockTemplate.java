package dev.distlock.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.internal.HandleRegistry;
import dev.distlock.core.internal.OwnerTokens;
import dev.distlock.core.internal.StoreErrors;
import dev.distlock.core.spi.LockIdSupport;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRenewal;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.StoreClock;

/**
 * The programmatic API: run work under a lock, or take a {@link LockHandle} to close with try-with-resources. Waiting,
 * retries, backoff, groups and renewal happen here, once, for every provider. Thread-safe; share one per application.
 * What operators call (held locks, status, forced release, ping) is on {@link LockOperations}.
 */
public final class LockTemplate implements AutoCloseable {

	/**
	 * How often, by default, a handle of a lock without expiry checks with the store that it still holds it.
	 */
	public static final Duration DEFAULT_HOLDER_CHECK_INTERVAL = Duration.ofSeconds(5);

	private final LockProvider provider;

	private final LockOptions defaults;

	private final String keyPrefix;

	private final OwnerDetails owner;

	private final LongSupplier nanoClock = System::nanoTime;

	private final StoreErrors store;

	private final HandleRegistry handles;

	private final LockAcquirer acquirer;

	private final @Nullable LockIdSupport lockIds;

	private LockTemplate(Builder builder) {
		this.provider = builder.provider;
		this.defaults = builder.defaults;
		this.keyPrefix = builder.keyPrefix;
		this.owner = builder.owner;
		this.store = new StoreErrors(provider.name());
		this.handles = new HandleRegistry(builder.listeners, builder.scheduler, builder.renewalExecutor, store, nanoClock,
				builder.holderCheckInterval);
		this.acquirer = new LockAcquirer(provider, store, handles, nanoClock);
		this.lockIds = (provider instanceof LockIdSupport ids) ? ids : null;
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
		try (LockHandle handle = acquired.get(); LockListener.Scope work = openWorkScope(List.of(handle))) {
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
		try (LockHandle handle = acquired.get(); LockListener.Scope work = openWorkScope(List.of(handle))) {
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
	 * A fresh lock ID: 128 random bits, URL-safe. Use it where the ID crosses a trust boundary, since whoever knows a
	 * lock ID can release or renew every lock taken under it.
	 */
	public static String newLockId() {
		return OwnerTokens.next();
	}

	/**
	 * A group of locks under the caller's lock ID, empty at first: add exclusive and shared locks on any keys over
	 * time with {@link LockGroup#lock}, {@link LockGroup#lockShared} and {@link LockGroup#lockAll}. Every member is
	 * stored under the ID, so any process can then {@link #unlock(String)} or {@link #renew(String, Duration)} them
	 * by it. Lock IDs are not prefixed: they name locks across the whole store.
	 * @throws InvalidLockOptionException naming {@code lockId} if the ID is null, blank, longer than 200 characters,
	 * has control characters or is not well-formed UTF-16 ({@link LockIds})
	 * @throws UnsupportedOperationException if the provider has no lock IDs
	 */
	public LockGroup group(String lockId) {
		lockIdSupport("lock groups by ID");
		return new LockGroup(checkLockId(lockId), this, List.of());
	}

	/**
	 * Releases every lock taken under the ID, from this or any other process, newest first. Safe to retry: once
	 * nothing holds the ID it returns an empty list. This template's own handles of the released locks turn
	 * released, so closing them is not an error; other processes' handles find their lock gone: at their lease's end,
	 * at their next renewal, or (without expiry) at their next holder check ({@link Builder#holderCheckInterval}).
	 * @return the locks released, newest first, as they were just before the release
	 * @throws UnsupportedOperationException if the provider has no lock IDs
	 */
	public List<LockInfo> unlock(String lockId) {
		LockIdSupport ids = lockIdSupport("unlock by lock ID");
		String id = checkLockId(lockId);
		List<LockInfo> released = store.call(null, "unlock by lock ID", () -> ids.unlock(id));
		handles.releasedById(id, released.stream().map(LockInfo::key).collect(Collectors.toSet()));
		return released;
	}

	/**
	 * Sets the lease of every held lock taken under the ID to {@code ttl} from now, from this or any other process;
	 * a lock without expiry gets this lease. When {@link LockRenewal#allRenewed()} is false, some lock of the ID had
	 * already expired (listed in {@link LockRenewal#expired()}), so the caller should assume none is safe.
	 * @throws InvalidLockOptionException naming {@code ttl} if it is not from 1 ms to 365 days
	 * @throws UnsupportedOperationException if the provider has no lock IDs
	 */
	public LockRenewal renew(String lockId, Duration ttl) {
		LockIdSupport ids = lockIdSupport("renew by lock ID");
		String id = checkLockId(lockId);
		LockOptions.checkDuration("ttl", ttl);
		long start = nanoClock.getAsLong();
		LockRenewal renewal = store.call(null, "renew by lock ID", () -> ids.renew(id, ttl));
		Set<String> keys = renewal.renewed().stream().map(LockInfo::key).collect(Collectors.toSet());
		handles.renewedById(id, keys, start, ttl);
		return renewal;
	}

	/**
	 * Whether the key is currently held by anyone, exclusively or shared. Takes no lock.
	 */
	public boolean isLocked(String key) {
		String fullKey = fullKey(key);
		return store.call(fullKey, "check", () -> provider.isLocked(fullKey));
	}

	/**
	 * Waits until the key is not held, checking per the options' retries and backoff; takes no lock.
	 * @throws LockHeldException if it was still held after the last check
	 */
	public void awaitFree(String key, LockOptions options) {
		acquirer.awaitFree(fullKey(key), options);
	}

	/**
	 * The cache-stampede pattern: read the cache; on a miss take the lock, read again (another caller
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
		try (LockHandle handle = acquire(key, options); LockListener.Scope work = openWorkScope(List.of(handle))) {
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
	 * Tells the listeners that work guarded by these handles starts on this thread, as {@link #execute} does around
	 * its callback: for callers that run guarded work themselves, such as the {@code @DistributedLock} interceptor.
	 * Close the scope on the same thread when the work ends, before releasing the locks.
	 * @param handles one handle, or a group's members in key order
	 */
	public LockListener.Scope openWorkScope(List<LockHandle> handles) {
		return handles.isEmpty() ? LockListener.Scope.NONE : this.handles.listeners().onWorkStarted(handles);
	}

	/**
	 * Reads the store's clock once (see {@link StoreClock}); empty when the provider has no clock to offer.
	 * @throws LockStoreException if the store cannot be reached
	 */
	public Optional<Instant> storeTime() {
		if (!(provider instanceof StoreClock clock)) {
			return Optional.empty();
		}
		return Optional.of(store.call(null, "read its clock", clock::storeTime));
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

	StoreErrors storeErrors() {
		return store;
	}

	HandleRegistry handles() {
		return handles;
	}

	/**
	 * Releases every held lock and stops the watchdog.
	 */
	@Override
	public void close() {
		handles.close();
	}

	private Optional<LockHandle> tryAcquire(String key, LockOptions options, boolean skip) {
		return acquirer.acquire(request(fullKey(key), OwnerTokens.next(), options, null), options, skip);
	}

	/**
	 * A group taken at once. On a store with lock IDs its random ID is stored with every member, so the group can
	 * take more locks and be unlocked by ID; elsewhere the ID stays in this JVM.
	 */
	private Optional<LockGroup> tryAcquireAll(Collection<String> keys, LockOptions options, boolean skip) {
		boolean stored = lockIds != null;
		String id = stored ? newLockId() : OwnerTokens.next().substring(0, 12);
		return acquireAllInGroup(stored ? id : null, id, keys, options, skip)
			.map(members -> new LockGroup(id, stored ? this : null, members));
	}

	Optional<LockHandle> acquireInGroup(String lockId, String key, LockOptions options, boolean skip) {
		return acquirer.acquire(request(fullKey(key), OwnerTokens.next(), options, lockId), options, skip);
	}

	Optional<List<LockHandle>> acquireAllInGroup(String lockId, Collection<String> keys, LockOptions options,
			boolean skip) {
		return acquireAllInGroup(lockId, lockId, keys, options, skip);
	}

	private Optional<List<LockHandle>> acquireAllInGroup(@Nullable String storedId, String groupId,
			Collection<String> keys, LockOptions options, boolean skip) {
		List<String> sorted = keys.stream().map(this::fullKey).distinct().sorted().toList();
		if (sorted.isEmpty()) {
			throw new InvalidLockKeyException(null, "A lock group needs at least one key");
		}
		String token = OwnerTokens.next();
		List<LockRequest> group = sorted.stream().map(key -> request(key, token, options, storedId)).toList();
		return acquirer.acquireAll(group, options, groupId, skip);
	}

	private LockRequest request(String fullKey, String token, LockOptions options, @Nullable String lockId) {
		if (!options.expires()) {
			lockIdSupport("locks without expiry (LockOptions.noExpiry())");
		}
		OwnerDetails details = options.owner() != null ? options.owner() : owner;
		return new LockRequest(fullKey, token, options.timeout(), options.mode(), options.maxConcurrent(), details,
				lockId, !options.expires());
	}

	private LockIdSupport lockIdSupport(String feature) {
		LockIdSupport ids = lockIds;
		if (ids != null) {
			return ids;
		}
		throw new UnsupportedOperationException("Lock provider '" + provider.name() + "' has no " + feature
				+ ": it does not implement LockIdSupport");
	}

	private static String checkLockId(@Nullable String lockId) {
		return LockIds.validate(lockId);
	}

	private String fullKey(@Nullable String key) {
		String valid = LockKeys.validate(key);
		return keyPrefix.isEmpty() ? valid : LockKeys.validate(keyPrefix + valid);
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

		private @Nullable Executor renewalExecutor;

		private Duration holderCheckInterval = DEFAULT_HOLDER_CHECK_INTERVAL;

		private Builder(LockProvider provider) {
			this.provider = provider;
		}

		/**
		 * Sets the options used where none are given.
		 * @throws InvalidLockOptionException naming {@code defaults} if they are without expiry: every plain
		 * {@code acquire} would then take a lock that outlives a crash; ask for {@link LockOptions#noExpiry()} per call
		 */
		public Builder defaults(LockOptions defaults) {
			if (!defaults.expires()) {
				throw new InvalidLockOptionException("defaults", "must not be without expiry (noExpiry): every plain "
						+ "acquire would take a lock kept after a crash; pass LockOptions.noExpiry() per call instead");
			}
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

		/**
		 * Ticks renewals and holder checks on this scheduler instead of the template's own daemon thread; a tick only
		 * hands the store call to the {@link #renewalExecutor renewal executor}. The template does not shut it down,
		 * its owner does; closing the template stops the template's own ticks on it.
		 */
		public Builder scheduler(ScheduledExecutorService scheduler) {
			this.scheduler = scheduler;
			return this;
		}

		/**
		 * Runs the renewals' and holder checks' store calls on this executor instead of the template's own pool of
		 * daemon threads (one per renewal in flight, reused). It must run tasks concurrently and off the calling
		 * thread, so that a renewal stuck in the store holds up no other lock's renewal. The template does not shut it
		 * down, its owner does; once the template is closed it hands it no more renewals.
		 */
		public Builder renewalExecutor(Executor renewalExecutor) {
			this.renewalExecutor = renewalExecutor;
			return this;
		}

		/**
		 * Sets how often a handle of a lock without expiry asks the store whether it still holds it, so that it turns
		 * lost (and {@link LockHandle#onLost} runs) once its lock was released by lock ID or by force elsewhere;
		 * default {@link LockTemplate#DEFAULT_HOLDER_CHECK_INTERVAL} (5 s), one read per such lock each time.
		 * @throws InvalidLockOptionException naming {@code holderCheckInterval} if it is not from 1 ms to 365 days
		 */
		public Builder holderCheckInterval(Duration holderCheckInterval) {
			this.holderCheckInterval = LockOptions.checkDuration("holderCheckInterval", holderCheckInterval);
			return this;
		}

		/** Builds the template. */
		public LockTemplate build() {
			return new LockTemplate(this);
		}

	}

}
