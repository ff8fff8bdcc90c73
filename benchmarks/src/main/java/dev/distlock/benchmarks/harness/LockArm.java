package dev.distlock.benchmarks.harness;

import org.jspecify.annotations.Nullable;

/**
 * One contender in the comparison: a lock library in one configuration, able to create independent clients.
 */
public interface LockArm {

	/**
	 * The name printed in the table, such as {@code redisson (watchdog)}.
	 */
	String name();

	/**
	 * Whether this arm renews leases in the background (auto-renew, watchdog).
	 */
	boolean renewing();

	/**
	 * A new client with its own connections and its own library instance, as a separate JVM would have.
	 */
	LockClient newClient();

	/**
	 * The gauge every connection pool of this arm's clients reports to, or null when the arm has no pool (Redis,
	 * Mongo).
	 */
	default @Nullable ConnectionGauge connections() {
		return null;
	}

}
