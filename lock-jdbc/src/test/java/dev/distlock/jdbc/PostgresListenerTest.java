package dev.distlock.jdbc;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.springframework.jdbc.core.JdbcTemplate;

import com.zaxxer.hikari.HikariDataSource;

import dev.distlock.core.LockMode;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Acquisition;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.jdbc.testsupport.JdbcStoreInspector;
import dev.distlock.jdbc.testsupport.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One LISTEN connection per JVM and DataSource on PostgreSQL: providers on one DataSource share it, a release made
 * elsewhere wakes the waiters of each through it, and it is closed (listening to nothing) when the last provider closes.
 * When the server ends it, it is opened again and wakes waiters as before. The server's own view counts it: the
 * backends of a pool with its own {@code application_name} whose last statement was a LISTEN.
 */
class PostgresListenerTest {

	private static final TestDatabase DB = TestDatabase.POSTGRESQL;

	private static final OwnerDetails OWNER = new OwnerDetails("listener-test", "host");

	private static final String TABLE_CHANNEL = JdbcDialect.channel(JdbcLockSettings.DEFAULT_TABLE);

	/** Generous: the listener's connection opens within one poll, but the machine is loaded. */
	private static final Duration PATIENCE = Duration.ofMinutes(2);

	private static LockRequest exclusive(String key, Duration lease) {
		return new LockRequest(key, dev.distlock.core.internal.OwnerTokens.next(), lease, LockMode.EXCLUSIVE, 1, OWNER);
	}

	private static LockRequest shared(String key, Duration lease) {
		return new LockRequest(key, dev.distlock.core.internal.OwnerTokens.next(), lease, LockMode.SHARED, 4, OWNER);
	}

	@Test
	void aReleaseNobodyWaitsForSendsNoNotificationAndOneAWaitingWriterWaitsForSendsOne() throws Exception {
		String key = "listen:" + System.nanoTime();
		JdbcLockProvider holder = DB.provider(JdbcLockSettings.defaults());
		JdbcLockProvider other = DB.provider(JdbcLockSettings.defaults());
		try (HikariDataSource own = DB.pool(DB.jdbcUrl(DB.port()), 2); Connection listening = listening(own)) {
			Lease alone = holder.tryAcquire(exclusive(key, Duration.ofMinutes(5))).orElseThrow();
			assertThat(alone.release()).isTrue();
			assertThat(notifications(listening, key, Duration.ofSeconds(1))).as("a release nobody waited for").isZero();

			Lease held = settled(holder.tryAcquire(exclusive(key, Duration.ofMinutes(5))).orElseThrow());
			try (Acquisition waiting = other.begin(exclusive(key, Duration.ofSeconds(30)));
					Connection named = listening(own, namedChannel(other))) {
				assertThat(waiting.tryOnce()).isEmpty();
				assertThat(held.release()).isTrue();
				assertThat(notifications(named, key, PATIENCE)).as("a release a writer waited for, naming it")
					.isEqualTo(1);
				assertThat(grantedAfterWakeUps(waiting)).isTrue();
			}
		}
		finally {
			holder.close();
			other.close();
		}
	}

	@Test
	void aWaitingReaderIsWokenByTheWritersReleaseAndKeepsNoOtherReaderOut() throws Exception {
		String key = "listen:" + System.nanoTime();
		JdbcLockProvider writer = DB.provider(JdbcLockSettings.defaults());
		JdbcLockProvider readers = DB.provider(JdbcLockSettings.defaults());
		try (HikariDataSource own = DB.pool(DB.jdbcUrl(DB.port()), 1); Connection listening = listening(own)) {
			Lease held = settled(writer.tryAcquire(exclusive(key, Duration.ofMinutes(5))).orElseThrow());
			try (Acquisition waiting = readers.begin(shared(key, Duration.ofSeconds(30)))) {
				assertThat(waiting.tryOnce()).isEmpty();
				assertThat(held.release()).isTrue();
				assertThat(notifications(listening, key, PATIENCE)).as("the writer's release, a reader waiting")
					.isEqualTo(1);
				// A waiting reader's mark gives no writer priority: another reader is let in beside it.
				Lease another = readers.tryAcquire(shared(key, Duration.ofSeconds(30))).orElseThrow();
				assertThat(grantedAfterWakeUps(waiting)).as("the waiting reader, woken by the NOTIFY").isTrue();
				assertThat(another.release()).isTrue();
			}
		}
		finally {
			writer.close();
			readers.close();
		}
	}

