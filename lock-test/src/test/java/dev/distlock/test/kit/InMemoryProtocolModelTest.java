package dev.distlock.test.kit;

import dev.distlock.core.memory.InMemoryLockProvider;
import dev.distlock.core.spi.LockProvider;

/**
 * The model-based protocol test on the in-memory provider: both instances share one provider (one store), and the
 * leftover check reads its status. An in-memory call is never replayed, and the provider refuses a second acquire
 * with the same owner token, so the model does not replay acquires here.
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
	protected boolean acquireReplays() {
		return false;
	}

	@Override
	protected StoreRecords storeRecords() {
		return StoreRecords.viaStatus(store);
	}

}
