package dev.distlock.mongo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.BooleanSupplier;

import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.mongodb.client.MongoCollection;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockMode;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.StatusQuery;
import dev.distlock.mongo.testsupport.MongoTestServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the store holds: purging, fencing across a purge, indexes, status filters and shared-holder pruning.
 * Subclasses supply the server: mongo-java-server in-process, or a real one named by {@code MONGODB_URI}. Each test
 * gets its own server instance (on a real server: its own database, dropped afterwards) and its own collection.
 * Sleeps only ever wait for a lease to run out, so a slow machine makes no test fail.
 */
abstract class AbstractMongoLockProviderStoreTest {

	private static final Duration LONG = Duration.ofSeconds(30);

	private MongoTestServer server;

	private MongoLockSettings settings;

	private MongoLockProvider provider;

	private MongoCollection<Document> collection;

	/**
	 * Starts or connects to the server one test runs against.
	 */
	protected abstract MongoTestServer startServer();

	@BeforeEach
	void createProvider() {
		server = startServer();
		String name = "locks_" + UUID.randomUUID().toString().substring(0, 8);
		settings = MongoLockSettings.defaults().withCollection(name).withPurge(null, MongoLockSettings.MIN_PURGE_GRACE);
		// The settings refuse a grace below a minute; the purger tests use none, through the package constructor, so
		// they still prove the purger's own rules (the whole millisecond after the last write, the lease checks).
		provider = new MongoLockProvider(server.template(), settings, Duration.ZERO);
		collection = server.template().getCollection(name);
	}

	@AfterEach
	void closeProvider() {
		try {
			provider.close();
			collection.drop();
		}
		finally {
			server.close();
		}
	}

	private LockTemplate template(String owner) {
		return LockTemplate.builder(provider).owner(new OwnerDetails(owner, owner + "-host")).build();
	}

	private MongoLockProvider provider(MongoLockSettings other) {
		return new MongoLockProvider(server.template(), other);
	}

	private static LockOptions lease(Duration lease) {
		return LockOptions.builder().timeout(lease).build();
	}

	/**
	 * A lock whose lease ends a millisecond from now: taken with a long lease, then extended to 1 ms, so that a grant
	 * reply slower than a short lease (a loaded machine) cannot make the acquire itself fail.
	 */
	private static LockHandle expiringSoon(LockTemplate template, String key, LockOptions options) {
		LockHandle handle = template.acquire(key, options);
		handle.extend(Duration.ofMillis(1));
		return handle;
	}

	private static LockOptions shared(Duration lease) {
		return LockOptions.builder().timeout(lease).shared(3).build();
	}

	@Test
	void purgeRemovesOnlyDocumentsExpiredBeyondTheGrace() throws Exception {
		LockTemplate template = template("purger");
		template.acquire("released", lease(LONG)).release();
		expiringSoon(template, "expired", lease(LONG));
		template.acquire("held", lease(LONG));
		awaitExpiry("expired"); // and so "released" has been free for over 100 ms

		try (MongoLockProvider hourGrace = provider(settings.withPurge(null, Duration.ofHours(1)))) {
			assertThat(hourGrace.purge()).isZero();
		}
		assertThat(ids()).containsExactlyInAnyOrder("released", "expired", "held");
		assertThat(provider.purge()).isEqualTo(2);
		assertThat(ids()).containsExactly("held");
		assertThat(provider.purge()).isZero();
	}

