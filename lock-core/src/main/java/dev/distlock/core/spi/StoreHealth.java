package dev.distlock.core.spi;

import java.time.Duration;

/**
 * Optional provider capability: a cheap round trip to the store, for health checks (PING for Redis, the ping command
 * for Mongo).
 */
public interface StoreHealth {

	/**
	 * Sends one ping and returns how long it took.
	 * @throws dev.distlock.core.LockStoreException if the store cannot be reached
	 */
	Duration ping();

}
