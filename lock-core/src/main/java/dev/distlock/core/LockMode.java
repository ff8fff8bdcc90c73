package dev.distlock.core;

/**
 * How a lock is held: by one holder alone, or shared by up to a limit of holders.
 */
public enum LockMode {

	/** One holder at a time; excludes shared holders too. */
	EXCLUSIVE,

	/** Up to {@code maxConcurrent} holders at a time; excluded by an exclusive holder, and excluding it. */
	SHARED

}
