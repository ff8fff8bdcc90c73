package dev.distlock.test;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.test.kit.LockProviderContractTest;

/**
 * The test store passes the whole contract kit, as the in-memory provider it stands for does: what an application
 * test sees of it is what the application sees of a real store, but for the controls.
 */
class TestLockProviderContractTest extends LockProviderContractTest {

	@Override
	protected LockProvider createProvider() {
		return new TestLockProvider();
	}

	/** One store: "another process" is another template on it. */
	@Override
	protected LockProvider createPeerProvider() {
		return provider;
	}

}
