package dev.distlock.mongo;

import java.util.Objects;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.test.kit.LockProviderContractTest;
import dev.distlock.mongo.testsupport.MongoTestServer;

/**
 * The same contract kit against a real MongoDB named by {@code MONGODB_URI} (e.g.
 * {@code mongodb://localhost:27017/?replicaSet=rs0}, MongoDB 5.0+), in a database of its own that is dropped
 * afterwards; skipped, saying so, when the variable is unset.
 */
@EnabledIfEnvironmentVariable(named = MongoTestServer.URI_VARIABLE, matches = ".+",
		disabledReason = "MONGODB_URI is not set: the real-MongoDB contract run is skipped")
class RealMongoLockProviderContractTest extends LockProviderContractTest {

	private static @Nullable MongoTestServer server;

	@BeforeAll
	static void connect() {
		server = MongoTestServer.startReal();
	}

	@AfterAll
	static void disconnect() {
		if (server != null) {
			server.close();
		}
	}

	@Override
	protected LockProvider createProvider() {
		MongoLockProvider provider = new MongoLockProvider(Objects.requireNonNull(server).template(),
				MongoLockSettings.defaults());
		provider.start();
		return provider;
	}

	@Override
	protected void destroyProvider(LockProvider provider) {
		((MongoLockProvider) provider).close();
	}

}
