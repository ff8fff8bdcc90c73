package dev.distlock.mongo;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.test.kit.LockProviderContractTest;
import dev.distlock.mongo.testsupport.MongoTestServer;

/**
 * The whole provider contract kit against mongo-java-server: real driver, real wire protocol.
 */
class MongoLockProviderContractTest extends LockProviderContractTest {

	private static MongoTestServer server;

	@BeforeAll
	static void startServer() {
		server = MongoTestServer.startInProcess();
	}

	@AfterAll
	static void stopServer() {
		server.close();
	}

	@Override
	protected LockProvider createProvider() {
		MongoLockProvider provider = new MongoLockProvider(server.template(), MongoLockSettings.defaults());
		provider.start();
		return provider;
	}

	@Override
	protected void destroyProvider(LockProvider provider) {
		((MongoLockProvider) provider).close();
	}

}
