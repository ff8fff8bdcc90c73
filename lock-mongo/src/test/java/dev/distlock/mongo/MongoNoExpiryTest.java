package dev.distlock.mongo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;

import dev.distlock.core.InvalidLockOptionException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockMode;
import dev.distlock.core.LockOperations;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.StatusQuery;
import dev.distlock.mongo.testsupport.MongoTestServer;
import dev.distlock.mongo.testsupport.TcpProxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 19 on Mongo: locks without expiry after a grant whose reply never came (case 2), taken away from their handle
 * (case 7), lock IDs that could not be found again (case 11), and leases shorter than a round trip.
 */
class MongoNoExpiryTest extends AbstractMongoServerTest {

	private static final OwnerDetails OWNER = new OwnerDetails("no-expiry-test", "test-host");

	/** How long a test waits for something that must happen, on a loaded machine: far beyond every bound. */
	private static final Duration EVENTUALLY = Duration.ofSeconds(30);

	private final List<AutoCloseable> closing = new ArrayList<>();

	@Override
	protected MongoTestServer startServer() {
		return MongoTestServer.startInProcess();
	}

	@Override
	protected OwnerDetails owner() {
		return OWNER;
	}

	@AfterEach
	void closeExtras() throws Exception {
		for (int i = closing.size() - 1; i >= 0; i--) {
			closing.get(i).close();
		}
	}

	private Document document(String key) {
		return server.template().getCollection(MongoLockSettings.DEFAULT_COLLECTION).find(new Document("_id", key))
			.first();
	}

	private static LockRequest noExpiry(String key, String token, Duration lease, String lockId) {
		return new LockRequest(key, token, lease, LockMode.EXCLUSIVE, 1, OWNER, lockId, true);
	}

	@Test
	void aGrantWithoutExpiryLandingAfterTheClientGaveUpEndsByItselfInsteadOfStayingForever() throws Exception {
		TcpProxy proxy = TcpProxy.start(server.address().getHostString(), server.address().getPort());
		closing.add(proxy);
		MongoClient client = MongoClients.create(MongoClientSettings.builder()
			.applyConnectionString(new ConnectionString(proxy.connectionString()))
			.applyToClusterSettings(cluster -> cluster.serverSelectionTimeout(1500, TimeUnit.MILLISECONDS))
			.applyToServerSettings(s -> s.heartbeatFrequency(10, TimeUnit.MINUTES))
			.build());
		closing.add(client);
		MongoLockProvider through = new MongoLockProvider(new MongoTemplate(client, server.database()),
				MongoLockSettings.defaults().withCallTimeout(Duration.ofSeconds(1)));
		closing.add(through);
		// the document exists and is free, so the first findAndModify is the one that grants
		through.tryAcquire(noExpiry("stranded", token(), Duration.ofSeconds(1), "job-2")).orElseThrow().release();

		// The grant reaches the server after the acquire (1 s bound) and its clean-up sweep (1 s lease) gave up.
		Duration delay = Duration.ofSeconds(4);
		proxy.delayNext("findAndModify", delay);
		String token = token();
		assertThatThrownBy(() -> through.tryAcquire(noExpiry("stranded", token, Duration.ofSeconds(1), "job-2")))
			.isInstanceOf(LockStoreException.class)
			.hasMessageContaining("'stranded'");
		long deadline = System.nanoTime() + EVENTUALLY.toNanos();
		while (proxy.delayedDelivered() == 0 || !token.equals(document("stranded").getString("token"))) {
			assertThat(System.nanoTime()).as("the delayed grant landed").isLessThan(deadline);
			Thread.sleep(20);
		}
		assertThat(document("stranded").getLong("seq")).as("the server did grant it").isEqualTo(2L);

		// Nobody has this token: the lock must end without anyone's help.
		while (provider.isLocked("stranded")) {
			assertThat(System.nanoTime()).as("the grant nobody holds ended by itself").isLessThan(deadline);
			Thread.sleep(50);
		}
		Optional<Lease> other = provider.tryAcquire(new LockRequest("stranded", token(), Duration.ofSeconds(30),
				LockMode.EXCLUSIVE, 1, OWNER));
		assertThat(other).isPresent();
		other.get().release();
	}

