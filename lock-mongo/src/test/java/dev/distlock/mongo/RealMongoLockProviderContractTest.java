package dev.distlock.mongo;

import java.util.Objects;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.testkit.LockProviderContractTest;
import dev.distlock.mongo.testsupport.MongoTestServer;

/**
 * The same contract kit against a real MongoDB named by {@code MONGODB_URI}; skipped, saying so, when it is unset.
 */
@EnabledIfEnvironmentVariable(named = MongoTestServer.URI_VARIABLE, matches = ".+",
		disabledReason = "MONGODB_URI is not set: the real-MongoDB contract run is skipped")
class RealMongoLockProviderContractTest extends LockProviderContractTest {

	private static @Nullable MongoTestServer server;

	@BeforeAll
	static void connect() {
		// Assumed once for the class: the kit's own @BeforeEach would otherwise run before any per-test assumption.
		Assumptions.assumeTrue(MongoTestServer.realServerUri() != null,
				"MONGODB_URI is not set: the real-MongoDB contract run is skipped (set it, e.g. "
						+ "mongodb://localhost:27017/?replicaSet=rs0, to run the kit against MongoDB 5.0+)");
		server = MongoTestServer.start();
	}

	@AfterAll
	static void disconnect() {
		if (server != null) {
			server.close();
		}
	}

	@Override
	protected LockProvider createProvider() {
		MongoLockProvider provider = new MongoLockProvider(Objects.requireNonNull(server).template(), MongoLockSettings.defaults());
		provider.start();
		return provider;
	}

	@Override
	protected void destroyProvider(LockProvider provider) {
		((MongoLockProvider) provider).close();
	}

}
