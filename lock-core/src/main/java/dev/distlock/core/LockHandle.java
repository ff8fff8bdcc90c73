package dev.distlock.core;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A held lock. Close it with try-with-resources or call {@link #release()}. After a release, or once found lost, the
 * handle is invalid: {@link #release()} throws {@link LockReleaseException} and {@link #extend(Duration)} throws
 * {@link LockExtendException}.
 */
public interface LockHandle extends AutoCloseable {

	/**
	 * The store key, template prefix included.
	 */
	String key();

	/**
	 * The owner token: 128 random bits, unique to this acquisition.
	 */
	String token();

	/**
	 * The fencing token: strictly increasing per key across holders, also after expiry. Pass it to the guarded
	 * resource, and have it reject writes carrying a smaller token than it has seen. 0 when the store was configured
	 * without fencing tokens (Redis {@code fencing=false}, for a plain exclusive lock).
	 */
	long fencingToken();

	/**
	 * Exclusive or shared.
	 */
	LockMode mode();

	/**
	 * The lock's name from {@link LockOptions#name()}, as listeners report it, or null.
	 */
	default @Nullable String name() {
		return null;
	}

	/**
	 * The lock ID of the {@link LockGroup} this lock was acquired in, or null for a single lock.
	 */
	@Nullable String groupId();

	/**
	 * When the lock was acquired, by this JVM's clock.
	 */
	Instant acquiredAt();

	/**
	 * How long the caller waited to acquire it, from its first attempt to the grant.
	 */
	Duration waited();

	/**
	 * The lease left, by this JVM's monotonic clock, counted conservatively from before the acquire request was sent.
	 * Zero once released or lost; {@link dev.distlock.core.spi.LockInfo#NO_EXPIRY} for a lock without expiry.
	 */
	Duration remaining();

	/**
	 * Whether this handle still holds the lock as far as this JVM knows: not released, not found lost, lease not run
	 * out. Asks no store.
	 */
	boolean isHeld();

	/**
	 * Throws {@link LockLostException} unless {@link #isHeld()}; call before a write that must stay exclusive.
	 */
	void assertHeld();

	/**
	 * Sets the lease to {@code lease} from now. A lock taken without expiry refuses: give it a lease explicitly with
	 * {@link LockTemplate#renew(String, Duration)}.
	 * @throws LockExtendException if the handle is invalid, its lock has no expiry, or the store no longer holds the
	 * lock for this token
	 */
	void extend(Duration lease);

	/**
	 * Releases the lock. With a minimum hold that has not yet passed, the lease is shortened to end when it does.
	 * When the store cannot be reached (a {@link LockReleaseException} caused by a {@link LockStoreException}), the
	 * handle stays held and the template runs the release again in the background, every third of the lease (at most
	 * every holder-check interval) or every holder-check interval for a lock without expiry, until it lands (listeners
	 * then hear the release), the lease runs out, or the store says the lock is no longer this owner's (the runs end
	 * quietly: the held-back first run may have landed); calling this again meanwhile is allowed.
	 * @throws LockReleaseException if the handle is invalid or the store no longer held the lock for this token, or
	 * could not be asked
	 */
	void release();

	/**
	 * Registers a callback run once if this lock is found lost.
	 */
	void onLost(Runnable callback);

	/**
	 * Releases the lock unless this handle was already released; a lost lock still throws.
	 */
	@Override
	void close();

}