	@Test
	void fencingTokensKeepIncreasingAfterThePurgerRemovedTheDocument() {
		LockTemplate template = template("fencing");
		List<Long> tokens = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			LockHandle handle = template.acquire("f", lease(LONG));
			tokens.add(handle.fencingToken());
			handle.release();
		}
		purgeUntilRemoved("f");
		tokens.add(template.acquire("f", lease(LONG)).fencingToken());
		assertThat(tokens).isSorted().doesNotHaveDuplicates();
	}

	@Test
	void aDocumentPurgedWithZeroGraceIsRecreatedInALaterMillisecondSoItsTokensAreLarger() {
		// Straight through the SPI and purging as soon as the purger allows, 100 times: mongo-java-server keeps
		// sub-millisecond dates, so without the purger's whole-millisecond rule some re-created documents would
		// share their predecessor's millisecond, and so its tokens.
		long previous = 0;
		for (int round = 0; round < 100; round++) {
			Lease lease = provider.tryAcquire(new LockRequest("r", "token-" + round, LONG, LockMode.EXCLUSIVE, 1,
					new OwnerDetails("recreate", "host"))).orElseThrow();
			long token = lease.fencingToken();
			assertThat(token >> LockDocuments.SEQ_BITS).as("base of round %d", round)
				.isGreaterThan(previous >> LockDocuments.SEQ_BITS);
			assertThat(token & ((1L << LockDocuments.SEQ_BITS) - 1)).as("seq of round %d", round).isOne();
			assertThat(lease.release()).isTrue();
			purgeUntilRemoved("r");
			previous = token;
		}
	}

	@Test
	void aSequencePastTwoToTheTwentyCarriesIntoTheMillisecondsAndTokensStillIncreaseAcrossAPurge() throws Exception {
		LockTemplate template = template("carry");
		LockHandle first = template.acquire("c", lease(LONG));
		long base = first.fencingToken() >> LockDocuments.SEQ_BITS;
		assertThat(first.fencingToken()).isEqualTo((base << LockDocuments.SEQ_BITS) + 1);
		first.release();
		collection.updateOne(new Document("_id", "c"),
				new Document("$set", new Document("seq", (1L << LockDocuments.SEQ_BITS) - 1)));

		LockHandle carried = template.acquire("c", lease(LONG));
		assertThat(carried.fencingToken()).isEqualTo((base + 1) << LockDocuments.SEQ_BITS);
		carried.release();
		LockHandle next = template.acquire("c", lease(LONG));
		assertThat(next.fencingToken()).isEqualTo(((base + 1) << LockDocuments.SEQ_BITS) + 1);
		next.release();

		// 2^20 + 1 grants from one document: a re-created one is above them once its base is 2 ms later.
		Thread.sleep(5);
		purgeUntilRemoved("c");
		assertThat(template.acquire("c", lease(LONG)).fencingToken()).isGreaterThan(next.fencingToken());
	}

	@Test
	void sharedHoldersStillLeasedAreNotPurged() throws Exception {
		LockTemplate template = template("shared");
		expiringSoon(template, "s", shared(LONG));
		template.acquire("s", shared(LONG));
		Thread.sleep(300);
		assertThat(provider.purge()).isZero();
		assertThat(ids()).containsExactly("s");
	}

	@Test
	void expiredSharedHoldersArePrunedByTheNextSharedGrant() throws Exception {
		LockTemplate template = template("pruning");
		expiringSoon(template, "s", shared(LONG));
		expiringSoon(template, "s", shared(LONG));
		Thread.sleep(300);
		template.acquire("s", shared(LONG));
		Document shared = collection.find(new Document("_id", "s")).first().get("shared", Document.class);
		assertThat(shared).hasSize(1);
	}

	@Test
	void createIndexesCreatesThePurgerAndLockIdIndexesAndStartSkipsThemWhenDisabled() {
		provider.createIndexes();
		provider.createIndexes(); // idempotent
		assertThat(indexNames(collection)).containsExactlyInAnyOrder("_id_", MongoLockProvider.TOUCHED_INDEX,
				MongoLockProvider.LOCK_ID_INDEX);

		String other = settings.collection() + "_noidx";
		MongoLockSettings noIndexes = new MongoLockSettings(other, settings.writeConcern(), false, null,
				settings.purgeGrace());
		try (MongoLockProvider plain = provider(noIndexes)) {
			plain.start();
			LockTemplate.builder(plain).build().acquire("k", lease(LONG));
			assertThat(indexNames(server.template().getCollection(other))).containsExactly("_id_");
		}
		finally {
			server.template().getCollection(other).drop();
		}
	}

	@Test
	void startedPurgerRemovesExpiredDocumentsInTheBackgroundAndCloseStopsIt() throws Exception {
		MongoLockSettings scheduled = settings.withPurge(Duration.ofMillis(100), MongoLockSettings.MIN_PURGE_GRACE);
		try (MongoLockProvider purging = new MongoLockProvider(server.template(), scheduled, Duration.ZERO)) {
			purging.start();
			assertThat(indexNames(collection)).contains(MongoLockProvider.TOUCHED_INDEX);
			expiringSoon(LockTemplate.builder(purging).build(), "gone", lease(LONG));
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
	void purgerRunsOnASchedulerHandedInAndCloseCancelsItWithoutShuttingTheSchedulerDown() throws Exception {
		MongoLockSettings scheduled = settings.withPurge(Duration.ofMillis(100), MongoLockSettings.MIN_PURGE_GRACE);
		ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1,
				runnable -> new Thread(runnable, "owner-scheduler"));
		try {
			try (MongoLockProvider purging = new MongoLockProvider(server.template(), scheduled, Duration.ZERO)
				.purgeScheduler(scheduler)) {
				purging.start();
				assertThat(scheduler.getQueue()).as("the purge, scheduled on the owner's scheduler").hasSize(1);
				expiringSoon(LockTemplate.builder(purging).build(), "gone", lease(LONG));
				long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
				while (!ids().isEmpty() && System.nanoTime() < deadline) {
					Thread.sleep(50);
				}
				assertThat(ids()).isEmpty();
				assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
					.doesNotContain("distlock-mongo-purger");
			}
			scheduler.purge(); // drops the cancelled purge from the queue
			assertThat(scheduler.getQueue()).isEmpty();
			assertThat(scheduler.isShutdown()).isFalse();
		}
		finally {
			scheduler.shutdownNow();
		}
	}

	@Test
	void statusFiltersByPrefixOwnerStateAndTtlOnTheServersClock() throws Exception {
		LockTemplate alice = template("alice");
		LockTemplate bob = template("bob");
		alice.acquire("app:a", lease(LONG));
		bob.acquire("app:b", lease(Duration.ofSeconds(10)));
		bob.acquire("app:s", shared(LONG));
		alice.acquire("app:s", shared(LONG));
		alice.acquire("other:c", lease(LONG));
		expiringSoon(alice, "app:gone", lease(LONG));
		alice.acquire("app:freed", lease(LONG)).release();
		awaitExpiry("app:gone");

		assertThat(keys(StatusQuery.all())).containsExactly("app:a", "app:b", "app:freed", "app:gone", "app:s",
				"other:c");
		assertThat(keys(StatusQuery.held().withKeyPrefix("app:"))).containsExactly("app:a", "app:b", "app:s");
		assertThat(keys(StatusQuery.held().withOwner("bob"))).containsExactly("app:b", "app:s");
		assertThat(keys(StatusQuery.held().withTtlBelow(Duration.ofSeconds(20)))).containsExactly("app:b");
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

	@Test
	void statusOwnerFilterMatchesEveryLiveSharedHolderNotOnlyTheReportedOne() throws Exception {
		template("bob").acquire("s", shared(LONG));
		template("alice").acquire("s", shared(LONG));
		template("bob").acquire("t", shared(LONG));
		expiringSoon(template("alice"), "t", shared(LONG)); // still recorded, but expired
		awaitCondition(() -> provider.status(StatusQuery.held().withKeyPrefix("t")).get(0).holders() == 1);

		List<LockInfo> alices = provider.status(StatusQuery.held().withOwner("alice"));
		assertThat(alices).extracting(LockInfo::key).containsExactly("s");
		assertThat(alices.get(0).owner()).as("the reported owner is still the earliest holder").isEqualTo("bob");
		assertThat(alices.get(0).holders()).isEqualTo(2);
		assertThat(keys(StatusQuery.all().withOwner("alice"))).containsExactly("s");
		assertThat(keys(StatusQuery.held().withOwner("bob"))).containsExactly("s", "t");
		assertThat(keys(StatusQuery.held().withOwner("carol"))).isEmpty();
		Document t = collection.find(new Document("_id", "t")).first().get("shared", Document.class);
		assertThat(t).hasSize(2);
	}

	private void awaitExpiry(String key) throws InterruptedException {
		awaitCondition(() -> !provider.isLocked(key));
	}

	/** Polls a server-side condition that only the passing of a lease can make true. */
	private static void awaitCondition(BooleanSupplier condition) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime()).as("condition not met within 10 s").isLessThan(deadline);
			Thread.sleep(20);
		}
	}

	/**
	 * Purges, without pausing, until the purge removes the key's document, the only one in the collection: with
	 * zero grace that is as soon as the purger allows.
	 */
	private void purgeUntilRemoved(String key) {
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (provider.purge() == 0) {
			assertThat(System.nanoTime()).as("'%s' not purged within 10 s", key).isLessThan(deadline);
		}
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