	/**
	 * A store paused past the acquire's bound, its clean-up's and the provisional lease: the grant lands when the
	 * store resumes, and the clean-up, which kept trying while the store did not answer, releases it by token instead
	 * of leaving it to its provisional lease (issue 19, case 2, seams kit's paused store).
	 */
	@Test
	void aGrantWithoutExpiryLandingWhenAPausedStoreResumesIsReleasedByTheCleanUpNotLeftToItsLease() throws Exception {
		TcpProxy proxy = TcpProxy.start(server.address().getHostString(), server.address().getPort());
		closing.add(proxy);
		MongoClient client = MongoClients.create(MongoClientSettings.builder()
			.applyConnectionString(new ConnectionString(proxy.connectionString()))
			.applyToClusterSettings(cluster -> cluster.serverSelectionTimeout(1500, TimeUnit.MILLISECONDS))
			.applyToServerSettings(s -> s.heartbeatFrequency(10, TimeUnit.MINUTES))
			.build());
		closing.add(client);
		MongoLockProvider through = new MongoLockProvider(new MongoTemplate(client, server.database()),
				MongoLockSettings.defaults().withCallTimeout(Duration.ofSeconds(1)));
		closing.add(through);
		closing.add(proxy::resume);
		through.tryAcquire(noExpiry("paused", token(), Duration.ofSeconds(1), "job-p")).orElseThrow().release();

		// acquire (1 s bound), its clean-up (1 s) and the provisional lease (2 s) all pass while the store is paused
		proxy.pause();
		String token = token();
		assertThatThrownBy(() -> through.tryAcquire(noExpiry("paused", token, Duration.ofSeconds(1), "job-p")))
			.isInstanceOf(LockStoreException.class)
			.hasMessageContaining("'paused'");
		Thread.sleep(3_000);
		proxy.resume();

		long deadline = System.nanoTime() + EVENTUALLY.toNanos();
		while (document("paused").getLong("seq") < 2L || provider.isLocked("paused")) {
			assertThat(System.nanoTime()).as("the grant landed and ended").isLessThan(deadline);
			Thread.sleep(20);
		}
		Document document = document("paused");
		assertThat(document.getLong("seq")).as("the server did grant it").isEqualTo(2L);
		assertThat(document.containsKey("token")).as("released by the clean-up, not expired with its token").isFalse();
		assertThat(document.getString("released")).isEqualTo(token);
	}

	@Test
	void aGrantWithoutExpiryIsStoredWithoutExpiryOnceItsReplyIsIn() {
		Lease lease = provider.tryAcquire(noExpiry("lasting", token(), Duration.ofSeconds(1), "job-l")).orElseThrow();
		assertThat(document("lasting").getLong("leaseMs")).isEqualTo(LockDocuments.NO_EXPIRY_MS);
		assertThat(new LockOperations(template).status(StatusQuery.held())).singleElement()
			.satisfies(info -> {
				assertThat(info.remaining()).isEqualTo(LockInfo.NO_EXPIRY);
				assertThat(info.ttl()).isNull();
				assertThat(info.renewedAt()).as("made lasting, never renewed").isNull();
			});
		assertThat(lease.isHeld()).isTrue();
		assertThat(lease.release()).isTrue();
		assertThat(lease.isHeld()).isFalse();
	}

