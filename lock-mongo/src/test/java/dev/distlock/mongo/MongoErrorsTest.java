package dev.distlock.mongo;

import java.util.List;

import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoInterruptedException;
import com.mongodb.MongoOperationTimeoutException;
import com.mongodb.MongoSocketOpenException;
import com.mongodb.MongoSocketReadException;
import com.mongodb.MongoSocketReadTimeoutException;
import com.mongodb.MongoException;
import com.mongodb.MongoTimeoutException;
import com.mongodb.MongoWriteException;
import com.mongodb.ServerAddress;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.UpdateOptions;

import dev.distlock.mongo.testsupport.MongoTestServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The duplicate-key error is recognised by its code on the server exception, whichever command raised it.
 */
class MongoErrorsTest {

	private static final Document CONFLICTING_UPSERT = new Document("_id", "dup").append("seq",
			new Document("$exists", false));

	private static final Document INC = new Document("$inc", new Document("seq", 1L));

	private static MongoTestServer server;

	private static MongoCollection<Document> collection;

	@BeforeAll
	static void start() {
		server = MongoTestServer.startInProcess();
		collection = server.template().getCollection("errors");
		collection.insertOne(new Document("_id", "dup").append("seq", 1L));
	}

	@AfterAll
	static void stop() {
		server.close();
	}

	@Test
	void aConflictingUpdateOneUpsertIsAWriteExceptionWithCode11000AndADuplicateKey() {
		MongoWriteException ex = catchThrowableOfType(MongoWriteException.class,
				() -> collection.updateOne(CONFLICTING_UPSERT, INC, new UpdateOptions().upsert(true)));
		assertThat(ex.getCode()).isEqualTo(11000);
		assertThat(ex.getError().getCode()).isEqualTo(11000);
		assertThat(MongoErrors.isDuplicateKey(ex)).isTrue();
	}

	@Test
	void aConflictingFindOneAndUpdateUpsertIsACommandExceptionWithCode11000AndADuplicateKey() {
		MongoCommandException ex = catchThrowableOfType(MongoCommandException.class,
				() -> collection.findOneAndUpdate(CONFLICTING_UPSERT, INC, new FindOneAndUpdateOptions().upsert(true)));
		assertThat(ex.getCode()).isEqualTo(11000);
		assertThat(MongoErrors.isDuplicateKey(ex)).isTrue();
	}

	@Test
	void otherServerErrorsAndClientErrorsAreNotDuplicateKeys() {
		MongoException rejected = catchThrowableOfType(MongoException.class, () -> collection
			.updateOne(new Document("_id", "dup"), List.of(new Document("$set", new Document("now", "$$NOW")))));
		assertThat(rejected.getCode()).isNotEqualTo(11000);
		assertThat(MongoErrors.isDuplicateKey(rejected)).isFalse();
		assertThat(MongoErrors.isDuplicateKey(new MongoTimeoutException("no server"))).isFalse();
		assertThat(MongoErrors.isDuplicateKey(new MongoException(11000, "client-side, whatever its code"))).isFalse();
	}

	@Test
	void onlyErrorsRaisedAfterTheCommandLeftTheClientMayHaveBeenApplied() {
		assertThat(MongoErrors.mayHaveRun(new MongoOperationTimeoutException("Operation exceeded the timeout limit",
				new MongoSocketReadTimeoutException("Timeout while receiving message", new ServerAddress(), null))))
			.isTrue();
		assertThat(MongoErrors.mayHaveRun(new MongoSocketReadException("closed", new ServerAddress()))).isTrue();
		assertThat(MongoErrors.mayHaveRun(new MongoInterruptedException("interrupted", null))).isTrue();
		assertThat(MongoErrors.mayHaveRun(new MongoException(91, "shutdown in progress"))).isTrue();
		// raised while waiting for a server or a connection: nothing was sent
		assertThat(MongoErrors.mayHaveRun(new MongoOperationTimeoutException("Timed out while waiting for a server")))
			.isFalse();
		assertThat(MongoErrors.mayHaveRun(new MongoTimeoutException("Timed out while waiting for a server")))
			.isFalse();
		assertThat(MongoErrors.mayHaveRun(new MongoSocketOpenException("refused", new ServerAddress()))).isFalse();
		assertThat(MongoErrors.mayHaveRun(new IllegalStateException("state should be: open"))).isFalse();
	}

}
