package dev.distlock.benchmarks.harness;

/**
 * One independent lock client. Thread-safe when the library is: the uncontended workload shares one client among
 * threads on distinct keys, as an application shares its one lock bean.
 */
public interface LockClient extends AutoCloseable {

	/**
	 * Takes the lock, waiting as long as it takes, and returns what {@link #unlock(Object)} needs.
	 */
	Object lock(String key);

	/**
	 * Releases a lock {@link #lock(String)} returned, on the thread that took it.
	 */
	void unlock(Object held);

	/**
	 * Closes the client's connections and threads.
	 */
	@Override
	void close();

}