	@Test
	void aReleaseNamesTheWaitingWriterThatMarkedFirstAndWakesOnlyItThenOneNamingNobodyWakesEveryWaiter() throws Exception {
		String application = "distlock-listen-" + System.nanoTime();
		String key = "listen:" + System.nanoTime();
		DataSource admin = DB.dataSource();
		JdbcLockProvider holder = DB.provider(JdbcLockSettings.defaults()); // another DataSource: wakes only by NOTIFY
		try (HikariDataSource pool = DB.pool(DB.jdbcUrl(DB.port()) + "?ApplicationName=" + application, 4);
				HikariDataSource own = DB.pool(DB.jdbcUrl(DB.port()), 2);
				Connection listening = listening(own)) {
			JdbcLockProvider waiters = new JdbcLockProvider(pool, JdbcDialect.POSTGRESQL, JdbcLockSettings.defaults());
			Lease held = settled(holder.tryAcquire(exclusive(key, Duration.ofMinutes(5))).orElseThrow());
			LockRequest firstRequest = exclusive(key, Duration.ofSeconds(30));
			LockRequest lastRequest = exclusive(key, Duration.ofSeconds(30));
			try (Acquisition first = waiters.begin(firstRequest); Acquisition last = waiters.begin(lastRequest);
					Connection named = listening(own, namedChannel(waiters))) {
				assertThat(first.tryOnce()).isEmpty();
				assertThat(last.tryOnce()).isEmpty();
				awaitListeners(admin, application, 1);
				Thread.sleep(1_000); // the opening of the LISTEN connection wakes every waiter once: consumed here
				first.awaitSignal(Duration.ofSeconds(10)); // a longer wait: the next mark lives 30 s, not 1 s
				last.awaitSignal(Duration.ofSeconds(10));
				assertThat(first.tryOnce()).isEmpty();
				assertThat(last.tryOnce()).isEmpty(); // the first's live mark stays: the first is the one named

				assertThat(held.release()).isTrue();
				String mark = PostgresListener.mark(waiters.wakeups().tag(), firstRequest.token());
				assertThat(payloads(named, key, PATIENCE)).as("the release names the writer that marked first")
					.containsExactly(mark + PostgresNotifications.NAMED + key);
				assertThat(payloads(listening, key, Duration.ofSeconds(1)))
					.as("sent to the named writer's LISTEN connection alone, not on the table's channel")
					.isEmpty();
				assertThat(first.awaitSignal(PATIENCE)).as("the named waiter, woken").isTrue();
				assertThat(last.awaitSignal(Duration.ZERO)).as("the waiter not named, not woken").isFalse();
				Acquisition.Granted granted = first.tryOnce().orElseThrow();

				// The grant withdrew the named writer's own mark: its release names nobody and wakes every waiter.
				assertThat(granted.lease().release()).isTrue();
				assertThat(payloads(listening, key, PATIENCE)).as("a release naming nobody").containsExactly(key);
				assertThat(grantedAfterWakeUps(last)).as("the waiter not named before, woken now").isTrue();
			}
			waiters.close();
		}
		finally {
			holder.close();
		}
	}

	@Test
	void aJvmWhoseOnlyWriterFindsAnotherNamedStopsListeningAndListensAgainWhenItsWriterMarks() throws Exception {
		String named = "distlock-listen-" + System.nanoTime();
		String other = "distlock-listen-" + System.nanoTime();
		String key = "listen:" + System.nanoTime();
		DataSource admin = DB.dataSource();
		JdbcLockProvider holder = DB.provider(JdbcLockSettings.defaults()); // another DataSource: wakes only by NOTIFY
		try (HikariDataSource poolA = DB.pool(DB.jdbcUrl(DB.port()) + "?ApplicationName=" + named, 4);
				HikariDataSource poolB = DB.pool(DB.jdbcUrl(DB.port()) + "?ApplicationName=" + other, 4)) {
			// Two JVMs as far as LISTEN goes: one listener per DataSource.
			JdbcLockProvider a = new JdbcLockProvider(poolA, JdbcDialect.POSTGRESQL, JdbcLockSettings.defaults());
			JdbcLockProvider b = new JdbcLockProvider(poolB, JdbcDialect.POSTGRESQL, JdbcLockSettings.defaults());
			Lease held = settled(holder.tryAcquire(exclusive(key, Duration.ofMinutes(5))).orElseThrow());
			try (Acquisition first = a.begin(exclusive(key, Duration.ofSeconds(30)));
					Acquisition second = b.begin(exclusive(key, Duration.ofSeconds(30)))) {
				assertThat(first.tryOnce()).isEmpty(); // marks the row: named
				assertThat(second.tryOnce()).isEmpty(); // finds the first's live mark and leaves it
				awaitListeners(admin, named, 1);
				PostgresListener listenerB = b.wakeups().listener();
				assertThat(listenerB).isNotNull();
				assertThat(listenerB.needing()).as("the writer not named needs no notifications").isZero();
				awaitListeners(admin, other, 0);
				assertThat(poolB.getHikariPoolMXBean().getActiveConnections())
					.as("its LISTEN connection stays borrowed, listening to nothing").isEqualTo(1);
				assertThat(listenerB.listening()).isFalse();
				assertThat(second.longestWait()).as("read at least this often, a release naming nobody may not wake it")
					.isEqualTo(JdbcAcquisition.NOT_NAMED_STEP);
				assertThat(first.longestWait()).as("the named writer waits for the release naming it").isNull();

				// The named writer gives up: its mark is withdrawn, and the other's next attempt marks the row.
				first.close();
				assertThat(second.tryOnce()).isEmpty();
				assertThat(listenerB.needing()).isEqualTo(1);
				assertThat(second.longestWait()).isNull();
				awaitListeners(admin, other, 1);
				assertThat(second.awaitSignal(PATIENCE)).as("woken once the LISTEN took effect").isTrue();

				assertThat(held.release()).isTrue();
				assertThat(grantedAfterWakeUps(second)).as("named now, woken by the release's NOTIFY").isTrue();
			}
			a.close();
			b.close();
			awaitListeners(admin, other, 0);
		}
		finally {
			holder.close();
		}
	}

