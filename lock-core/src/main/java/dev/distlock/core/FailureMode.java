package dev.distlock.core;

/**
 * What a guarded call does when the lock cannot be had once retries and waiting are spent.
 */
public enum FailureMode {

	/** Throw {@link LockAcquisitionException}. */
	THROW,

	/** Skip the guarded work: the call returns empty (or null, for an annotated method) without running it. */
	SKIP

}
