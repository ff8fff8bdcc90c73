package dev.distlock.core;

/**
 * How a lock is held, after mongo-lock's exclusive and shared locks.
 */
public enum LockMode {

	/** One holder at a time; excludes shared holders too. */
	EXCLUSIVE,

	/** Up to {@code maxConcurrent} holders at a time; excluded by an exclusive holder, and excluding it. */
	SHARED

}
