package dev.distlock.mongo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.MongoOperationTimeoutException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;

import dev.distlock.core.LockMode;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.spi.Lease;
import dev.distlock.mongo.testsupport.MongoTestServer;
import dev.distlock.mongo.testsupport.TcpProxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The seams tests against mongo-java-server, plus those that need a proxy between the driver and the server (a
 * paused server, a lost reply) or a pretend mongos router, which only the in-process server allows. The proxied
 * client keeps the driver's defaults that matter here: no socket timeout, no operation timeout, so only the
 * provider's own bounds can end a call.
 */
class MongoProviderSeamsTest extends AbstractMongoProviderSeamsTest {

	/** The bound of an acquire with {@link #LEASE}: the lease itself (at least 1 s, at most 30 s). */
	private static final Duration LEASE = Duration.ofSeconds(2);

	/** How long a test waits for a call before calling it hung: far beyond every bound, for a loaded machine. */
	private static final Duration HUNG = Duration.ofSeconds(20);

	private final List<AutoCloseable> closing = new ArrayList<>();

	@Override
	protected MongoTestServer startServer() {
		return MongoTestServer.startInProcess();
	}

	@BeforeEach
	void noProxyYet() {
		closing.clear();
	}

	@AfterEach
	void closeProxies() throws Exception {
		for (int i = closing.size() - 1; i >= 0; i--) {
			closing.get(i).close();
		}
	}

	/** A proxy in front of the server and a provider whose client goes through it. */
	private record Proxied(TcpProxy proxy, MongoLockProvider provider) {
	}

	private Proxied proxied() {
		TcpProxy proxy = TcpProxy.start(server.address().getHostString(), server.address().getPort());
		closing.add(proxy);
		MongoClient client = MongoClients.create(MongoClientSettings.builder()
			.applyConnectionString(new ConnectionString(proxy.connectionString()))
			.applyToClusterSettings(cluster -> cluster.serverSelectionTimeout(1500, TimeUnit.MILLISECONDS))
			.applyToSocketSettings(socket -> socket.connectTimeout(1, TimeUnit.SECONDS))
			// no heartbeat during a test: a paused monitor must not be what ends a call
			.applyToServerSettings(s -> s.heartbeatFrequency(10, TimeUnit.MINUTES))
			.build());
		closing.add(client);
		MongoLockProvider through = new MongoLockProvider(new MongoTemplate(client, server.database()),
				MongoLockSettings.defaults());
		closing.add(through);
		closing.add(proxy::resume); // closed first: release whatever a failing test left hanging
		return new Proxied(proxy, through);
	}

	/** Runs a call on its own thread; a call still running after {@link #HUNG} fails the test instead of hanging it. */
	private static <T> Outcome<T> within(Supplier<T> call) throws InterruptedException {
		CompletableFuture<T> future = CompletableFuture.supplyAsync(call, runnable -> {
			Thread thread = new Thread(runnable, "seams-call");
			thread.setDaemon(true);
			thread.start();
		});
		long start = System.nanoTime();
		try {
			T value = future.get(HUNG.toMillis(), TimeUnit.MILLISECONDS);
			return new Outcome<>(value, null, Duration.ofNanos(System.nanoTime() - start));
		}
		catch (TimeoutException ex) {
			return fail("The store call did not return within %s: it hangs", HUNG);
		}
		catch (ExecutionException ex) {
			return new Outcome<>(null, ex.getCause(), Duration.ofNanos(System.nanoTime() - start));
		}
	}

	private record Outcome<T>(T value, Throwable error, Duration took) {
	}

	@Test
	void anAcquireToAPausedServerEndsWithAStoreErrorWithinItsBoundInsteadOfHanging() throws Exception {
		Proxied proxied = proxied();
		proxied.provider().tryAcquire(exclusive("warm", token(), LEASE)).orElseThrow().release(); // connect first
		proxied.proxy().pause();

		Outcome<Optional<Lease>> outcome = within(
				() -> proxied.provider().tryAcquire(exclusive("paused", token(), LEASE)));
		assertThat(outcome.error()).isInstanceOf(LockStoreException.class)
			.hasMessageContaining("'paused'")
			.hasMessageContaining("2000 ms bound")
			.hasCauseInstanceOf(MongoOperationTimeoutException.class);
		// the acquire's bound plus the clean-up's (the same lease), and room for a loaded machine
		assertThat(outcome.took()).isLessThan(LEASE.multipliedBy(2).plusSeconds(5));
	}