	@Test
	void aHandleWithoutExpiryTurnsLostOnceAnotherProcessUnlocksItsIdAndTakesTheKey() throws Exception {
		LockTemplate a = LockTemplate.builder(provider).owner(OWNER).holderCheckInterval(Duration.ofMillis(100)).build();
		closing.add(a);
		MongoLockProvider other = new MongoLockProvider(server.template(), MongoLockSettings.defaults());
		closing.add(other);
		LockTemplate b = new LockTemplate(other);
		closing.add(b);

		LockHandle mine = a.group("job-7").lock("k7", LockOptions.noExpiry());
		CountDownLatch lost = new CountDownLatch(1);
		mine.onLost(lost::countDown);
		assertThat(b.unlock("job-7")).extracting(LockInfo::key).containsExactly("k7");
		try (LockHandle theirs = b.acquire("k7")) {
			assertThat(theirs.fencingToken()).isGreaterThan(mine.fencingToken());
			assertThat(lost.await(EVENTUALLY.toSeconds(), TimeUnit.SECONDS)).isTrue();
			assertThat(mine.isHeld()).isFalse();
			assertThatThrownBy(mine::assertHeld).isInstanceOf(LockLostException.class);
			assertThat(theirs.isHeld()).isTrue();
		}
		assertThat(provider.isLocked("k7")).isFalse();
	}

	@Test
	void aHandleWithoutExpiryThatStillHoldsItsLockStaysHeldWithoutExpiry() throws Exception {
		LockTemplate a = LockTemplate.builder(provider).owner(OWNER).holderCheckInterval(Duration.ofMillis(50)).build();
		closing.add(a);
		try (LockHandle mine = a.acquire("kept", LockOptions.noExpiry())) {
			Thread.sleep(400); // several checks
			assertThat(mine.isHeld()).isTrue();
			assertThat(document("kept").getLong("leaseMs")).isEqualTo(LockDocuments.NO_EXPIRY_MS);
		}
		assertThat(provider.isLocked("kept")).isFalse();
	}

	@Test
	void aLockIdWithALoneSurrogateIsRefusedBeforeAnythingIsWritten() {
		String cut = "job-\uD83D";
		assertThatThrownBy(() -> template.group(cut).lock("k11", LockOptions.noExpiry()))
			.isInstanceOfSatisfying(InvalidLockOptionException.class,
					error -> assertThat(error.option()).isEqualTo("lockId"));
		assertThatThrownBy(() -> provider.unlock(cut)).isInstanceOf(InvalidLockOptionException.class);
		assertThatThrownBy(() -> provider.renew(cut, Duration.ofSeconds(1)))
			.isInstanceOf(InvalidLockOptionException.class);
		assertThat(document("k11")).isNull();
		assertThat(server.template().getCollection(MongoLockSettings.DEFAULT_COLLECTION).countDocuments()).isZero();
	}

	@Test
	void leasesShorterThanARoundTripAnswerGrantedOrNotNeverAStoreError() {
		// A grant whose 1 ms lease ran out before its reply is given up by the template ("not acquired").
		for (int i = 0; i < 50; i++) {
			// never throws on a healthy server: a 1 ms lease is granted (and may be over before the reply) or not
			Optional<LockHandle> handle = template.tryAcquire("short", LockOptions.builder()
				.timeout(Duration.ofMillis(1)).holdAtLeast(Duration.ofMillis(1)).build());
			if (handle.isPresent()) {
				try {
					handle.get().release();
				}
				catch (dev.distlock.core.LockReleaseException ex) {
					// its 1 ms lease may be over: "lost", typed, never a store error
					assertThat(ex.getCause()).isNull();
				}
			}
		}
		assertThat(new LockOperations(template).heldLocks()).isEmpty();
		for (int i = 0; i < 20; i++) {
			// the provider itself: granted (its lease already over, perhaps) or not; its release true or false
			provider.tryAcquire(new LockRequest("short-spi", token(), Duration.ofMillis(1), LockMode.EXCLUSIVE, 1, OWNER))
				.ifPresent(Lease::release);
		}
		Lease lease = provider.tryAcquire(new LockRequest("short-ext", token(), Duration.ofSeconds(30),
				LockMode.EXCLUSIVE, 1, OWNER)).orElseThrow();
		for (int i = 0; i < 20; i++) {
			lease.extend(Duration.ofMillis(1)); // true or false, never an error
		}
	}

	private static String token() {
		return LockTemplate.newLockId();
	}

}
