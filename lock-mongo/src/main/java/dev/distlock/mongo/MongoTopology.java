package dev.distlock.mongo;

import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.bson.Document;

import com.mongodb.MongoCommandException;
import com.mongodb.client.MongoDatabase;

import dev.distlock.core.LockStoreException;

/**
 * What the provider is connected to: a mongos router makes expiry compare two machines' clocks ({@code $$NOW} in the
 * filters is the router's, {@code $currentDate} the shard primary's), which docs/MONGO.md ("Sharded clusters") states
 * as the exact condition under which locks stay exclusive.
 */
final class MongoTopology {

	private static final Log logger = LogFactory.getLog(MongoTopology.class);

	/** Logged by {@link MongoLockProvider#start()} when the server is a mongos router. */
	static final String MONGOS_WARNING = "distlock's Mongo lock store is connected through a mongos router: lock "
			+ "expiry compares the router's clock ($$NOW) with the shard primary's ($currentDate), so a router whose "
			+ "clock runs ahead of the shard primary's by d ends every lease d early and a second holder can enter "
			+ "while the first still counts its lease. Keep every router and shard clock in tight NTP sync (well under "
			+ "the shortest lease), or use a replica set; see docs/MONGO.md, Sharded clusters.";

	private MongoTopology() {
	}

	/**
	 * Asks the server what it is ({@code hello}, or {@code isMaster} where {@code hello} is missing, as on
	 * mongo-java-server) and warns when it is a mongos router. A failed check is logged and changes nothing.
	 * @return whether it is a mongos router
	 */
	static boolean warnIfMongos(MongoDatabase database, long boundMillis) {
		try {
			Document reply = hello(database, "check the server type", boundMillis);
			boolean mongos = isMongos(reply);
			if (mongos) {
				logger.warn(MONGOS_WARNING);
			}
			return mongos;
		}
		catch (LockStoreException ex) {
			logger.debug("Could not ask the server what it is; assuming a replica set or standalone server", ex);
			return false;
		}
	}

	/**
	 * Sends {@code hello}, or {@code isMaster} where {@code hello} is missing (as on mongo-java-server), to the
	 * primary; its reply names the server type and carries the server's clock ({@code localTime}).
	 * @param operation what the call is for, as a verb for the error message
	 * @throws LockStoreException if the server cannot be reached
	 */
	static Document hello(MongoDatabase database, String operation, long boundMillis) {
		return MongoErrors.call(null, operation, boundMillis, () -> {
			MongoDatabase bounded = database.withTimeout(boundMillis, TimeUnit.MILLISECONDS);
			try {
				return bounded.runCommand(new Document("hello", 1));
			}
			catch (MongoCommandException ex) {
				return bounded.runCommand(new Document("isMaster", 1));
			}
		});
	}

	/** Whether a {@code hello} / {@code isMaster} reply comes from a mongos router. */
	static boolean isMongos(Document reply) {
		return "isdbgrid".equals(reply.getString("msg"));
	}

}