	@Test
	void extendAndReleaseToAPausedServerEndWithinTheTimeLeftOnTheLease() throws Exception {
		Proxied proxied = proxied();
		Lease lease = proxied.provider().tryAcquire(exclusive("held", token(), LEASE)).orElseThrow();
		proxied.proxy().pause();

		Outcome<Boolean> extend = within(() -> lease.extend(LEASE));
		assertThat(extend.error()).isInstanceOf(LockStoreException.class)
			.hasMessageContaining("failed to extend for 'held'")
			.hasCauseInstanceOf(MongoOperationTimeoutException.class);
		assertThat(extend.took()).isLessThan(LEASE.plusSeconds(5));
		Outcome<Boolean> release = within(lease::release);
		assertThat(release.error()).isInstanceOf(LockStoreException.class)
			.hasMessageContaining("failed to release for 'held'")
			.hasCauseInstanceOf(MongoOperationTimeoutException.class);
		// the release and its one replay, each bounded by the time left (at least 1 s)
		assertThat(release.took()).isLessThan(LEASE.multipliedBy(2).plusSeconds(5));
	}

	@Test
	void aReleaseWhoseReplyIsLostIsMadeAgainAndReportedReleasedNotLost() throws Exception {
		Proxied proxied = proxied();
		String token = token();
		Lease lease = proxied.provider().tryAcquire(exclusive("lost-release", token, LEASE)).orElseThrow();
		proxied.proxy().dropReplyToNext("update");

		Outcome<Boolean> release = within(lease::release);
		assertThat(proxied.proxy().droppedReplies()).isOne();
		assertThat(release.error()).isNull();
		assertThat(release.value()).as("the release worked: not a lost lock").isTrue();
		assertThat(document("lost-release").containsKey("token")).isFalse();
		assertThat(document("lost-release").getString("released")).isEqualTo(token + " " + lease.fencingToken());
		assertThat(lease.release()).as("a later release of the spent lease answers as the first did").isTrue();
		assertThat(document("lost-release").containsKey("token")).isFalse();
	}

	@Test
	void sharedReleasesWhoseRepliesAreLostAreEachReportedReleasedAndAReaderForcedOutIsNot() throws Exception {
		Proxied proxied = proxied();
		String r1 = token();
		String r2 = token();
		Lease first = proxied.provider().tryAcquire(request("lost-shared", r1, LEASE, LockMode.SHARED, 3)).orElseThrow();
		// the second reader's lease outlasts the first reader's release, which waits for its lost reply up to the
		// time left on its lease
		Lease second = proxied.provider().tryAcquire(request("lost-shared", r2, LEASE.multipliedBy(4), LockMode.SHARED, 3))
			.orElseThrow();
		// long enough to outlast the two releases, each waiting for its lost reply up to the time left on its lease
		Lease third = proxied.provider().tryAcquire(request("lost-shared", token(), LONG, LockMode.SHARED, 3))
			.orElseThrow();

		proxied.proxy().dropReplyToNext("update");
		Outcome<Boolean> firstRelease = within(first::release);
		proxied.proxy().dropReplyToNext("update");
		Outcome<Boolean> secondRelease = within(second::release);
		assertThat(proxied.proxy().droppedReplies()).isEqualTo(2);
		assertThat(firstRelease.error()).isNull();
		assertThat(firstRelease.value()).as("the first reader's release worked: not a lost lock").isTrue();
		assertThat(secondRelease.error()).isNull();
		assertThat(secondRelease.value()).as("the second reader's release worked: not a lost lock").isTrue();
		assertThat(document("lost-shared").get("shared", Document.class)).as("only the third reader is left")
			.hasSize(1);
		assertThat(document("lost-shared").get("releasedShared", Document.class))
			.containsOnlyKeys(LockDocuments.holderField(r1), LockDocuments.holderField(r2));

		assertThat(provider.forceRelease("lost-shared")).isTrue();
		assertThat(third.release()).as("a reader forced out finds its lock lost").isFalse();
		Lease next = provider.tryAcquire(exclusive("lost-shared", token(), LEASE)).orElseThrow();
		assertThat(document("lost-shared").containsKey("releasedShared")).as("cleared by the next grant").isFalse();
		next.release();
	}