	@Test
	void aWriterThatKnowsAnotherIsNamedStillWaitsItsStepsLongAfterTheNotificationsForItsOwnMarkEnded() throws Exception {
		String key = "listen:" + System.nanoTime();
		JdbcLockProvider holder = DB.provider(JdbcLockSettings.defaults());
		try (HikariDataSource poolA = DB.pool(DB.jdbcUrl(DB.port()), 4);
				HikariDataSource poolB = DB.pool(DB.jdbcUrl(DB.port()), 4)) {
			JdbcLockProvider a = new JdbcLockProvider(poolA, JdbcDialect.POSTGRESQL, JdbcLockSettings.defaults());
			JdbcLockProvider b = new JdbcLockProvider(poolB, JdbcDialect.POSTGRESQL, JdbcLockSettings.defaults());
			Lease held = settled(holder.tryAcquire(exclusive(key, Duration.ofMinutes(5))).orElseThrow());
			try (Acquisition first = a.begin(exclusive(key, Duration.ofSeconds(30)));
					Acquisition second = b.begin(exclusive(key, Duration.ofSeconds(30)))) {
				assertThat(first.tryOnce()).isEmpty(); // named
				renewLongMark(a, first); // a mark of 30 s, renewed below, so the first stays named throughout
				assertThat(second.tryOnce()).isEmpty(); // not named: its notifications would end 1 s + 30 s from now
				Thread.sleep(16_000);
				renewLongMark(a, first);
				Thread.sleep(16_000);

				// Past the end of the notifications a mark of its own would have had, it still waits each step. (A wake-up
				// left from its own LISTEN, when the listener took it while it counted itself in, is consumed first.)
				second.awaitSignal(Duration.ZERO);
				long waited = 0;
				for (int i = 0; i < 5; i++) {
					long started = System.nanoTime();
					assertThat(second.awaitSignal(JdbcAcquisition.NOT_NAMED_STEP)).isFalse();
					waited += System.nanoTime() - started;
					assertThat(second.tryOnce()).isEmpty();
				}
				assertThat(Duration.ofNanos(waited)).as("five whole steps, not a loop of statements")
					.isGreaterThanOrEqualTo(JdbcAcquisition.NOT_NAMED_STEP.multipliedBy(5));
				assertThat(held.release()).isTrue();
			}
			a.close();
			b.close();
		}
		finally {
			holder.close();
		}
	}

	/** Makes the named writer's next mark live 30 s (a long last wait) and rewrites it. */
	private static void renewLongMark(JdbcLockProvider provider, Acquisition named) throws InterruptedException {
		provider.wakeups().wakeAll();
		named.awaitSignal(Duration.ofSeconds(10)); // ends at once, on the wake-up
		assertThat(named.tryOnce()).isEmpty();
	}

	@Test
	void ofFourWaitingWritersOnlyTheNamedOneAttemptsAfterAReleaseAndTheOthersOnlyReadTheRowWithoutLockingIt()
			throws Exception {
		String application = "distlock-listen-" + System.nanoTime();
		String key = "listen:" + System.nanoTime();
		DataSource admin = DB.dataSource();
		JdbcLockProvider holder = DB.provider(JdbcLockSettings.defaults()); // another DataSource: wakes only by NOTIFY
		try (HikariDataSource pool = DB.pool(DB.jdbcUrl(DB.port()) + "?ApplicationName=" + application, 4)) {
			List<String> sent = java.util.Collections.synchronizedList(new ArrayList<>());
			JdbcLockProvider waiters = new JdbcLockProvider(recording(pool, sent), JdbcDialect.POSTGRESQL,
					JdbcLockSettings.defaults());
			Lease held = settled(holder.tryAcquire(exclusive(key, Duration.ofMinutes(5))).orElseThrow());
			List<Acquisition> waiting = new ArrayList<>();
			try {
				for (int i = 0; i < 4; i++) {
					waiting.add(waiters.begin(exclusive(key, Duration.ofSeconds(30))));
					assertThat(waiting.get(i).tryOnce()).isEmpty();
				}
				awaitListeners(admin, application, 1);
				Thread.sleep(1_000); // the opening of the LISTEN connection wakes the waiters there by then
				for (Acquisition each : waiting) {
					waiters.wakeups().wakeAll(); // so that the longer wait below ends at once
					each.awaitSignal(Duration.ofSeconds(10)); // a longer wait: the next mark lives 30 s, not 1 s
					assertThat(each.tryOnce()).isEmpty(); // the first mark stays while it lives: the first is named
				}
				for (Acquisition each : waiting) {
					each.awaitSignal(Duration.ZERO); // wake-ups left over from the above
				}

				assertThat(held.release()).isTrue();
				Acquisition named = waiting.get(0);
				assertThat(named.awaitSignal(PATIENCE)).as("the named waiter, woken").isTrue();
				sent.clear();
				Acquisition.Granted granted = named.tryOnce().orElseThrow();
				// Named, its attempt reads the row in its own snapshot (a holder that took the key again at once would
				// refuse it without the attempt queueing for the row lock), finds the key free, and attempts: one
				// statement, one round trip from the wake-up to the grant.
				assertThat(sent).as("the named writer's attempt, which reads the row first").hasSize(1);
				assertThat(sent.get(0)).startsWith("WITH");

				// Its grant withdrew its own mark. The others, woken with every waiter here (as when the LISTEN
				// connection opens again; a release naming nobody wakes the same way), read the row first: the first
				// finds no mark and marks the row again, in its usual attempt; the other two find it held and marked
				// and wait again, even with its row lock held by another transaction, which the usual attempt would
				// queue behind. (The long waits end at once, on the wake-up, and make the new mark live 30 s.)
				waiters.wakeups().wakeAll();
				sent.clear();
				assertThat(waiting.get(1).awaitSignal(Duration.ofSeconds(10))).isTrue();
				assertThat(waiting.get(1).tryOnce()).isEmpty();
				assertThat(sent).hasSize(2);
				assertThat(sent.get(0)).startsWith("SELECT");
				assertThat(sent.get(1)).startsWith("WITH");
				try (Connection locking = lockingKeyRow(admin, key)) {
					for (Acquisition other : waiting.subList(2, 4)) {
						sent.clear();
						assertThat(other.awaitSignal(Duration.ofSeconds(10))).isTrue();
						assertThat(other.tryOnce()).isEmpty();
						assertThat(sent).hasSize(1).allMatch(sql -> sql.startsWith("SELECT"));
					}
					locking.rollback();
				}

				// The next release names the writer that marked again.
				assertThat(granted.lease().release()).isTrue();
				assertThat(waiting.get(1).awaitSignal(PATIENCE)).as("named now").isTrue();
				assertThat(waiting.get(1).tryOnce()).hasValueSatisfying(
						next -> assertThat(next.lease().release()).isTrue());
			}
			finally {
				waiting.forEach(Acquisition::close);
			}
			waiters.close();
		}
		finally {
			holder.close();
		}
	}

