package dev.distlock.benchmarks.harness;

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

}
