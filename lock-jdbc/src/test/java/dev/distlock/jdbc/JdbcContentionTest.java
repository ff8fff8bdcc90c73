package dev.distlock.jdbc;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import com.zaxxer.hikari.HikariDataSource;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.jdbc.testsupport.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Contention on real databases: no pool exhaustion, deadlock or serialisation error reaches a caller, an
 * unguarded read-sleep-write counter ends exact, and a release waiting for a pooled connection outlasts interrupts.
 */
class JdbcContentionTest {

	/** Waits generous enough for a loaded 2-core machine; none is a speed bound. */
	private static final Duration WAIT = Duration.ofMinutes(3);

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void fiftyWaitersOnAPoolOfTwoConnectionsAllGetTheLockInTurn(TestDatabase db) throws Exception {
		db.dataSource();
		try (HikariDataSource pool = db.pool(db.jdbcUrl(db.port()), 2)) {
			JdbcLockProvider provider = new JdbcLockProvider(pool, db.dialect(), JdbcLockSettings.defaults());
			LockTemplate template = LockTemplate.builder(provider).keyPrefix("pool2:" + System.nanoTime() + ":")
				.build();
			LockOptions options = LockOptions.builder().timeout(Duration.ofSeconds(30)).delay(Duration.ofMillis(20))
				.maxDelay(Duration.ofMillis(200)).waitUpTo(WAIT).build();
			int[] counter = { 0 };
			List<Throwable> errors = run(50, i -> template.execute("one", options, handle -> {
				int read = counter[0];
				pause();
				counter[0] = read + 1;
				return null;
			}));
			assertThat(errors).isEmpty();
			assertThat(counter[0]).isEqualTo(50);
			assertThat(pool.getHikariPoolMXBean().getActiveConnections()).isLessThanOrEqualTo(2);
			template.close();
			provider.close();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void thirtyTwoClientsOnOneKeyAndThirtyTwoOnDistinctKeysSeeNoDeadlock(TestDatabase db) throws Exception {
		db.dataSource();
		try (HikariDataSource pool = db.pool(db.jdbcUrl(db.port()), 16)) {
			JdbcLockProvider provider = new JdbcLockProvider(pool, db.dialect(), JdbcLockSettings.defaults());
			LockTemplate template = LockTemplate.builder(provider).keyPrefix("c64:" + System.nanoTime() + ":").build();
			LockOptions options = LockOptions.builder().timeout(Duration.ofSeconds(30)).delay(Duration.ofMillis(5))
				.maxDelay(Duration.ofMillis(100)).waitUpTo(WAIT).build();
			int rounds = 5;
			int[] hot = { 0 };
			int[] distinct = new int[32];
			List<Throwable> errors = run(64, i -> {
				for (int r = 0; r < rounds; r++) {
					if (i < 32) {
						template.execute("hot", options, handle -> {
							int read = hot[0];
							pause();
							hot[0] = read + 1;
							return null;
						});
					}
					else {
						int slot = i - 32;
						LockHandle handle = template.acquire("cold-" + slot, options);
						distinct[slot]++;
						handle.release();
					}
				}
				return null;
			});
			assertThat(errors).isEmpty();
			assertThat(hot[0]).isEqualTo(32 * rounds);
			for (int count : distinct) {
				assertThat(count).isEqualTo(rounds);
			}
			template.close();
			provider.close();
		}
	}

	/**
	 * A release whose thread is interrupted again and again while the pool has no connection to lend still releases
	 * once one is free, and keeps the flag. The pool gives up its wait on each interrupt; that is no store failure, and
	 * more interrupts than the template's own retries of an interrupted release used to fail it, leaving the lock held
	 * for the rest of its lease.
	 */
	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aReleaseInterruptedOftenWhileThePoolHasNoConnectionStillReleasesAndKeepsTheFlag(TestDatabase db)
			throws Exception {
		db.dataSource();
		try (HikariDataSource pool = db.pool(db.jdbcUrl(db.port()), 1)) {
			JdbcLockProvider provider = new JdbcLockProvider(pool, db.dialect(), JdbcLockSettings.defaults());
			LockTemplate template = LockTemplate.builder(provider).keyPrefix("borrow:" + System.nanoTime() + ":")
				.build();
			LockHandle handle = template.acquire("one", LockOptions.builder().timeout(Duration.ofMinutes(5)).build());
			AtomicReference<Throwable> error = new AtomicReference<>();
			AtomicBoolean flagKept = new AtomicBoolean();
			Thread releaser = new Thread(() -> {
				try {
					handle.release();
				}
				catch (Throwable ex) {
					error.set(ex);
				}
				flagKept.set(Thread.currentThread().isInterrupted());
			}, "releaser");
			try (Connection taken = pool.getConnection()) {
				releaser.start();
				for (int i = 0; i < 10 && releaser.isAlive(); i++) { // the template retries an interrupted release 3 times
					awaitWaitingForTheConnection(releaser);
					releaser.interrupt();
				}
				awaitWaitingForTheConnection(releaser);
				assertThat(releaser.isAlive()).as("release still waiting for the pool after the interrupts").isTrue();
			}
			releaser.join(WAIT.toMillis());
			assertThat(releaser.isAlive()).as("release still running").isFalse();
			assertThat(error.get()).as("release error").isNull();
			assertThat(flagKept.get()).as("interrupt flag kept").isTrue();
			assertThat(template.isLocked("one")).as("locked after the release").isFalse();
			template.close();
			provider.close();
		}
	}

	/**
	 * Waits until the thread waits with its interrupt flag clear (in the pool's wait for a connection, where the last
	 * interrupt was taken), or has ended.
	 */
	private static void awaitWaitingForTheConnection(Thread thread) throws InterruptedException {
		long deadline = System.nanoTime() + WAIT.toNanos();
		while (thread.isAlive() && !(thread.getState() == Thread.State.TIMED_WAITING && !thread.isInterrupted())) {
			assertThat(System.nanoTime() - deadline).as("the releaser waits for the pool").isNegative();
			Thread.sleep(5);
		}
	}

	/** The sleep in the unguarded read-sleep-write: another holder inside would overwrite the count. */
	private static void pause() {
		try {
			Thread.sleep(1);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private interface Client {

		Object run(int index) throws Exception;

	}

	private static List<Throwable> run(int clients, Client client) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(clients);
		CountDownLatch start = new CountDownLatch(1);
		ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
		List<Future<?>> futures = new ArrayList<>();
		for (int i = 0; i < clients; i++) {
			int index = i;
			futures.add(executor.submit(() -> {
				start.await();
				try {
					client.run(index);
				}
				catch (Throwable ex) {
					errors.add(ex);
				}
				return null;
			}));
		}
		start.countDown();
		for (Future<?> future : futures) {
			future.get(WAIT.toMinutes() + 1, TimeUnit.MINUTES);
		}
		executor.shutdownNow();
		return new ArrayList<>(errors);
	}

}