	@Test
	void aNamedWriterWhoseHolderTookTheKeyAgainIsRefusedWithoutQueueingForTheRowLock() throws Exception {
		String application = "distlock-listen-" + System.nanoTime();
		String key = "listen:" + System.nanoTime();
		DataSource admin = DB.dataSource();
		JdbcLockProvider holder = DB.provider(JdbcLockSettings.defaults()); // another DataSource: wakes only by NOTIFY
		try (HikariDataSource pool = DB.pool(DB.jdbcUrl(DB.port()) + "?ApplicationName=" + application, 4)) {
			List<String> sent = java.util.Collections.synchronizedList(new ArrayList<>());
			JdbcLockProvider waiters = new JdbcLockProvider(recording(pool, sent), JdbcDialect.POSTGRESQL,
					JdbcLockSettings.defaults());
			LockRequest first = exclusive(key, Duration.ofMinutes(5));
			Lease held = settled(holder.tryAcquire(first).orElseThrow());
			try (Acquisition waiting = waiters.begin(exclusive(key, Duration.ofSeconds(30)))) {
				assertThat(waiting.tryOnce()).isEmpty();
				awaitListeners(admin, application, 1);
				Thread.sleep(1_000); // the opening of the LISTEN connection wakes the waiter once: consumed here
				waiting.awaitSignal(Duration.ofSeconds(10)); // a longer wait: the next mark lives 30 s, not 1 s
				assertThat(waiting.tryOnce()).isEmpty(); // its mark, live 30 s

				// The holder releases (naming the writer) and takes the key again before the writer wakes.
				assertThat(held.release()).isTrue();
				Lease again = holder.tryAcquire(exclusive(key, Duration.ofMinutes(5))).orElseThrow();
				assertThat(waiting.awaitSignal(PATIENCE)).as("the named writer, woken").isTrue();
				// Another transaction holds the key row's lock, as the holder's next release would. The writer's attempt
				// finds the key held in its snapshot and neither locks the row nor writes its mark, which lives: it
				// returns with the row lock still held by the other transaction (queued behind it, it would not).
				try (Connection locking = lockingKeyRow(admin, key)) {
					sent.clear();
					assertThat(waiting.tryOnce()).as("refused: held again, and its mark still lives").isEmpty();
					assertThat(sent).as("one statement, which read the row and left it unlocked").hasSize(1)
						.allMatch(sql -> sql.startsWith("WITH"));
					locking.rollback();
				}

				// Its attempt found a later grant than its mark did: the key cycles, and the named writer reads at its
				// own step instead of counting on notifications, until a read finds the same grant again.
				assertThat(waiting.longestWait()).isEqualTo(JdbcAcquisition.CYCLING_STEP);

				// The holder's next release names it again, and now the key is free: its next read finds it so.
				assertThat(again.release()).isTrue();
				waiting.awaitSignal(JdbcAcquisition.CYCLING_STEP);
				assertThat(waiting.tryOnce()).hasValueSatisfying(
						granted -> assertThat(granted.lease().release()).isTrue());
			}
			waiters.close();
		}
		finally {
			holder.close();
		}
	}

	@Test
	void aNamedWritersAttemptWhoseGrantRanButWhoseReplyWasLostIsGrantedAgainWithTheSameFencingToken()
			throws Exception {
		String key = "listen:" + System.nanoTime();
		JdbcLockProvider holder = DB.provider(JdbcLockSettings.defaults());
		JdbcLockProvider waiters = DB.provider(JdbcLockSettings.defaults());
		JdbcStoreInspector inspector = new JdbcStoreInspector(DB.dataSource(), DB.dialect(), JdbcLockSettings.DEFAULT_TABLE);
		try {
			Lease held = settled(holder.tryAcquire(exclusive(key, Duration.ofMinutes(5))).orElseThrow());
			LockRequest mine = exclusive(key, Duration.ofSeconds(30));
			try (Acquisition waiting = waiters.begin(mine)) {
				assertThat(waiting.tryOnce()).isEmpty(); // marks the row: named
				assertThat(waiting.longestWait()).as("named, it counts on notifications").isNull();

				// Its next attempt ran on the server and granted the key to its token, but the reply never came back
				// (the same statement from another connection stands in for it). The key is held, by this writer.
				assertThat(held.release()).isTrue();
				Lease lost = holder.tryAcquire(mine).orElseThrow();

				// The attempt that follows finds the key held in its snapshot, by its own token: it attempts, and the
				// grant answers as the first did, instead of waiting out its own lease.
				Acquisition.Granted granted = waiting.tryOnce().orElseThrow();
				assertThat(granted.lease().fencingToken()).isEqualTo(lost.fencingToken());
				assertThat(granted.lease().release()).isTrue();
				assertThat(inspector.held(key)).as("nothing left held").isEmpty();
			}
		}
		finally {
			waiters.close();
			holder.close();
		}
	}

