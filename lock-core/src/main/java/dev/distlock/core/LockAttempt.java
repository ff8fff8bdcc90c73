package dev.distlock.core;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What a caller asked to lock, as listeners hear of an acquisition that has no handle (it failed or met a store
 * error).
 * @param keys the store keys: one for a single lock, every member's in key order for a group
 * @param mode exclusive or shared
 * @param name the lock's name from {@link LockOptions#name()}, or null
 */
public record LockAttempt(List<String> keys, LockMode mode, @Nullable String name) {

	/**
	 * Copies the keys.
	 */
	public LockAttempt {
		keys = List.copyOf(keys);
	}

	/**
	 * The first key: the lock's key, or the first member's of a group.
	 */
	public String firstKey() {
		return keys.get(0);
	}

	/**
	 * How an acquisition ended, as {@link LockListener#onAcquireEnded} hears it.
	 */
	public enum Outcome {

		/** The lock (every member of a group) was granted. */
		ACQUIRED,

		/** It stayed held through every attempt, and the caller gets a {@link LockAcquisitionException}. */
		TIMED_OUT,

		/** It stayed held through every attempt, and the caller skips its work. */
		SKIPPED,

		/** The thread was interrupted (a cancelled reactive or coroutine caller interrupts its wait). */
		INTERRUPTED,

		/** The store could not be asked: a {@link LockStoreException}. */
		STORE_ERROR,

		/** Any other error. */
		ERROR

	}

}
