package dev.distlock.mongo;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.data.mongodb.core.MongoTemplate;

import com.mongodb.ConnectionString;
import com.mongodb.client.MongoClient;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.test.kit.LockTemplateSeamsTest;
import dev.distlock.test.kit.StoreRecords;
import dev.distlock.test.kit.TcpProxy;
import dev.distlock.mongo.testsupport.MongoTestServer;

/**
 * The seams suite on mongo-java-server, the provider under test reached through a {@link TcpProxy} by a real driver
 * whose socket read timeout (the command timeout here) is {@link #COMMAND_TIMEOUT}. The probing template and the
 * leftover check ({@link MongoStoreRecords}) talk to the server directly.
 */
class MongoSeamsTest extends LockTemplateSeamsTest {

	private static final Duration COMMAND_TIMEOUT = MongoTestServer.READ_TIMEOUT;

	private static MongoTestServer server;

	private static TcpProxy proxy;

	private static MongoClient proxiedClient;

	private static MongoTemplate proxied;

	@BeforeAll
	static void startServer() {
		server = MongoTestServer.startInProcess();
		proxy = TcpProxy.start(URI.create(server.connectionString()).getPort());
		proxiedClient = server.newClient(builder -> builder
			.applyConnectionString(new ConnectionString("mongodb://127.0.0.1:" + proxy.port()))
			.applyToSocketSettings(socket -> socket.readTimeout(COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)));
		proxied = new MongoTemplate(proxiedClient, server.database());
	}

	@AfterAll
	static void stopServer() {
		proxiedClient.close();
		proxy.close();
		server.close();
	}

	@Override
	protected LockProvider createProvider() {
		// Each lock call ends within the call timeout, as the seams kit expects of a store's command timeout.
		MongoLockProvider provider = new MongoLockProvider(proxied,
				MongoLockSettings.defaults().withCallTimeout(COMMAND_TIMEOUT));
		provider.start();
		return provider;
	}

	@Override
	protected LockProvider createObserverProvider(LockProvider provider) {
		MongoLockProvider observer = new MongoLockProvider(server.template(), MongoLockSettings.defaults());
		observer.start();
		return observer;
	}

	@Override
	protected void destroyProvider(LockProvider provider) {
		((MongoLockProvider) provider).close();
	}

	@Override
	protected StoreRecords storeRecords() {
		return new MongoStoreRecords(server.template(), MongoLockSettings.defaults().collection());
	}

	@Override
	protected TcpProxy proxy() {
		return proxy;
	}

	@Override
	protected Duration commandTimeout() {
		return COMMAND_TIMEOUT;
	}

}