	@Test
	void aNamedWriterWhoseKeyCyclesReadsAtItsOwnStepWithoutListeningAndListensAgainOnceTheHolderHoldsOn()
			throws Exception {
		String application = "distlock-listen-" + System.nanoTime();
		String key = "listen:" + System.nanoTime();
		DataSource admin = DB.dataSource();
		JdbcLockProvider holder = DB.provider(JdbcLockSettings.defaults()); // another DataSource: wakes only by NOTIFY
		try (HikariDataSource pool = DB.pool(DB.jdbcUrl(DB.port()) + "?ApplicationName=" + application, 4)) {
			JdbcLockProvider waiters = new JdbcLockProvider(pool, JdbcDialect.POSTGRESQL, JdbcLockSettings.defaults());
			Lease held = settled(holder.tryAcquire(exclusive(key, Duration.ofMinutes(5))).orElseThrow());
			try (Acquisition waiting = waiters.begin(exclusive(key, Duration.ofSeconds(30)))) {
				assertThat(waiting.tryOnce()).isEmpty(); // marks the row: named, and counts on notifications
				assertThat(waiting.longestWait()).isNull();
				awaitListeners(admin, application, 1);
				waiters.wakeups().wakeAll(); // so that the longer wait below ends at once
				waiting.awaitSignal(Duration.ofSeconds(10)); // a longer wait: the next mark lives 30 s, not 1 s
				assertThat(waiting.tryOnce()).isEmpty();
				waiting.awaitSignal(Duration.ZERO); // a wake-up left from the LISTEN, if the listener took it late

				// The key changes hands again before the named writer's read: its read finds a later grant.
				assertThat(held.release()).isTrue();
				Lease again = holder.tryAcquire(exclusive(key, Duration.ofMinutes(5))).orElseThrow();
				assertThat(waiting.awaitSignal(PATIENCE)).as("named by the release").isTrue();
				assertThat(waiting.tryOnce()).isEmpty();
				assertThat(waiting.longestWait()).as("reads at its own step").isEqualTo(JdbcAcquisition.CYCLING_STEP);
				assertThat(waiters.wakeups().listener().needing()).isZero();
				awaitListeners(admin, application, 0);

				// Once more: still cycling, still not listening.
				assertThat(again.release()).isTrue();
				Lease third = holder.tryAcquire(exclusive(key, Duration.ofMinutes(5))).orElseThrow();
				waiting.awaitSignal(JdbcAcquisition.CYCLING_STEP);
				assertThat(waiting.tryOnce()).isEmpty();
				assertThat(waiting.longestWait()).isEqualTo(JdbcAcquisition.CYCLING_STEP);
				assertThat(listeners(admin, application)).isZero();

				// The holder holds on: the next read finds the same grant, and the writer counts on notifications.
				waiting.awaitSignal(JdbcAcquisition.CYCLING_STEP);
				assertThat(waiting.tryOnce()).isEmpty();
				assertThat(waiting.longestWait()).isNull();
				assertThat(waiters.wakeups().listener().needing()).isEqualTo(1);
				awaitListeners(admin, application, 1);
				assertThat(third.release()).isTrue();
				assertThat(grantedAfterWakeUps(waiting)).as("woken by the release's NOTIFY").isTrue();
			}
			waiters.close();
		}
		finally {
			holder.close();
		}
	}

	@Test
	void aWaiterThatCountsItselfInAfterAnotherStartedTheListenWakesItselfAndOneThatFoundItListeningThroughoutDoesNot()
			throws Exception {
		String application = "distlock-listen-" + System.nanoTime();
		DataSource admin = DB.dataSource();
		try (HikariDataSource pool = DB.pool(DB.jdbcUrl(DB.port()) + "?ApplicationName=" + application, 4)) {
			JdbcLockProvider provider = new JdbcLockProvider(pool, JdbcDialect.POSTGRESQL, JdbcLockSettings.defaults());
			Wakeups wakeups = provider.wakeups();
			String token = dev.distlock.core.internal.OwnerTokens.next();
			// A writer before its statements, not counting itself in: nobody needs the connection, it listens to nothing.
			Wakeups.Waiter writer = wakeups.register("listen:w:" + System.nanoTime(), token, false);
			writer.beforeStatements();
			// Another waiter of the JVM counts itself in: the connection LISTENs, and wakes the waiters counted in then.
			Wakeups.Waiter reader = wakeups.register("listen:r:" + System.nanoTime(), token, true);
			awaitListeners(admin, application, 1);
			assertThat(reader.await(PATIENCE)).as("woken once the LISTEN took effect").isTrue();
			// The writer's statement named it meanwhile, as far as it knows: a release then went unheard. Counting
			// itself in now starts no LISTEN (the connection listens), so it wakes itself.
			writer.listens(true);
			assertThat(writer.await(Duration.ZERO)).as("woken at once").isTrue();

			// A writer whose statements all ran while the connection listened is not woken by its count.
			Wakeups.Waiter later = wakeups.register("listen:l:" + System.nanoTime(), token, false);
			later.beforeStatements();
			later.listens(true);
			assertThat(later.await(Duration.ZERO)).as("a release naming it reached the connection").isFalse();
			writer.close();
			reader.close();
			later.close();
			provider.close();
		}
	}

