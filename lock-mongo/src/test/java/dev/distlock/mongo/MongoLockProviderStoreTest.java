package dev.distlock.mongo;

import dev.distlock.mongo.testsupport.MongoTestServer;

/**
 * The store tests against mongo-java-server, in-process: real driver, real wire protocol.
 */
class MongoLockProviderStoreTest extends AbstractMongoLockProviderStoreTest {

	@Override
	protected MongoTestServer startServer() {
		return MongoTestServer.startInProcess();
	}

}
