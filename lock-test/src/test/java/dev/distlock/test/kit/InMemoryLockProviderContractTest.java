package dev.distlock.test.kit;

import dev.distlock.core.memory.InMemoryLockProvider;
import dev.distlock.core.spi.LockProvider;

/**
 * The in-memory provider passes the whole contract kit.
 */
class InMemoryLockProviderContractTest extends LockProviderContractTest {

	@Override
	protected LockProvider createProvider() {
		return new InMemoryLockProvider();
	}

	/** The in-memory store is the provider instance: "another process" is another template on it. */
	@Override
	protected LockProvider createPeerProvider() {
		return provider;
	}

}
