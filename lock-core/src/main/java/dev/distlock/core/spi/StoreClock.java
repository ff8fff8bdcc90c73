package dev.distlock.core.spi;

import java.time.Instant;

/**
 * Optional provider capability: the store's own clock, the one its leases expire on, so that processes whose clocks
 * differ agree on what time it is (as once-per-period jobs need). Redis answers {@code TIME}, MongoDB its
 * {@code hello} reply's {@code localTime}, PostgreSQL {@code clock_timestamp()}, MariaDB {@code UTC_TIMESTAMP(6)}, the
 * in-memory store the JVM's clock.
 */
public interface StoreClock {

	/**
	 * Reads the store's clock in one round trip: the time the store put in its reply, not the caller's clock.
	 * @throws dev.distlock.core.LockStoreException if the store cannot be reached
	 */
	Instant storeTime();

}
