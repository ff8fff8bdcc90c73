package dev.distlock.mongo.testsupport;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.springframework.data.mongodb.core.MongoTemplate;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;

/**
 * A MongoDB for tests: mongo-java-server (in-memory backend, real wire protocol) started in-process on a free port,
 * or, when the environment variable {@code MONGODB_URI} is set, that real server with a database unique to this
 * instance. Clients get short timeouts, so tests with the server stopped fail within seconds.
 */
public final class MongoTestServer implements AutoCloseable {

	/** The environment variable naming a real server to use instead of the in-process one. */
	public static final String URI_VARIABLE = "MONGODB_URI";

	/** How long the driver looks for a server before giving up. */
	public static final Duration SERVER_SELECTION_TIMEOUT = Duration.ofMillis(1500);

	/** The TCP connect timeout. */
	public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(1);

	/** The socket read timeout. */
	public static final Duration READ_TIMEOUT = Duration.ofSeconds(2);

	private final @Nullable KeptBackend backend;

	private @Nullable MongoServer server;

	private final @Nullable InetSocketAddress address;

	private final String connectionString;

	private final String database;

	private final MongoClient client;

	private final MongoTemplate template;

	private MongoTestServer(@Nullable KeptBackend backend, @Nullable MongoServer server,
			@Nullable InetSocketAddress address, String connectionString, String database) {
		this.backend = backend;
		this.server = server;
		this.address = address;
		this.connectionString = connectionString;
		this.database = database;
		this.client = newClient();
		this.template = new MongoTemplate(client, database);
	}

	/**
	 * Starts the in-process server on a free port, or connects to {@code MONGODB_URI} if it is set.
	 */
	public static MongoTestServer start() {
		String uri = realServerUri();
		String database = uniqueDatabase();
		if (uri != null) {
			return new MongoTestServer(null, null, null, uri, database);
		}
		return startInProcess(database);
	}

	/**
	 * Connects to the real server named by {@code MONGODB_URI}, in a database unique to this instance that
	 * {@link #close()} drops; for test classes enabled only when that variable is set.
	 * @throws NullPointerException if {@code MONGODB_URI} is not set
	 */
	public static MongoTestServer startReal() {
		String uri = Objects.requireNonNull(realServerUri(), URI_VARIABLE + " is not set: there is no real server");
		return new MongoTestServer(null, null, null, uri, uniqueDatabase());
	}

	private static String uniqueDatabase() {
		return "distlock_test_" + UUID.randomUUID().toString().substring(0, 8);
	}

	/**
	 * Always starts the in-process server, whatever the environment says.
	 */
	public static MongoTestServer startInProcess() {
		return startInProcess("distlock_test");
	}

	/**
	 * Starts the in-process server answering {@code hello} as a mongos router does ({@code msg: "isdbgrid"}), for
	 * tests of what a provider does on a sharded cluster's router. Nothing else changes.
	 */
	public static MongoTestServer startInProcessReportingMongos() {
		return startInProcess("distlock_test", new KeptBackend(true));
	}

	private static MongoTestServer startInProcess(String database) {
		return startInProcess(database, new KeptBackend(false));
	}

	private static MongoTestServer startInProcess(String database, KeptBackend backend) {
		MongoServer server = new MongoServer(backend);
		InetSocketAddress address = server.bind();
		return new MongoTestServer(backend, server, address,
				"mongodb://" + address.getHostString() + ":" + address.getPort(), database);
	}

	/**
	 * The real server's URI from {@code MONGODB_URI}, or null when the in-process server is used.
	 */
	public static @Nullable String realServerUri() {
		String uri = System.getenv(URI_VARIABLE);
		return uri == null || uri.isBlank() ? null : uri;
	}

	/**
	 * Whether this is a real server rather than mongo-java-server.
	 */
	public boolean isReal() {
		return backend == null;
	}

	/**
	 * The connection string, for clients a test builds itself.
	 */
	public String connectionString() {
		return connectionString;
	}

