package dev.distlock.core.memory;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.testkit.StoreProtocolModelTest;
import dev.distlock.core.testkit.StoreRecords;

/**
 * The model-based protocol test on the in-memory provider: both instances share one provider (one store), and the
 * leftover check reads its status.
 */
class InMemoryProtocolModelTest extends StoreProtocolModelTest {

	private InMemoryLockProvider store;

	@Override
	protected LockProvider createProvider() {
		if (store == null) {
			store = new InMemoryLockProvider();
		}
		return store;
	}

	@Override
	protected StoreRecords storeRecords() {
		return StoreRecords.viaStatus(store);
	}

}
