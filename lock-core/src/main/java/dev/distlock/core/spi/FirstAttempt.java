package dev.distlock.core.spi;

/**
 * What the first attempt of a waiting acquisition gave ({@link WaitingLockProvider#start(LockRequest)}): the lock,
 * as an {@link Acquisition.Granted}, or, when the attempt was refused, the {@link Acquisition} that goes on from it.
 * The usual first attempt wins, and then nothing is made for waiting.
 */
public sealed interface FirstAttempt permits Acquisition, Acquisition.Granted {

}
