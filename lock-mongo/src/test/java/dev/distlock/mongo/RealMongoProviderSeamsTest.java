package dev.distlock.mongo;

import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

import dev.distlock.mongo.testsupport.MongoTestServer;

/**
 * The seams tests that need no proxy against a real MongoDB named by {@code MONGODB_URI}, each in a database of its
 * own that is dropped afterwards; skipped, saying so, when the variable is unset.
 */
@EnabledIfEnvironmentVariable(named = MongoTestServer.URI_VARIABLE, matches = ".+",
		disabledReason = "MONGODB_URI is not set: the real-MongoDB seams tests are skipped")
class RealMongoProviderSeamsTest extends AbstractMongoProviderSeamsTest {

	@Override
	protected MongoTestServer startServer() {
		return MongoTestServer.startReal();
	}

}