	@Test
	void aWriterNamedWithinAStepOfTheHoldersGrantStartsOutReadingAtItsStepAndListensOnceTheHolderHoldsOn()
			throws Exception {
		String application = "distlock-listen-" + System.nanoTime();
		String key = "listen:" + System.nanoTime();
		DataSource admin = DB.dataSource();
		JdbcLockProvider holder = DB.provider(JdbcLockSettings.defaults()); // another DataSource: wakes only by NOTIFY
		try (HikariDataSource pool = DB.pool(DB.jdbcUrl(DB.port()) + "?ApplicationName=" + application, 4)) {
			JdbcLockProvider waiters = new JdbcLockProvider(pool, JdbcDialect.POSTGRESQL, JdbcLockSettings.defaults());
			Lease held = holder.tryAcquire(exclusive(key, Duration.ofMinutes(5))).orElseThrow();
			// However long the statements below take here, the database's clock says the holder was granted within
			// the last step (the key has just changed hands).
			new JdbcTemplate(admin).update("UPDATE " + JdbcLockSettings.DEFAULT_TABLE
					+ " SET acquired_at = clock_timestamp() + INTERVAL '1 hour' WHERE lock_key = ?", key);
			try (Acquisition waiting = waiters.begin(exclusive(key, Duration.ofSeconds(30)))) {
				assertThat(waiting.tryOnce()).isEmpty(); // marks the row: named
				assertThat(waiting.longestWait()).as("reads at its own step from the start")
					.isEqualTo(JdbcAcquisition.CYCLING_STEP);
				assertThat(waiters.wakeups().listener().needing()).as("no LISTEN for it").isZero();

				// The holder holds on: the first read finds the grant the mark found.
				waiting.awaitSignal(JdbcAcquisition.CYCLING_STEP);
				assertThat(waiting.tryOnce()).isEmpty();
				assertThat(waiting.longestWait()).isNull();
				awaitListeners(admin, application, 1);
				assertThat(held.release()).isTrue();
				assertThat(grantedAfterWakeUps(waiting)).as("woken by the release's NOTIFY").isTrue();
			}
			waiters.close();
		}
		finally {
			holder.close();
		}
	}

	/**
	 * The lease, once it was granted more than {@link JdbcAcquisition#CYCLING_STEP} ago: a writer that marks the key's
	 * row within one step of the holder's grant starts out reading the row at its own step (the key has just changed
	 * hands, as it does again and again while it cycles), and the tests that take this lease are about a writer that
	 * counts on notifications. A sleep only ever makes the grant older, however loaded the machine.
	 */
	private static Lease settled(Lease lease) throws InterruptedException {
		Thread.sleep(2 * JdbcAcquisition.CYCLING_STEP.toMillis());
		return lease;
	}

	/** A connection whose open transaction holds the lock of the key's row; roll it back to let go. */
	private static Connection lockingKeyRow(DataSource admin, String key) throws Exception {
		Connection locking = admin.getConnection();
		locking.setAutoCommit(false);
		try (var statement = locking.prepareStatement("SELECT 1 FROM " + JdbcLockSettings.DEFAULT_TABLE
				+ " WHERE lock_key = ? FOR UPDATE")) {
			statement.setString(1, key);
			statement.executeQuery().close();
		}
		return locking;
	}

	/** The DataSource, recording the text of every statement prepared on its connections by the calling thread. */
	private static DataSource recording(HikariDataSource pool, List<String> sent) {
		Thread caller = Thread.currentThread();
		return (DataSource) java.lang.reflect.Proxy.newProxyInstance(PostgresListenerTest.class.getClassLoader(),
				new Class<?>[] { DataSource.class }, (proxy, method, args) -> {
					Object result = invoke(pool, method, args);
					if (!(result instanceof Connection connection)) {
						return result;
					}
					return java.lang.reflect.Proxy.newProxyInstance(PostgresListenerTest.class.getClassLoader(),
							new Class<?>[] { Connection.class }, (p, m, a) -> {
								// Only the caller's own: the LISTEN connection runs on a thread of its own.
								if (m.getName().equals("prepareStatement") && Thread.currentThread() == caller) {
									sent.add(((String) a[0]).trim());
								}
								return invoke(connection, m, a);
							});
				});
	}

