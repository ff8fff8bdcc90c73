package dev.distlock.mongo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.mongodb.client.MongoCollection;

import dev.distlock.core.LockGroup;
import dev.distlock.core.LockMode;
import dev.distlock.core.LockOperations;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockRenewal;
import dev.distlock.core.spi.StatusQuery;
import dev.distlock.mongo.testsupport.MongoTestServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * square/mongo-lock's README example, step by step, in distlock (the README's "Coming from mongo-lock" shows the
 * same code): a client on a collection with majority writes, its indexes, an exclusive lock on resource1 and an
 * unlimited shared lock on resource2 under one caller-chosen lock ID, then one unlock by that ID. Against
 * mongo-java-server (or the server {@code MONGODB_URI} names).
 */
class MongoLockReadmeTranslationTest {

	private MongoTestServer server;

	private MongoLockProvider provider;

	private LockTemplate locks;

	@BeforeEach
	void connect() {
		server = MongoTestServer.start();
		// Majority writes are the default; "locks" is the collection the mongo-lock README uses.
		provider = new MongoLockProvider(server.template(), MongoLockSettings.defaults().withCollection("locks"));
		provider.start(); // creates the indexes, the lock-ID one included (mongo-lock's CreateIndexes)
		locks = LockTemplate.builder(provider).owner(OwnerDetails.of("readme")).build();
	}

	@AfterEach
	void disconnect() {
		locks.close();
		provider.close();
		server.template().getCollection("locks").drop();
		server.close();
	}

	@Test
	void theReadmeExampleLocksTwoResourcesUnderOneIdAndUnlocksThemByIt() {
		String lockId = "abcd1234";
		LockGroup group = locks.group(lockId);
		// mongo-lock's locks have no TTL unless one is given; here that is an explicit opt-in.
		group.lock("resource1", LockOptions.noExpiry());
		group.lockShared("resource2", LockOptions.UNLIMITED, LockOptions.noExpiry());

		assertThat(new LockOperations(locks).status(StatusQuery.held().withLockId(lockId)))
			.extracting(LockInfo::key, LockInfo::mode, LockInfo::ttlText)
			.containsExactly(org.assertj.core.groups.Tuple.tuple("resource1", LockMode.EXCLUSIVE, "none"),
					org.assertj.core.groups.Tuple.tuple("resource2", LockMode.SHARED, "none"));

		List<LockInfo> unlocked = locks.unlock(lockId);

		assertThat(unlocked).extracting(LockInfo::key).containsExactly("resource2", "resource1");
		assertThat(unlocked).extracting(LockInfo::owner).containsOnly("readme");
		assertThat(locks.isLocked("resource1") || locks.isLocked("resource2")).isFalse();
		assertThat(locks.unlock(lockId)).isEmpty();
		group.close(); // its handles were released by the unlock: nothing left to do
	}

	@Test
	void theIndexesIncludeOneOnTheLockIds() {
		MongoCollection<Document> collection = server.template().getCollection("locks");
		List<String> names = collection.listIndexes().map(index -> index.getString("name")).into(new ArrayList<>());
		assertThat(names).contains(MongoLockProvider.LOCK_ID_INDEX, MongoLockProvider.TOUCHED_INDEX);
	}

	@Test
	void withATtlTheLocksExpireUnlessRenewedById() {
		String lockId = LockTemplate.newLockId();
		LockOptions fiveMinutes = LockOptions.builder().timeout(Duration.ofMinutes(5)).build();
		LockGroup group = locks.group(lockId);
		group.lock("resource1", fiveMinutes);
		group.lockShared("resource2", -1, fiveMinutes);

		LockRenewal renewal = locks.renew(lockId, Duration.ofMinutes(10));

		assertThat(renewal.allRenewed()).isTrue();
		assertThat(renewal.renewed()).extracting(LockInfo::ttl).containsOnly(Duration.ofMinutes(10));
		assertThat(group.unlock()).hasSize(2);
	}

}
