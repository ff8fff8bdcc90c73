package dev.distlock.spring;

import java.time.Duration;
import java.time.Instant;

import dev.distlock.core.LockOptions;

/**
 * The once-per-period mode of a {@link DistributedLock#period() period} method. Periods are counted from the Unix
 * epoch on the store's clock, so every instance that reads that clock agrees on the period's number whatever its own
 * clock says. The key gains the number, and the lease runs past the period's end (with the lease as a minimum hold, a
 * release after a short run only shortens it): whoever comes later in the same period finds the key taken.
 * @param length the period, at least {@link #MIN_LENGTH}, in whole milliseconds
 */
record LockPeriod(Duration length) {

	/** The shortest period: below it one store round trip and a scheduler's jitter are a large share of a period. */
	static final Duration MIN_LENGTH = Duration.ofSeconds(1);

	/**
	 * The period's number for a time on the store's clock: whole periods since the epoch.
	 */
	long number(Instant storeTime) {
		return Math.floorDiv(storeTime.toEpochMilli(), length.toMillis());
	}

	/**
	 * The key of the period: the method's key with {@code @} and the period's number appended.
	 */
	static String key(String key, long number) {
		return key + "@" + number;
	}

	/**
	 * The lease for a run that read {@code storeTime}: to the period's end and a tenth of a period beyond it, so that a
	 * store whose nodes' clocks differ by less than that, or an application clock running slower than the store's
	 * over the period (the minimum hold is counted on it), still keeps the key until everyone has moved on.
	 */
	Duration lease(Instant storeTime) {
		Instant end = Instant.ofEpochMilli(Math.multiplyExact(number(storeTime) + 1, length.toMillis()));
		Duration lease = Duration.between(storeTime, end).plus(length.dividedBy(10));
		return lease.compareTo(LockOptions.MAX_DURATION) > 0 ? LockOptions.MAX_DURATION : lease;
	}

	/**
	 * The method's options for one run: the lease to the period's end, held at least that long.
	 */
	LockOptions options(LockOptions base, Instant storeTime) {
		Duration lease = lease(storeTime);
		return base.toBuilder().timeout(lease).holdAtLeast(lease).build();
	}

}