	private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (java.lang.reflect.InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

	@Test
	void aNamedWriterThatIsGoneStrandsNoOtherWaiterWhichTakesTheLockAtItsOwnTimer() throws Exception {
		String application = "distlock-listen-" + System.nanoTime();
		String key = "listen:" + System.nanoTime();
		DataSource admin = DB.dataSource();
		JdbcLockProvider holder = DB.provider(JdbcLockSettings.defaults());
		try (HikariDataSource pool = DB.pool(DB.jdbcUrl(DB.port()) + "?ApplicationName=" + application, 4)) {
			JdbcLockProvider waiters = new JdbcLockProvider(pool, JdbcDialect.POSTGRESQL, JdbcLockSettings.defaults());
			Lease held = settled(holder.tryAcquire(exclusive(key, Duration.ofMinutes(5))).orElseThrow());
			try (Acquisition waiting = waiters.begin(exclusive(key, Duration.ofSeconds(30)))) {
				assertThat(waiting.tryOnce()).isEmpty();
				awaitListeners(admin, application, 1);
				Thread.sleep(1_000);
				waiting.awaitSignal(Duration.ZERO);
				// A writer of a JVM that died while waiting: its mark outlives it, and the release names it.
				new JdbcTemplate(admin).update("UPDATE " + JdbcLockSettings.DEFAULT_TABLE + " SET waiter = 'gone', "
						+ "waiter_until = clock_timestamp() + INTERVAL '30 seconds' WHERE lock_key = ?",
						key);

				assertThat(held.release()).isTrue();
				assertThat(waiting.awaitSignal(Duration.ofMillis(200))).as("not named: no wake-up").isFalse();
				assertThat(waiting.tryOnce()).as("taken at its own timer").hasValueSatisfying(
						granted -> assertThat(granted.lease().release()).isTrue());
			}
			waiters.close();
		}
		finally {
			holder.close();
		}
	}

	@Test
	void namedPayloadsCarryKeysOfAnyUnicodeTextUpToTheLongestKey() throws Exception {
		String emoji = "\uD83D\uDE00";
		String odd = "listen:" + System.nanoTime() + ":\u00FC\u540D \u202E\u05D0\u200D\uFEFF\uFFFD '\"\\%_!" + emoji
				+ "e\u0301";
		int room = dev.distlock.core.LockKeys.MAX_LENGTH - odd.length();
		String longest = odd + emoji.repeat(room / 2) + "z".repeat(room % 2); // 512 characters, mostly 4-byte ones
		JdbcLockProvider holder = DB.provider(JdbcLockSettings.defaults());
		JdbcLockProvider waiters = DB.provider(JdbcLockSettings.defaults());
		try (HikariDataSource own = DB.pool(DB.jdbcUrl(DB.port()), 1); Connection listening = listening(own)) {
			for (String key : new String[] { odd, longest }) {
				dev.distlock.core.LockKeys.validate(key);
				Lease held = settled(holder.tryAcquire(exclusive(key, Duration.ofMinutes(5))).orElseThrow());
				LockRequest request = exclusive(key, Duration.ofSeconds(30));
				try (Acquisition waiting = waiters.begin(request)) {
					try (var statement = listening.createStatement()) {
						statement.execute("LISTEN " + namedChannel(waiters));
					}
					assertThat(waiting.tryOnce()).isEmpty();
					assertThat(held.release()).isTrue();
					List<String> payloads = payloads(listening, key, PATIENCE);
					String mark = PostgresListener.mark(waiters.wakeups().tag(), request.token());
					assertThat(payloads).containsExactly(mark + PostgresNotifications.NAMED + key);
					PostgresNotifications.Notification read = PostgresNotifications.Notification.of("t", payloads.get(0));
					assertThat(read.key()).isEqualTo(key);
					assertThat(read.token()).isEqualTo(mark);
					assertThat(grantedAfterWakeUps(waiting)).isTrue();
				}
			}
		}
		finally {
			holder.close();
			waiters.close();
		}
	}

	/** The payloads of the notifications for the key that arrive on the connection within the time (once one came). */
	private static List<String> payloads(Connection connection, String key, Duration within) throws Exception {
		PGConnection pg = connection.unwrap(PGConnection.class);
		long deadline = System.nanoTime() + within.toNanos();
		List<String> payloads = new ArrayList<>();
		do {
			PGNotification[] arrived = pg.getNotifications(100);
			for (PGNotification notification : arrived != null ? arrived : new PGNotification[0]) {
				if (key.equals(PostgresNotifications.Notification
					.of(notification.getName(), notification.getParameter())
					.key())) {
					payloads.add(notification.getParameter());
				}
			}
		}
		while (payloads.isEmpty() && System.nanoTime() - deadline < 0);
		return payloads;
	}

	/** A connection of a pool of its own (not the shared one others borrow from), listening to the table's channel. */
	private static Connection listening(DataSource own) throws Exception {
		return listening(own, TABLE_CHANNEL);
	}

	/** A connection of the pool listening to the channel. */
	private static Connection listening(DataSource own, String channel) throws Exception {
		Connection connection = own.getConnection();
		try (var statement = connection.createStatement()) {
			statement.execute("LISTEN " + channel);
		}
		return connection;
	}

	/** The channel of releases naming a waiting writer of the provider's LISTEN connection. */
	private static String namedChannel(JdbcLockProvider provider) {
		return PostgresListener.namedChannel(TABLE_CHANNEL, provider.wakeups().tag());
	}

	/** The notifications for the key that arrive on the connection within the time (all of them, once one came). */
	private static int notifications(Connection connection, String key, Duration within) throws Exception {
		PGConnection pg = connection.unwrap(PGConnection.class);
		long deadline = System.nanoTime() + within.toNanos();
		int count = 0;
		do {
			PGNotification[] arrived = pg.getNotifications(100);
			for (PGNotification notification : arrived != null ? arrived : new PGNotification[0]) {
				count += key.equals(PostgresNotifications.Notification
					.of(notification.getName(), notification.getParameter())
					.key()) ? 1 : 0;
			}
		}
		while (count == 0 && System.nanoTime() - deadline < 0);
		return count;
	}

	@Test
	void twoProvidersOnOneDataSourceShareOneListenConnectionThatWakesBothAndClosesWithTheLast() throws Exception {
		String application = "distlock-listen-" + System.nanoTime();
		String prefix = "listen:" + System.nanoTime() + ":";
		DataSource admin = DB.dataSource();
		JdbcLockProvider holder = DB.provider(JdbcLockSettings.defaults()); // another DataSource: wakes only by NOTIFY
		try (HikariDataSource pool = DB.pool(DB.jdbcUrl(DB.port()) + "?ApplicationName=" + application, 6)) {
			JdbcLockProvider first = new JdbcLockProvider(pool, JdbcDialect.POSTGRESQL, JdbcLockSettings.defaults());
			JdbcLockProvider second = new JdbcLockProvider(pool, JdbcDialect.POSTGRESQL, JdbcLockSettings.defaults());
			Lease a = settled(holder.tryAcquire(exclusive(prefix + "a", Duration.ofMinutes(5))).orElseThrow());
			Lease b = settled(holder.tryAcquire(exclusive(prefix + "b", Duration.ofMinutes(5))).orElseThrow());
			try (Acquisition waitingA = first.begin(exclusive(prefix + "a", Duration.ofSeconds(30)));
					Acquisition waitingB = second.begin(exclusive(prefix + "b", Duration.ofSeconds(30)))) {
				assertThat(waitingA.tryOnce()).isEmpty();
				assertThat(waitingB.tryOnce()).isEmpty();

				awaitListeners(admin, application, 1);
				Thread.sleep(1_000); // a second connection, if one were opened, would show by now
				assertThat(listeners(admin, application)).isEqualTo(1);
				// Its opening woke each waiter once (releases before the LISTEN are unknown): consumed here.
				waitingA.awaitSignal(Duration.ZERO);
				waitingB.awaitSignal(Duration.ZERO);

				assertThat(a.release()).isTrue();
				assertThat(b.release()).isTrue();
				assertThat(grantedAfterWakeUps(waitingA)).as("the first provider's waiter, woken by NOTIFY").isTrue();
				assertThat(grantedAfterWakeUps(waitingB)).as("the second provider's waiter, woken by NOTIFY").isTrue();
			}

			// Nobody waits now: the connection listens to nothing (PostgreSQL signals every listening backend on each
			// notifying commit), and stays borrowed while a provider lives.
			awaitListeners(admin, application, 0);
			first.close();
			Thread.sleep(1_000);
			assertThat(pool.getHikariPoolMXBean().getActiveConnections())
				.as("still borrowed while the second provider lives").isEqualTo(1);
			second.close();
			awaitListeners(admin, application, 0);
			long deadline = System.nanoTime() + PATIENCE.toNanos();
			while (pool.getHikariPoolMXBean().getActiveConnections() > 0 && System.nanoTime() - deadline < 0) {
				Thread.sleep(50);
			}
			assertThat(pool.getHikariPoolMXBean().getActiveConnections()).as("the LISTEN connection given back")
				.isZero();
		}
		finally {
			holder.close();
		}
	}

	@Test
	void aProviderWithoutWaitersOpensNoListenConnection() throws Exception {
		String application = "distlock-listen-" + System.nanoTime();
		String key = "listen:" + System.nanoTime();
		try (HikariDataSource pool = DB.pool(DB.jdbcUrl(DB.port()) + "?ApplicationName=" + application, 2)) {
			DB.dataSource();
			JdbcLockProvider provider = new JdbcLockProvider(pool, JdbcDialect.POSTGRESQL, JdbcLockSettings.defaults());
			Lease lease = provider.tryAcquire(exclusive(key, Duration.ofSeconds(30))).orElseThrow();
			assertThat(lease.release()).isTrue();
			Thread.sleep(500);
			assertThat(listeners(DB.dataSource(), application)).isZero();
			provider.close();
		}
	}

	@Test
	void aListenConnectionTheServerEndsIsOpenedAgainAndWakesWaitersAfterwards() throws Exception {
		String application = "distlock-listen-" + System.nanoTime();
		String key = "listen:" + System.nanoTime();
		DataSource admin = DB.dataSource();
		JdbcLockProvider holder = DB.provider(JdbcLockSettings.defaults());
		try (HikariDataSource pool = DB.pool(DB.jdbcUrl(DB.port()) + "?ApplicationName=" + application, 4)) {
			JdbcLockProvider waiter = new JdbcLockProvider(pool, JdbcDialect.POSTGRESQL, JdbcLockSettings.defaults());
			Lease held = settled(holder.tryAcquire(exclusive(key, Duration.ofMinutes(5))).orElseThrow());
			try (Acquisition waiting = waiter.begin(exclusive(key, Duration.ofSeconds(30)))) {
				assertThat(waiting.tryOnce()).isEmpty();
				awaitListeners(admin, application, 1);
				waiting.awaitSignal(Duration.ZERO);

				JdbcTemplate jdbc = new JdbcTemplate(admin);
				int first = jdbc.queryForObject("SELECT pid FROM pg_stat_activity WHERE application_name = ? "
						+ "AND query ILIKE 'listen%'", Integer.class, application);
				assertThat(jdbc.queryForObject("SELECT pg_terminate_backend(?)", Boolean.class, first)).isTrue();
				// The break wakes the waiter (a release may have gone unseen), and the connection is opened again.
				assertThat(waiting.awaitSignal(PATIENCE)).isTrue();
				long deadline = System.nanoTime() + PATIENCE.toNanos();
				while (jdbc.queryForObject("SELECT count(*) FROM pg_stat_activity WHERE application_name = ? AND "
						+ "query ILIKE 'listen%' AND pid <> ?", Integer.class, application, first) != 1
						&& System.nanoTime() - deadline < 0) {
					Thread.sleep(50);
				}
				awaitListeners(admin, application, 1);
				waiting.awaitSignal(Duration.ZERO);

				assertThat(held.release()).isTrue();
				assertThat(grantedAfterWakeUps(waiting)).as("woken after the release, through the new connection")
					.isTrue();
			}
			waiter.close();
			awaitListeners(admin, application, 0);
		}
		finally {
			holder.close();
		}
	}

	/** Waits for wake-ups until a try is granted; false if no wake-up came within the patience. */
	private static boolean grantedAfterWakeUps(Acquisition waiting) throws InterruptedException {
		for (int i = 0; i < 5; i++) {
			if (!waiting.awaitSignal(PATIENCE)) {
				return false;
			}
			Optional<Acquisition.Granted> granted = waiting.tryOnce();
			if (granted.isPresent()) {
				assertThat(granted.get().lease().release()).isTrue();
				return true;
			}
		}
		return false;
	}

	private static void awaitListeners(DataSource admin, String application, int expected) throws Exception {
		long deadline = System.nanoTime() + PATIENCE.toNanos();
		while (listeners(admin, application) != expected && System.nanoTime() - deadline < 0) {
			Thread.sleep(50);
		}
		assertThat(listeners(admin, application)).isEqualTo(expected);
	}

	/** The server's backends of the application whose last statement was a LISTEN. */
	private static int listeners(DataSource admin, String application) throws Exception {
		try (var connection = admin.getConnection();
				var statement = connection.prepareStatement("SELECT count(*) FROM pg_stat_activity "
						+ "WHERE application_name = ? AND query ILIKE 'listen%'")) {
			statement.setString(1, application);
			try (var rs = statement.executeQuery()) {
				rs.next();
				return rs.getInt(1);
			}
		}
	}

}
