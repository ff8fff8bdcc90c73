package dev.distlock.core;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockRenewal;

/**
 * Locks held under one lock ID, released and renewed together. From {@link LockTemplate#group(String)} it starts empty
 * and takes locks over time, exclusive and shared, on any keys; from {@link LockTemplate#acquireAll} it holds its keys
 * taken all at once. On a store with lock IDs every member is stored under the ID, so any process that knows it can
 * {@link LockTemplate#unlock(String) unlock} or {@link LockTemplate#renew(String, Duration) renew} them. Members
 * release newest first. Close it with try-with-resources. Thread-safe. The ID is a capability, so {@link #toString()}
 * leaves it out, as logs never show owner tokens.
 */
public final class LockGroup implements AutoCloseable {

	private final String id;

	/** The template that adds members, or null for a group that cannot take more (a provider without lock IDs). */
	private final @Nullable LockTemplate template;

	private final List<LockHandle> handles;

	/**
	 * Wraps the handles of one group taken at once, in key order; it takes no further locks.
	 */
	public LockGroup(String id, List<LockHandle> handles) {
		this(id, null, handles);
	}

	LockGroup(String id, @Nullable LockTemplate template, List<LockHandle> handles) {
		this.id = id;
		this.template = template;
		this.handles = new CopyOnWriteArrayList<>(handles);
	}

	/**
	 * The lock ID, shared by every member's {@link LockHandle#groupId()}.
	 */
	public String id() {
		return id;
	}

	/**
	 * Takes one more lock under this ID, in the options' mode, waiting as they say.
	 * @throws LockAcquisitionException if it stayed held, or a shared lock of this ID already holds the key
	 * @throws UnsupportedOperationException if the group cannot take locks (a provider without lock IDs)
	 */
	public LockHandle lock(String key, LockOptions options) {
		return tryLock(key, options, false).orElseThrow();
	}

	/**
	 * Like {@link #lock(String, LockOptions)}, but empty when the lock stayed held.
	 */
	public Optional<LockHandle> tryLock(String key, LockOptions options) {
		return tryLock(key, options, true);
	}

	/**
	 * Takes one more shared lock under this ID, admitting up to {@code maxConcurrent} holders of the key (-1, or
	 * {@link LockOptions#UNLIMITED}, for no limit).
	 */
	public LockHandle lockShared(String key, int maxConcurrent, LockOptions options) {
		return lock(key, options.toBuilder().shared(maxConcurrent).build());
	}

	/**
	 * Takes several more keys under this ID at once, all or nothing, in key order.
	 * @return this group
	 * @throws LockAcquisitionException if any key stayed held; then none of them was added
	 */
	public LockGroup lockAll(Collection<String> keys, LockOptions options) {
		handles.addAll(adder().acquireAllInGroup(id, keys, options, false).orElseThrow());
		return this;
	}

	/**
	 * Releases every lock of this ID in the store, whoever took it ({@link LockTemplate#unlock(String)}).
	 * @return the locks released, newest first
	 */
	public List<LockInfo> unlock() {
		return adder().unlock(id);
	}

	/**
	 * Renews every lock of this ID in the store to the TTL ({@link LockTemplate#renew(String, Duration)}).
	 */
	public LockRenewal renew(Duration ttl) {
		return adder().renew(id, ttl);
	}

	/**
	 * The members this group took, oldest first (for a group taken at once: in key order).
	 */
	public List<LockHandle> handles() {
		return List.copyOf(handles);
	}

	/**
	 * The member for a store key.
	 * @throws IllegalArgumentException if the key is not in the group
	 */
	public LockHandle handle(String key) {
		return handles.stream()
			.filter(handle -> handle.key().equals(key))
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException("Key '" + key + "' is not in this lock group"));
	}

	/**
	 * Whether the group has members and every one is still held.
	 */
	public boolean isHeld() {
		return !handles.isEmpty() && handles.stream().allMatch(LockHandle::isHeld);
	}

	/**
	 * Extends every member through its handle; all are tried, and the first failure is thrown with the rest
	 * suppressed. A member without expiry refuses ({@link LockHandle#extend}); give the group a lease with
	 * {@link #renew(Duration)} instead.
	 */
	public void extend(Duration lease) {
		forEach(handle -> handle.extend(lease));
	}

	/**
	 * Releases every member, newest first; all are tried, and the first failure is thrown with the rest suppressed.
	 */
	public void release() {
		forEach(LockHandle::release);
	}

	/**
	 * Releases the members not yet released, newest first.
	 */
	@Override
	public void close() {
		forEach(LockHandle::close);
	}

	private Optional<LockHandle> tryLock(String key, LockOptions options, boolean skip) {
		Optional<LockHandle> handle = adder().acquireInGroup(id, key, options, skip);
		handle.ifPresent(handles::add);
		return handle;
	}

	private LockTemplate adder() {
		if (template == null) {
			throw new UnsupportedOperationException("This lock group was taken at once on a provider without lock IDs; "
					+ "it cannot take more locks or act by ID");
		}
		return template;
	}

	private void forEach(Consumer<LockHandle> action) {
		DistributedLockException first = null;
		List<LockHandle> members = List.copyOf(handles);
		for (int i = members.size() - 1; i >= 0; i--) {
			try {
				action.accept(members.get(i));
			}
			catch (DistributedLockException ex) {
				if (first == null) {
					first = ex;
				}
				else {
					first.addSuppressed(ex);
				}
			}
		}
		if (first != null) {
			throw first;
		}
	}

	@Override
	public String toString() {
		return "LockGroup[keys=" + handles.stream().map(LockHandle::key).toList() + "]";
	}

}
