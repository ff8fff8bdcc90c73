package dev.distlock.mongo;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import dev.distlock.core.LockTemplate;
import dev.distlock.core.OwnerDetails;
import dev.distlock.mongo.testsupport.MongoTestServer;

/**
 * One server per test, with a started provider on the default settings and a template over it, all closed after the
 * test. Subclasses supply the server (mongo-java-server in-process, or a real one named by {@code MONGODB_URI}) and
 * the owner their locks carry.
 */
abstract class AbstractMongoServerTest {

	protected MongoTestServer server;

	protected MongoLockProvider provider;

	protected LockTemplate template;

	/**
	 * Starts or connects to the server one test runs against.
	 */
	protected abstract MongoTestServer startServer();

	/**
	 * The owner the template's locks carry.
	 */
	protected abstract OwnerDetails owner();

	@BeforeEach
	void start() {
		server = startServer();
		provider = new MongoLockProvider(server.template(), MongoLockSettings.defaults());
		provider.start();
		template = LockTemplate.builder(provider).owner(owner()).build();
	}

	@AfterEach
	void stop() {
		try {
			template.close();
			provider.close();
		}
		finally {
			server.close();
		}
	}

}
