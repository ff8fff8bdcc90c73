package dev.distlock.mongo;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;

import com.mongodb.MongoException;
import com.mongodb.client.MongoClient;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandSucceededEvent;

import dev.distlock.core.LockExtendException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockMode;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockReleaseException;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.mongo.testsupport.MongoTestServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The failure tests against mongo-java-server, plus those that stop the server, which only the in-process one can
 * do (and restart with its data): a real server is never stopped by a test.
 */
class MongoLockProviderFailureTest extends AbstractMongoLockProviderFailureTest {

	/**
	 * The client's server-selection timeout, the longest a call waits for a stopped server, twice (a call whose
	 * connection broke mid-way may have run, so a release or extend is made again and a failed acquire is cleaned up),
	 * plus room for a loaded two-core machine. The driver's own default selection timeout, 30 s, exceeds it by far.
	 */
	private static final Duration FAIL_FAST_BOUND = MongoTestServer.SERVER_SELECTION_TIMEOUT.multipliedBy(2)
		.plusSeconds(4);

	private static final Duration LONG = Duration.ofSeconds(30);

	@Override
	protected MongoTestServer startServer() {
		return MongoTestServer.startInProcess();
	}

	@Test
	void acquireWithTheServerStoppedFailsFastWithAStoreErrorNamingTheKey() {
		server.stop();
		long start = System.nanoTime();
		assertThatThrownBy(() -> template.tryAcquire("down", LockOptions.builder().timeout(LONG).build()))
			.isInstanceOf(LockStoreException.class)
			.hasMessageContaining("'down'")
			.hasRootCauseInstanceOf(MongoException.class);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(FAIL_FAST_BOUND);
		assertThatThrownBy(() -> provider.isLocked("down")).isInstanceOf(LockStoreException.class);
		assertThatThrownBy(provider::ping).isInstanceOf(LockStoreException.class);
	}

	@Test
	void releaseWithTheServerStoppedFailsFastWithAReleaseErrorAndTheLockSurvivesARestart() {
		LockHandle handle = template.acquire("held", LockOptions.builder().timeout(LONG).build());
		server.stop();
		long start = System.nanoTime();
		assertThatThrownBy(handle::release).isInstanceOf(LockReleaseException.class)
			.hasMessageContaining("'held'")
			.cause()
			.isInstanceOf(LockStoreException.class)
			.hasCauseInstanceOf(MongoException.class);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(FAIL_FAST_BOUND);

		server.restart();
		assertThat(provider.isLocked("held")).isTrue();
		assertThat(template.tryAcquire("held", LockOptions.builder().timeout(LONG).build())).isEmpty();
	}

	@Test
	void extendWithTheServerStoppedFailsFastWithAnExtendErrorCausedByTheStore() {
		LockHandle handle = template.acquire("ext", LockOptions.builder().timeout(LONG).build());
		server.stop();
		long start = System.nanoTime();
		assertThatThrownBy(() -> handle.extend(LONG)).isInstanceOf(LockExtendException.class)
			.hasCauseInstanceOf(LockStoreException.class);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(FAIL_FAST_BOUND);
	}

	@Test
	void anInsertFailingForAnyReasonButADuplicateKeyIsAStoreError() {
		// The server stops right after the update of an existing document found nothing, so the insert fails.
		try (StopAfterFindAndModify stopping = new StopAfterFindAndModify()) {
			stopping.arm();
			assertThatThrownBy(() -> stopping.provider.tryAcquire(request("absent", LONG, LockMode.EXCLUSIVE)))
				.isInstanceOf(LockStoreException.class)
				.hasMessageStartingWith("Mongo lock store failed to acquire for 'absent'")
				.cause()
				.isInstanceOfSatisfying(MongoException.class,
						ex -> assertThat(MongoErrors.isDuplicateKey(ex)).isFalse());
		}
		server.restart();
		assertThat(document("absent")).isNull();
	}

	@Test
	void aSharedGrantWhosePruningFailsIsStillGrantedAndKeepsTheExpiredHolders() {
		try (StopAfterFindAndModify stopping = new StopAfterFindAndModify()) {
			Document expire = new Document();
			for (int i = 0; i < 2; i++) {
				LockRequest holder = request("s", LONG, LockMode.SHARED);
				stopping.provider.tryAcquire(holder).orElseThrow();
				expire.append("shared." + LockDocuments.holderField(holder.token()) + ".leaseMs", 0L);
			}
			// Both leases ended by the server's clock, so the next shared grant prunes them, in a second command.
			server.template().getCollection(MongoLockSettings.DEFAULT_COLLECTION)
				.updateOne(new Document("_id", "s"), new Document("$set", expire));
			stopping.arm();
			Lease granted = stopping.provider.tryAcquire(request("s", LONG, LockMode.SHARED)).orElseThrow();
			assertThat(granted.fencingToken()).isPositive();
		}
		server.restart();
		assertThat(document("s").get("shared", Document.class)).hasSize(3);
		assertThat(document("s").getLong("seq")).isEqualTo(3L);
	}

	/**
	 * A provider on its own client that stops the server once the next {@code findAndModify} has succeeded, so
	 * the command after it, in the same acquire, fails.
	 */
	private final class StopAfterFindAndModify implements AutoCloseable {

		private final AtomicBoolean armed = new AtomicBoolean();

		private final MongoClient client = server.newClient(builder -> builder.addCommandListener(new Stopper()));

		private final MongoLockProvider provider = new MongoLockProvider(
				new MongoTemplate(client, server.database()), MongoLockSettings.defaults());

		void arm() {
			armed.set(true);
		}

		private final class Stopper implements CommandListener {

			@Override
			public void commandSucceeded(CommandSucceededEvent event) {
				if ("findAndModify".equals(event.getCommandName()) && armed.compareAndSet(true, false)) {
					server.stop();
				}
			}

		}

		@Override
		public void close() {
			provider.close();
			client.close();
		}

	}

}
