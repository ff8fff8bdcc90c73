package dev.distlock.benchmarks.harness;

import java.util.concurrent.locks.Lock;

import org.springframework.integration.support.locks.LockRegistry;

/**
 * The client of the Spring Integration arms: the registry's {@link Lock} for the key, locked (the registry's own
 * waiting) and unlocked.
 */
public final class RegistryClient implements LockClient {

	private final LockRegistry<?> registry;

	private final Runnable closing;

	/**
	 * A client of the registry.
	 * @param closing closes the registry and what it runs on
	 */
	public RegistryClient(LockRegistry<?> registry, Runnable closing) {
		this.registry = registry;
		this.closing = closing;
	}

	@Override
	public Object lock(String key) {
		Lock lock = registry.obtain(key);
		lock.lock();
		return lock;
	}

	@Override
	public void unlock(Object held) {
		((Lock) held).unlock();
	}

	@Override
	public void close() {
		closing.run();
	}

}
