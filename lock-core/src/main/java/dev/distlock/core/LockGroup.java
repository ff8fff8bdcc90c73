package dev.distlock.core;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * Several locks acquired together, all or nothing, in key order (mongo-lock's lockId). They extend and release
 * together. Close it with try-with-resources.
 */
public final class LockGroup implements AutoCloseable {

	private final String id;

	private final List<LockHandle> handles;

	/**
	 * Wraps the handles of one group, in key order.
	 */
	public LockGroup(String id, List<LockHandle> handles) {
		this.id = id;
		this.handles = List.copyOf(handles);
	}

	/**
	 * The group id, shared by every member's {@link LockHandle#groupId()}.
	 */
	public String id() {
		return id;
	}

	/**
	 * The members, in key order.
	 */
	public List<LockHandle> handles() {
		return handles;
	}

	/**
	 * The member for a store key.
	 * @throws IllegalArgumentException if the key is not in the group
	 */
	public LockHandle handle(String key) {
		return handles.stream()
			.filter(handle -> handle.key().equals(key))
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException("Key '" + key + "' is not in lock group " + id));
	}

	/**
	 * Whether every member is still held.
	 */
	public boolean isHeld() {
		return handles.stream().allMatch(LockHandle::isHeld);
	}

	/**
	 * Extends every member; all are tried, and the first failure is thrown with the rest suppressed.
	 */
	public void extend(Duration lease) {
		forEach(handle -> handle.extend(lease));
	}

	/**
	 * Releases every member, last key first; all are tried, and the first failure is thrown with the rest suppressed.
	 */
	public void release() {
		forEach(LockHandle::release);
	}

	/**
	 * Releases the members not yet released.
	 */
	@Override
	public void close() {
		forEach(LockHandle::close);
	}

	private void forEach(Consumer<LockHandle> action) {
		DistributedLockException first = null;
		for (int i = handles.size() - 1; i >= 0; i--) {
			try {
				action.accept(handles.get(i));
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
		return "LockGroup[id=" + id + ", keys=" + handles.stream().map(LockHandle::key).toList() + "]";
	}

}
