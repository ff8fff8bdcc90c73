package dev.distlock.mongo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.mongodb.client.MongoCollection;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockMode;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.StatusQuery;
import dev.distlock.mongo.testsupport.MongoTestServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the store holds: purging, fencing across a purge, indexes, status filters and shared-holder pruning. Each
 * test uses its own collection on one in-process server.
 */
class MongoLockProviderStoreTest {

	private static final Duration LONG = Duration.ofSeconds(30);

	private static MongoTestServer server;

	private MongoLockSettings settings;

	private MongoLockProvider provider;

	private MongoCollection<Document> collection;

	@BeforeAll
	static void startServer() {
		server = MongoTestServer.startInProcess();
	}

	@AfterAll
	static void stopServer() {
		server.close();
	}

	@BeforeEach
	void createProvider() {
		String name = "locks_" + UUID.randomUUID().toString().substring(0, 8);
		settings = MongoLockSettings.defaults().withCollection(name).withPurge(null, Duration.ofMillis(300));
		provider = new MongoLockProvider(server.template(), settings);
		collection = server.template().getCollection(name);
	}

	@AfterEach
	void closeProvider() {
		provider.close();
	}

	private LockTemplate template(String owner) {
		return LockTemplate.builder(provider).owner(new OwnerDetails(owner, owner + "-host")).build();
	}

	private static LockOptions lease(Duration lease) {
		return LockOptions.builder().timeout(lease).build();
	}

	@Test
	void purgeRemovesOnlyDocumentsExpiredBeyondTheGrace() throws Exception {
		LockTemplate template = template("purger");
		template.acquire("expired", lease(Duration.ofMillis(100)));
		template.acquire("released", lease(LONG)).release();
		template.acquire("held", lease(LONG));
		Thread.sleep(600); // past 100 ms + 300 ms grace for "expired", past the grace for "released"
		template.acquire("recent", lease(Duration.ofMillis(50))); // expired by the purge, but within the grace

		assertThat(provider.purge()).isEqualTo(2);
		assertThat(ids()).containsExactlyInAnyOrder("held", "recent");
		assertThat(provider.purge()).isZero();
	}

