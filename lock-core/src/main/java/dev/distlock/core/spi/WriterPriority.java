package dev.distlock.core.spi;

/**
 * Optional provider capability (a marker): while an exclusive request waits for a key, new shared holders of that key
 * are refused, as {@link java.util.concurrent.locks.ReentrantReadWriteLock} does, so a stream of overlapping readers
 * cannot starve a writer. The writer waits for the readers already in, and no longer than its own wait limit. The
 * waiter is the one from {@link WaitingLockProvider#begin(LockRequest)}; plain attempts leave no mark.
 */
public interface WriterPriority {
}
