package dev.distlock.test.kit;

import dev.distlock.core.memory.InMemoryLockProvider;
import dev.distlock.core.spi.LockProvider;

/**
 * The seams suite on the in-memory provider: every cell without a network; the paused-store and cut-connection cells
 * are skipped. The leftover check reads the provider's own status.
 */
class InMemorySeamsTest extends LockTemplateSeamsTest {

	@Override
	protected LockProvider createProvider() {
		return new InMemoryLockProvider();
	}

	@Override
	protected StoreRecords storeRecords() {
		// the provider is the store: its status lists every lock it keeps
		return StoreRecords.viaStatus((InMemoryLockProvider) provider);
	}

}
