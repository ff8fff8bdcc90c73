package dev.distlock.core.memory;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.testkit.LockTemplateSeamsTest;

/**
 * The seams suite on the in-memory provider: every cell without a network; the paused-store and cut-connection cells
 * are skipped.
 */
class InMemorySeamsTest extends LockTemplateSeamsTest {

	@Override
	protected LockProvider createProvider() {
		return new InMemoryLockProvider();
	}

}
