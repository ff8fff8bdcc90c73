package dev.distlock.mongo;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.test.kit.StoreProtocolModelTest;
import dev.distlock.test.kit.StoreRecords;
import dev.distlock.mongo.testsupport.MongoTestServer;

/**
 * The model-based protocol test on mongo-java-server: two started providers on one server stand for two instances,
 * and the leftover check reads the lock documents and their leases ({@link MongoStoreRecords}).
 */
class MongoProtocolModelTest extends StoreProtocolModelTest {

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

	@Override
	protected StoreRecords storeRecords() {
		return new MongoStoreRecords(server.template(), MongoLockSettings.defaults().collection());
	}

}