	/**
	 * The in-process server's address, for a proxy in front of it.
	 * @throws UnsupportedOperationException on a real server
	 */
	public InetSocketAddress address() {
		if (address == null) {
			throw new UnsupportedOperationException("A real server (" + URI_VARIABLE + ") has no in-process address");
		}
		return address;
	}

	/**
	 * The database this instance works in.
	 */
	public String database() {
		return database;
	}

	/**
	 * The shared client, with short timeouts.
	 */
	public MongoClient client() {
		return client;
	}

	/**
	 * A template on this instance's database.
	 */
	public MongoTemplate template() {
		return template;
	}

	/**
	 * A new client with the short timeouts; the caller closes it.
	 */
	public MongoClient newClient() {
		return newClient(builder -> {
		});
	}

	/**
	 * A new client with the short timeouts and the caller's additions (a command listener, say); the caller closes
	 * it.
	 */
	public MongoClient newClient(Consumer<MongoClientSettings.Builder> customizer) {
		MongoClientSettings.Builder builder = MongoClientSettings.builder()
			.applyConnectionString(new ConnectionString(connectionString))
			.applyToClusterSettings(cluster -> cluster.serverSelectionTimeout(
					SERVER_SELECTION_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
			.applyToSocketSettings(socket -> socket.connectTimeout(CONNECT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
				.readTimeout(READ_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
			.applyToServerSettings(server -> server.heartbeatFrequency(500, TimeUnit.MILLISECONDS)
				.minHeartbeatFrequency(100, TimeUnit.MILLISECONDS));
		customizer.accept(builder);
		return MongoClients.create(builder.build());
	}

	/**
	 * Stops the in-process server and drops its connections; its data stays for {@link #restart()}.
	 * @throws UnsupportedOperationException on a real server
	 */
	public void stop() {
		MongoServer running = inProcess("stop");
		running.shutdownNow();
	}

	/**
	 * Starts the in-process server again on the same port, with the data it had.
	 * @throws UnsupportedOperationException on a real server
	 */
	public void restart() {
		MongoServer stopped = inProcess("restart");
		stopped.shutdownNow();
		MongoServer fresh = new MongoServer(backend);
		fresh.bind(address);
		server = fresh;
	}

	private MongoServer inProcess(String operation) {
		if (server == null) {
			throw new UnsupportedOperationException("Cannot " + operation + " a real server (" + URI_VARIABLE + ")");
		}
		return server;
	}

	/**
	 * Drops this instance's database on a real server, closes the client and stops the in-process server.
	 */
	@Override
	public void close() {
		try {
			if (isReal()) {
				client.getDatabase(database).drop();
			}
		}
		finally {
			client.close();
			if (server != null) {
				server.shutdownNow();
			}
			if (backend != null) {
				backend.discard();
			}
		}
	}

	/**
	 * A memory backend that survives {@link MongoServer#shutdownNow()}, which would otherwise clear it, so a
	 * restart finds the data a crash of a durable server would have kept.
	 */
	private static final class KeptBackend extends MemoryBackend {

		private final boolean reportsMongos;

		private volatile boolean discarding;

		KeptBackend(boolean reportsMongos) {
			this.reportsMongos = reportsMongos;
		}

		/**
		 * mongo-java-server has no {@code hello}; as a pretend router it answers {@code hello} with its
		 * {@code isMaster} reply plus mongos's {@code msg: "isdbgrid"}.
		 */
		@Override
		public de.bwaldvogel.mongo.bson.Document handleCommand(io.netty.channel.Channel channel, String databaseName,
				String command, de.bwaldvogel.mongo.bson.Document query) {
			if (reportsMongos && "hello".equals(command)) {
				de.bwaldvogel.mongo.bson.Document reply = super.handleCommand(channel, databaseName, "isMaster",
						query);
				reply.put("msg", "isdbgrid");
				return reply;
			}
			return super.handleCommand(channel, databaseName, command, query);
		}

		@Override
		public void close() {
			if (discarding) {
				super.close();
			}
		}

		void discard() {
			discarding = true;
			close();
		}

	}

}
