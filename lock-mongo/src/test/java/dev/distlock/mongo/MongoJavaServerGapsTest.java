package dev.distlock.mongo;

import java.util.ArrayList;
import java.util.Date;
import java.util.List;

import org.bson.BsonTimestamp;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.UpdateOptions;

import dev.distlock.mongo.testsupport.MongoTestServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Pins down what mongo-java-server 1.47.0 does where it differs from MongoDB, so the design choices in
 * docs/MONGO.md stay justified: if one of these starts failing after an upgrade, revisit the design.
 */
class MongoJavaServerGapsTest {

	private static MongoTestServer server;

	private static MongoCollection<Document> collection;

	@BeforeAll
	static void start() {
		server = MongoTestServer.startInProcess();
		collection = server.template().getCollection("gaps");
	}

	@AfterAll
	static void stop() {
		server.close();
	}

	@Test
	void currentDateTimestampsAreSecondsWithAZeroIncrementSoNeitherUniqueNorUsableAsFencing() {
		collection.insertOne(new Document("_id", "ts"));
		List<BsonTimestamp> stamps = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			collection.updateOne(new Document("_id", "ts"),
					new Document("$currentDate", new Document("ts", new Document("$type", "timestamp"))));
			stamps.add(collection.find(new Document("_id", "ts")).first().get("ts", BsonTimestamp.class));
		}
		assertThat(stamps).extracting(BsonTimestamp::getInc).containsOnly(0);
		// Five stamps within at most two seconds: at least two are equal, so they cannot order lock holders.
		assertThat(stamps.stream().distinct().count()).isLessThan(5);
	}

	@Test
	void storedDatesKeepSubMillisecondPrecisionSoEqualityOnAReturnedDateFails() {
		collection.updateOne(new Document("_id", "date"), new Document("$currentDate", new Document("at", true)),
				new UpdateOptions().upsert(true));
		Date returned = collection.find(new Document("_id", "date")).first().getDate("at");
		long equal = collection.countDocuments(new Document("_id", "date").append("at", returned));
		long below = collection.countDocuments(
				new Document("_id", "date").append("at", new Document("$lt", new Date(returned.getTime() + 1))));
		assertThat(below).isOne();
		assertThat(equal).isLessThanOrEqualTo(1L); // usually 0: the provider never relies on it
	}

	@Test
	void pipelineUpdatesAreRejected() {
		collection.insertOne(new Document("_id", "pipeline"));
		assertThatThrownBy(() -> collection.updateOne(new Document("_id", "pipeline"),
				List.of(new Document("$set", new Document("now", "$$NOW")))))
			.isInstanceOf(MongoException.class);
	}

	@Test
	void helloIsMissingButAnAggregateReturnsTheServersNow() {
		assertThatThrownBy(() -> server.template().getDb().runCommand(new Document("hello", 1)))
			.isInstanceOf(MongoException.class);
		collection.insertOne(new Document("_id", "now"));
		Document now = collection.aggregate(List.of(new Document("$limit", 1),
				new Document("$project", new Document("now", "$$NOW")))).first();
		assertThat(now.getDate("now")).isNotNull();
	}

}