	@Test
	void anAcquireWhoseReplyIsLostIsReleasedByTokenBeforeTheErrorIsThrown() throws Exception {
		Proxied proxied = proxied();
		// The document exists and is free, so the first statement is the one that grants.
		proxied.provider().tryAcquire(exclusive("lost-reply", token(), LEASE)).orElseThrow().release();
		proxied.proxy().dropReplyToNext("findAndModify");

		String token = token();
		Outcome<Optional<Lease>> outcome = within(
				() -> proxied.provider().tryAcquire(exclusive("lost-reply", token, LEASE)));
		assertThat(proxied.proxy().droppedReplies()).isOne();
		assertThat(outcome.error()).isInstanceOf(LockStoreException.class)
			.hasMessageContaining("'lost-reply'")
			.hasCauseInstanceOf(MongoOperationTimeoutException.class);
		assertThat(document("lost-reply").getLong("seq")).as("the server did grant it").isEqualTo(2L);
		assertThat(document("lost-reply").containsKey("token")).as("and the clean-up released it").isFalse();
		assertThat(document("lost-reply").getString("released")).isEqualTo(token);
		assertThat(provider.isLocked("lost-reply")).isFalse();
		assertThat(grantableToAnother("lost-reply")).isTrue();
	}

	@Test
	void theCleanUpAfterALostAcquireReplyIsNotDefeatedByAnInterruptThatArrivedMeanwhile() throws Exception {
		Proxied proxied = proxied();
		proxied.provider().tryAcquire(exclusive("lost-intr", token(), LEASE)).orElseThrow().release();
		proxied.proxy().dropReplyToNext("findAndModify");

		AtomicReference<Throwable> error = new AtomicReference<>();
		AtomicBoolean flagAfter = new AtomicBoolean();
		Thread caller = new Thread(() -> {
			try {
				proxied.provider().tryAcquire(exclusive("lost-intr", token(), LEASE));
			}
			catch (RuntimeException ex) {
				error.set(ex);
			}
			finally {
				flagAfter.set(Thread.interrupted());
			}
		}, "seams-interrupted-caller");
		caller.start();
		long deadline = System.nanoTime() + HUNG.toNanos();
		while (proxied.proxy().droppedReplies() == 0) { // the grant ran on the server; its reply is gone
			assertThat(System.nanoTime()).as("reply dropped").isLessThan(deadline);
			Thread.sleep(10);
		}
		caller.interrupt();
		caller.join(HUNG.toMillis());
		assertThat(caller.isAlive()).as("the caller returned").isFalse();

		assertThat(error.get()).isInstanceOf(LockStoreException.class).hasMessageContaining("'lost-intr'");
		assertThat(flagAfter.get()).as("interrupt flag restored").isTrue();
		assertThat(document("lost-intr").getLong("seq")).isEqualTo(2L);
		assertThat(document("lost-intr").containsKey("token")).isFalse();
		assertThat(grantableToAnother("lost-intr")).isTrue();
	}

	@Test
	void startFindsAMongosRouterAndOnlyThen() {
		// The warning itself goes to commons-logging, which has no backend here (slf4j without a binding): the test
		// checks the finding that triggers it and the text it logs.
		assertThat(provider.routedThroughMongos()).as("mongo-java-server is no router").isFalse();
		try (MongoTestServer router = MongoTestServer.startInProcessReportingMongos();
				MongoLockProvider routed = new MongoLockProvider(router.template(), MongoLockSettings.defaults())) {
			assertThat(routed.routedThroughMongos()).as("before start").isFalse();
			routed.start();
			assertThat(routed.routedThroughMongos()).isTrue();
		}
		assertThat(MongoTopology.MONGOS_WARNING).contains("mongos", "$$NOW", "$currentDate", "docs/MONGO.md");
	}

}
