package dev.distlock.benchmarks.mongo;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import org.jspecify.annotations.Nullable;

/**
 * Where the Mongo arms connect: the in-process wire server (mongo-java-server, memory backend) on a free port, or a
 * real server given by {@code MONGODB_URI}.
 */
public final class MongoEndpoint implements AutoCloseable {

	private final String uri;

	private final String description;

	private final @Nullable MongoServer server;

	private MongoEndpoint(String uri, String description, @Nullable MongoServer server) {
		this.uri = uri;
		this.description = description;
		this.server = server;
	}

	/**
	 * The wire server, started in this JVM on a free port.
	 */
	public static MongoEndpoint wireServer() {
		MongoServer server = new MongoServer(new MemoryBackend());
		String uri = server.bindAndGetConnectionString();
		return new MongoEndpoint(uri, "mongo-java-server 1.47 (in-process, memory backend)", server);
	}

	/**
	 * The real server named by {@code MONGODB_URI}, or null when it is not set.
	 */
	public static @Nullable MongoEndpoint fromEnvironment() {
		String uri = System.getenv("MONGODB_URI");
		return uri == null || uri.isBlank() ? null : new MongoEndpoint(uri, "MongoDB at MONGODB_URI", null);
	}

	/**
	 * The connection string.
	 */
	public String uri() {
		return uri;
	}

	/**
	 * What this endpoint is, for the table.
	 */
	public String description() {
		return description;
	}

	@Override
	public void close() {
		if (server != null) {
			server.shutdownNow();
		}
	}

}
