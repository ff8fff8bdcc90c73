package dev.distlock.mongo;

import java.time.Instant;

import org.junit.jupiter.api.Test;

import dev.distlock.mongo.testsupport.MongoTestServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The store tests against mongo-java-server, in-process: real driver, real wire protocol.
 */
class MongoLockProviderStoreTest extends AbstractMongoLockProviderStoreTest {

	@Override
	protected MongoTestServer startServer() {
		return MongoTestServer.startInProcess();
	}

	@Test
	void theStoreTimeIsTheServersClockFromItsHelloReply() {
		try (MongoTestServer server = MongoTestServer.startInProcess();
				MongoLockProvider provider = new MongoLockProvider(server.template(), MongoLockSettings.defaults())) {
			provider.storeTime(); // connects
			Instant sent = Instant.now();
			Instant storeTime = provider.storeTime();
			Instant answered = Instant.now();
			// The in-process server's clock is this JVM's; localTime is in whole milliseconds.
			assertThat(storeTime).isBetween(sent.minusMillis(1), answered.plusMillis(1));
		}
	}

}