	@Test
	void fencingTokensKeepIncreasingAfterThePurgerRemovedTheDocument() throws Exception {
		LockTemplate template = template("fencing");
		List<Long> tokens = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			LockHandle handle = template.acquire("f", lease(LONG));
			tokens.add(handle.fencingToken());
			handle.release();
		}
		Thread.sleep(400);
		assertThat(provider.purge()).isEqualTo(1);
		assertThat(ids()).isEmpty();
		tokens.add(template.acquire("f", lease(LONG)).fencingToken());
		assertThat(tokens).isSorted().doesNotHaveDuplicates();
		assertThat(tokens.get(3)).isGreaterThan(tokens.get(2));
	}

	@Test
	void sharedHoldersStillLeasedAreNotPurged() throws Exception {
		LockTemplate template = template("shared");
		LockOptions shortShared = LockOptions.builder().timeout(Duration.ofMillis(50)).shared(3).build();
		template.acquire("s", shortShared);
		template.acquire("s", LockOptions.builder().timeout(LONG).shared(3).build());
		Thread.sleep(500);
		assertThat(provider.purge()).isZero();
		assertThat(ids()).containsExactly("s");
	}

	@Test
	void expiredSharedHoldersArePrunedByTheNextSharedGrant() throws Exception {
		LockTemplate template = template("pruning");
		LockOptions shortShared = LockOptions.builder().timeout(Duration.ofMillis(100)).shared(5).build();
		template.acquire("s", shortShared);
		template.acquire("s", shortShared);
		Thread.sleep(300);
		template.acquire("s", LockOptions.builder().timeout(LONG).shared(5).build());
		Document shared = collection.find(new Document("_id", "s")).first().get("shared", Document.class);
		assertThat(shared).hasSize(1);
	}

	@Test
	void createIndexesCreatesThePurgerIndexAndStartSkipsItWhenDisabled() {
		provider.createIndexes();
		provider.createIndexes(); // idempotent
		assertThat(indexNames(collection)).contains(MongoLockProvider.TOUCHED_INDEX);

		String other = settings.collection() + "_noidx";
		MongoLockSettings noIndexes = new MongoLockSettings(other, settings.writeConcern(), false, null,
				settings.purgeGrace());
		try (MongoLockProvider plain = new MongoLockProvider(server.template(), noIndexes)) {
			plain.start();
			template("x").acquire("k", lease(LONG));
			LockTemplate.builder(plain).build().acquire("k", lease(LONG));
			assertThat(indexNames(server.template().getCollection(other)))
				.doesNotContain(MongoLockProvider.TOUCHED_INDEX);
		}
	}

	@Test
	void startedPurgerRemovesExpiredDocumentsInTheBackgroundAndCloseStopsIt() throws Exception {
		MongoLockSettings scheduled = settings.withPurge(Duration.ofMillis(100), Duration.ZERO);
		try (MongoLockProvider purging = new MongoLockProvider(server.template(), scheduled)) {
			purging.start();
			assertThat(indexNames(collection)).contains(MongoLockProvider.TOUCHED_INDEX);
			LockTemplate.builder(purging).build().acquire("gone", lease(Duration.ofMillis(50)));
			long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
			while (!ids().isEmpty() && System.nanoTime() < deadline) {
				Thread.sleep(50);
			}
			assertThat(ids()).isEmpty();
		}
		Thread.sleep(150);
		assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
			.doesNotContain("distlock-mongo-purger");
	}

	@Test
	void statusFiltersByPrefixOwnerStateAndTtlOnTheServersClock() throws Exception {
		LockTemplate alice = template("alice");
		LockTemplate bob = template("bob");
		alice.acquire("app:a", lease(LONG));
		bob.acquire("app:b", lease(Duration.ofSeconds(2)));
		bob.acquire("app:s", LockOptions.builder().timeout(LONG).shared(3).build());
		alice.acquire("app:s", LockOptions.builder().timeout(LONG).shared(3).build());
		alice.acquire("other:c", lease(LONG));
		alice.acquire("app:gone", lease(Duration.ofMillis(100)));
		alice.acquire("app:freed", lease(LONG)).release();
		Thread.sleep(300);

		assertThat(keys(StatusQuery.all())).containsExactly("app:a", "app:b", "app:freed", "app:gone", "app:s",
				"other:c");
		assertThat(keys(StatusQuery.held().withKeyPrefix("app:"))).containsExactly("app:a", "app:b", "app:s");
		assertThat(keys(StatusQuery.held().withOwner("bob"))).containsExactly("app:b", "app:s");
		assertThat(keys(StatusQuery.held().withTtlBelow(Duration.ofSeconds(5)))).containsExactly("app:b");
		assertThat(keys(new StatusQuery("app:", null, StatusQuery.State.EXPIRED, null)))
			.containsExactly("app:freed", "app:gone");
		assertThat(keys(StatusQuery.held().withKeyPrefix("app.*"))).isEmpty(); // the prefix is literal, not a regex

		LockInfo shared = provider.status(StatusQuery.held().withKeyPrefix("app:s")).get(0);
		assertThat(shared.mode()).isEqualTo(LockMode.SHARED);
		assertThat(shared.holders()).isEqualTo(2);
		assertThat(shared.owner()).isEqualTo("bob");
		assertThat(shared.host()).isEqualTo("bob-host");
		LockInfo gone = provider.status(StatusQuery.all().withKeyPrefix("app:gone")).get(0);
		assertThat(gone.held()).isFalse();
		assertThat(gone.holders()).isZero();
		assertThat(gone.remaining()).isNegative();
		assertThat(gone.owner()).isEqualTo("alice");
	}

	private List<String> keys(StatusQuery query) {
		return provider.status(query).stream().map(LockInfo::key).toList();
	}

	private List<String> ids() {
		List<String> ids = new ArrayList<>();
		collection.find().forEach(document -> ids.add(document.getString("_id")));
		return ids;
	}

	private static List<String> indexNames(MongoCollection<Document> target) {
		List<String> names = new ArrayList<>();
		target.listIndexes().forEach(index -> names.add(index.getString("name")));
		return names;
	}

}
