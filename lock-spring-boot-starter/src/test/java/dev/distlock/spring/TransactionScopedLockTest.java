package dev.distlock.spring;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.autoconfigure.TransactionScopedLocksAutoConfiguration;
import dev.distlock.core.FailureMode;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockOptions;
import dev.distlock.jdbc.TransactionScopedLocks;
import dev.distlock.jdbc.testsupport.PostgresTestServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code @DistributedLock(transactionScoped = true)} on a real PostgreSQL: the lock is the method's transaction's
 * advisory lock, taken inside its {@code @Transactional} although the lock advice goes first by default, held until
 * the transaction ends and by nobody after; without a transaction the method does not run; the failure modes and the
 * startup checks are those of any lock.
 */
class TransactionScopedLockTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class,
				TransactionScopedLocksAutoConfiguration.class))
		.withPropertyValues("distributed-lock.provider=in-memory")
		.withUserConfiguration(PostgresConfig.class);

	static DataSource postgres() {
		PostgresTestServer server = PostgresTestServer.shared();
		return new DriverManagerDataSource(server.jdbcUrl(), server.user(), "");
	}

	@Test
	void transactionsOnOneKeyNeverOverlapAndEachHoldsTheLockOnItsOwnConnection() {
		runner.withUserConfiguration(AccountsConfig.class).run(context -> {
			Accounts accounts = context.getBean(Accounts.class);
			ExecutorService pool = Executors.newFixedThreadPool(4);
			try {
				List<Future<?>> calls = new ArrayList<>();
				for (int i = 0; i < 4; i++) {
					calls.add(pool.submit(() -> {
						for (int round = 0; round < 10; round++) {
							accounts.settle(7L);
						}
						return null;
					}));
				}
				for (Future<?> call : calls) {
					call.get(5, TimeUnit.MINUTES);
				}
			}
			finally {
				pool.shutdownNow();
			}
			assertThat(accounts.settled()).isEqualTo(40);
			assertThat(accounts.overlaps()).isZero();
			// In every body the transaction's own backend held the key's advisory lock.
			assertThat(accounts.heldByOwnBackend()).isEqualTo(40);
			assertThat(advisoryLocksHeld(context.getBean(DataSource.class), "account:7")).isZero();
		});
	}

	@Test
	void theLockIsTakenInsideTheMethodsTransactionAndReleasedByItsRollback() {
		runner.withUserConfiguration(AccountsConfig.class).run(context -> {
			Accounts accounts = context.getBean(Accounts.class);
			assertThatThrownBy(() -> accounts.failToSettle(8L)).isInstanceOf(IllegalStateException.class)
				.hasMessage("boom");
			assertThat(accounts.heldByOwnBackend()).isEqualTo(1);
			assertThat(advisoryLocksHeld(context.getBean(DataSource.class), "account:8")).isZero();
			// Nothing of it is in the lock store: the transaction was the lock.
			assertThat(context.getBean(dev.distlock.core.LockTemplate.class).isLocked("account:8")).isFalse();
		});
	}

	@Test
	void withoutATransactionTheMethodDoesNotRunAndTheErrorSaysWhy() {
		runner.withUserConfiguration(AccountsConfig.class).run(context -> {
			Accounts accounts = context.getBean(Accounts.class);
			assertThatThrownBy(() -> accounts.settleOutsideATransaction(9L))
				.isInstanceOf(IllegalTransactionStateException.class)
				.hasMessageContaining("account:9")
				.hasMessageContaining("needs an active transaction");
			assertThat(accounts.settled()).isZero();
		});
	}

	@Test
	void aKeyHeldByAnotherTransactionSkipsOrThrowsWithoutRunningTheMethod() throws Exception {
		runner.withUserConfiguration(AccountsConfig.class).run(context -> {
			Accounts accounts = context.getBean(Accounts.class);
			try (Connection other = context.getBean(DataSource.class).getConnection()) {
				holdInOpenTransaction(other, "account:10");
				assertThat(accounts.trySettle(10L)).isNull();
				assertThatThrownBy(() -> accounts.settleOrThrow(10L)).isInstanceOf(LockAcquisitionException.class)
					.hasMessageContaining("account:10")
					.hasMessageContaining("held by another transaction");
				assertThat(accounts.settled()).isZero();
				other.rollback();
			}
			assertThat(accounts.trySettle(10L)).isEqualTo("settled");
			assertThat(accounts.settled()).isEqualTo(1);
		});
	}

	@Test
	void aWaitingCallIsGrantedWhenTheHoldingTransactionCommits() throws Exception {
		runner.withUserConfiguration(AccountsConfig.class).run(context -> {
			Accounts accounts = context.getBean(Accounts.class);
			try (Connection other = context.getBean(DataSource.class).getConnection()) {
				holdInOpenTransaction(other, "account:11");
				CompletableFuture<Void> call = CompletableFuture.runAsync(() -> accounts.settle(11L));
				awaitWaiting(context.getBean(DataSource.class));
				assertThat(call).isNotDone();
				assertThat(accounts.settled()).isZero();
				other.commit();
				call.get(1, TimeUnit.MINUTES);
			}
			assertThat(accounts.settled()).isEqualTo(1);
		});
	}

	@Test
	void aGroupLocksEveryKeyInTheTransaction() {
		runner.withUserConfiguration(AccountsConfig.class).run(context -> {
			Accounts accounts = context.getBean(Accounts.class);
			assertThat(accounts.transfer(12L, 13L)).isEqualTo(2);
			assertThat(advisoryLocksHeld(context.getBean(DataSource.class), "account:12")).isZero();
		});
	}

	@Test
	void attributesOfALeaseAndResultsOfAnotherThreadFailStartupNamingTheMethod() {
		runner.withBean(LeaseHolder.class).run(context -> assertThat(cause(context.getStartupFailure()))
			.isInstanceOf(LockAnnotationException.class)
			.hasMessageContaining("withTimeout")
			.hasMessageContaining("remove timeout, autoRenew"));
		runner.withBean(FutureHolder.class).run(context -> assertThat(cause(context.getStartupFailure()))
			.isInstanceOf(LockAnnotationException.class)
			.hasMessageContaining("later")
			.hasMessageContaining("not a CompletableFuture or CompletionStage"));
	}

	@Test
	void withoutTheTransactionScopedLocksBeanStartupFailsNamingIt() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class,
					TransactionScopedLocksAutoConfiguration.class))
			.withPropertyValues("distributed-lock.provider=in-memory")
			.withBean(PlainHolder.class)
			.run(context -> assertThat(cause(context.getStartupFailure()))
				.isInstanceOf(LockAnnotationException.class)
				.hasMessageContaining("TransactionScopedLocks bean"));
	}

	@Test
	void onAnInterfaceProxyTheLockIsStillTakenInsideTheMethodsTransaction() {
		runner.withPropertyValues("spring.aop.proxy-target-class=false")
			.withUserConfiguration(InterfaceConfig.class)
			.run(context -> {
				Ledger ledger = context.getBean(Ledger.class);
				assertThat(org.springframework.aop.support.AopUtils.isJdkDynamicProxy(ledger)).isTrue();
				assertThat(ledger.post(14L)).as("the key's lock, held by the transaction's own backend").isEqualTo(1);
				assertThatThrownBy(() -> ledger.postOutsideATransaction(14L))
					.isInstanceOf(IllegalTransactionStateException.class);
				assertThat(advisoryLocksHeld(context.getBean(DataSource.class), "account:14")).isZero();
			});
	}

	@Test
	void aProxyWithoutTheInnerAdvisorTakesTheLockInTheOuterAdviceAndNeverRunsTheMethodUnlocked() {
		runner.withUserConfiguration(AccountsConfig.class).run(context -> {
			DataSource dataSource = context.getBean(DataSource.class);
			// The lock advice alone, as on a proxy that could not take the inner advisor.
			org.springframework.aop.framework.ProxyFactory factory = new org.springframework.aop.framework.ProxyFactory(
					new Accounts(dataSource));
			factory.setProxyTargetClass(true);
			factory.addAdvice(new DistributedLockInterceptor(() -> context.getBean(dev.distlock.core.LockTemplate.class),
					null, null, context.getBeanFactory()));
			Accounts accounts = (Accounts) factory.getProxy();
			org.springframework.transaction.support.TransactionTemplate tx = new org.springframework.transaction.support.TransactionTemplate(
					context.getBean(PlatformTransactionManager.class));
			tx.executeWithoutResult(status -> accounts.settleOutsideATransaction(15L));
			assertThat(accounts.settled()).isEqualTo(1);
			assertThatThrownBy(() -> accounts.settleOutsideATransaction(15L))
				.isInstanceOf(IllegalTransactionStateException.class);
			assertThat(accounts.settled()).isEqualTo(1);
			// Held by the transaction of the TransactionTemplate while the body ran: the inner call saw it.
			tx.executeWithoutResult(status -> assertThat(accounts.trySettleHeld(16L)).isEqualTo(1));
			assertThat(advisoryLocksHeld(dataSource, "account:16")).isZero();
		});
	}

	@Test
	void aProxyAroundTheLockedProxyLeavesTheLockToItInsteadOfTakingItTwice() {
		runner.withUserConfiguration(AccountsConfig.class).run(context -> {
			Accounts inner = context.getBean(Accounts.class);
			// Another proxy with the lock advice, around the bean's own proxy (outer advice, transaction, inner advice).
			org.springframework.aop.framework.ProxyFactory factory = new org.springframework.aop.framework.ProxyFactory(
					inner);
			factory.setProxyTargetClass(true);
			factory.addAdvice(new DistributedLockInterceptor(() -> context.getBean(dev.distlock.core.LockTemplate.class),
					null, null, context.getBeanFactory()));
			Accounts wrapper = (Accounts) factory.getProxy();
			// No transaction around the call: the wrapper must not try to lock; the bean's proxy locks inside its own.
			wrapper.settle(19L);
			assertThat(inner.settled()).isEqualTo(1);
			assertThat(inner.heldByOwnBackend()).isEqualTo(1);
			assertThat(advisoryLocksHeld(context.getBean(DataSource.class), "account:19")).isZero();
		});
	}

	@Test
	void aLockedMethodOnAProxyWithoutATargetFailsInsteadOfRunningUnlocked() {
		runner.withUserConfiguration(AccountsConfig.class).run(context -> {
			AtomicInteger calls = new AtomicInteger();
			org.springframework.aop.framework.ProxyFactory factory = new org.springframework.aop.framework.ProxyFactory();
			factory.addInterface(Ledger.class);
			factory.addAdvice(new DistributedLockInterceptor(() -> context.getBean(dev.distlock.core.LockTemplate.class),
					null, null, context.getBeanFactory()));
			// The call itself, as an HTTP interface client's last advice makes it.
			factory.addAdvice((org.aopalliance.intercept.MethodInterceptor) invocation -> calls.incrementAndGet());
			Ledger client = (Ledger) factory.getProxy();
			assertThatThrownBy(() -> client.postFromAnInterface(20L)).isInstanceOf(LockAnnotationException.class)
				.hasMessageContaining("no target");
			assertThat(calls).hasValue(0);
		});
	}

	@Test
	void theKeyPrefixIsPartOfTheLockedKey() {
		runner.withUserConfiguration(AccountsConfig.class)
			.withPropertyValues("distributed-lock.key-prefix=shop:")
			.run(context -> {
				Accounts accounts = context.getBean(Accounts.class);
				assertThat(accounts.heldDuring(17L, "shop:account:17")).isEqualTo(1);
				assertThat(accounts.heldDuring(17L, "account:17")).isZero();
			});
	}

	@Test
	void anInterruptedCallerSendsNothingAndKeepsTheFlag() {
		runner.withUserConfiguration(AccountsConfig.class).run(context -> {
			Accounts accounts = context.getBean(Accounts.class);
			Thread.currentThread().interrupt();
			try {
				assertThatThrownBy(() -> accounts.settle(18L)).isInstanceOf(LockAcquisitionException.class)
					.hasMessageContaining("interrupted");
				assertThat(Thread.currentThread().isInterrupted()).isTrue();
			}
			finally {
				Thread.interrupted();
			}
			assertThat(accounts.settled()).isZero();
		});
	}

	@Test
	void everyLeaseAttributeAndEveryResultOfAnotherThreadFailsStartupNamingTheMethod() {
		for (Class<?> misfit : List.of(HoldMisfit.class, SharedMisfit.class, PeriodMisfit.class, MonoMisfit.class)) {
			runner.withBean(misfit).run(context -> assertThat(cause(context.getStartupFailure()))
				.isInstanceOf(LockAnnotationException.class)
				.hasMessageContaining("transactionScoped"));
		}
	}

	@Test
	void theWaitIsTheRetriesDelaysCappedByMaxWait() {
		LockOptions base = LockOptions.builder().delay(Duration.ofMillis(50)).build();
		assertThat(TransactionScopedLocking.waitOf(base.toBuilder().retries(0).build())).isZero();
		assertThat(TransactionScopedLocking.waitOf(base.toBuilder().retries(3).build()))
			.isEqualTo(Duration.ofMillis(150));
		assertThat(TransactionScopedLocking.waitOf(base.toBuilder().retries(3).maxWait(Duration.ofMillis(100)).build()))
			.isEqualTo(Duration.ofMillis(100));
		assertThat(TransactionScopedLocking.waitOf(base.toBuilder().waitUpTo(Duration.ofSeconds(10)).build()))
			.isEqualTo(Duration.ofSeconds(10));
		assertThat(TransactionScopedLocking.waitOf(base.toBuilder().retries(Integer.MAX_VALUE).build()))
			.isEqualTo(LockOptions.MAX_DURATION);
		// 100, 200, 400, 800, then the 1 s cap.
		assertThat(TransactionScopedLocking.waitOf(LockOptions.builder()
			.delay(Duration.ofMillis(100))
			.backoffMultiplier(2)
			.retries(5)
			.build())).isEqualTo(Duration.ofMillis(2500));
		// A 1 ms delay that a multiplier cannot grow (whole milliseconds) and 2^31 - 1 retries, worked out at once.
		assertThat(TransactionScopedLocking.waitOf(LockOptions.builder()
			.delay(Duration.ofMillis(1))
			.backoffMultiplier(1.5)
			.retries(Integer.MAX_VALUE)
			.build())).isEqualTo(Duration.ofMillis(Integer.MAX_VALUE));
	}

	/** The startup failure's first {@link LockAnnotationException}. */
	private static Throwable cause(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof LockAnnotationException) {
				return cause;
			}
		}
		return failure;
	}

	/** Holds the key's transaction-scoped lock on another connection, in a transaction left open. */
	private static void holdInOpenTransaction(Connection connection, String key) throws Exception {
		connection.setAutoCommit(false);
		try (Statement statement = connection.createStatement()) {
			statement.execute("SELECT pg_advisory_xact_lock(" + TransactionScopedLocks.advisoryKey(key) + ")");
		}
	}

	private static long advisoryLocksHeld(DataSource dataSource, String key) {
		long advisory = TransactionScopedLocks.advisoryKey(key);
		Long held = new JdbcTemplate(dataSource).queryForObject("SELECT count(*) FROM pg_locks WHERE locktype = "
				+ "'advisory' AND granted AND ((classid::bigint << 32) | objid::bigint) = ?", Long.class, advisory);
		return held;
	}

	/** Waits until a backend waits for an advisory lock, without a bound on how long the machine takes to get there. */
	private static void awaitWaiting(DataSource dataSource) throws InterruptedException {
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		while (jdbc.queryForObject("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
				Long.class) == 0) {
			Thread.sleep(10);
		}
	}

	/** Accounts settled under their transaction's lock. */
	static class Accounts {

		final AtomicInteger settled = new AtomicInteger();

		final AtomicInteger overlaps = new AtomicInteger();

		final AtomicInteger heldByOwnBackend = new AtomicInteger();

		private final AtomicInteger inside = new AtomicInteger();

		// Read through methods: the test holds the proxy, whose own fields are unset.
		public int settled() {
			return settled.get();
		}

		public int overlaps() {
			return overlaps.get();
		}

		public int heldByOwnBackend() {
			return heldByOwnBackend.get();
		}

		private final JdbcTemplate jdbc;

		Accounts(DataSource dataSource) {
			this.jdbc = new JdbcTemplate(dataSource);
		}

		@Transactional
		@DistributedLock(key = "'account:' + #id", transactionScoped = true, maxWaitString = "60s",
				retriesString = "1000000")
		public void settle(long id) {
			body("account:" + id);
		}

		@Transactional
		@DistributedLock(key = "'account:' + #id", transactionScoped = true)
		public void failToSettle(long id) {
			body("account:" + id);
			throw new IllegalStateException("boom");
		}

		@DistributedLock(key = "'account:' + #id", transactionScoped = true)
		public void settleOutsideATransaction(long id) {
			settled.incrementAndGet();
		}

		@Transactional
		@DistributedLock(key = "'account:' + #id", transactionScoped = true, retries = 0, onFailure = FailureMode.SKIP)
		public String trySettle(long id) {
			body("account:" + id);
			return "settled";
		}

		@Transactional
		@DistributedLock(key = "'account:' + #id", transactionScoped = true, retries = 0,
				onFailureString = "throw")
		public void settleOrThrow(long id) {
			body("account:" + id);
		}

		@DistributedLock(key = "'account:' + #id", transactionScoped = true)
		public int trySettleHeld(long id) {
			return held("account:" + id);
		}

		@Transactional
		@DistributedLock(key = "'account:' + #id", transactionScoped = true)
		public int heldDuring(long id, String storedKey) {
			return held(storedKey);
		}

		@Transactional
		@DistributedLock(keys = { "'account:' + #to", "'account:' + #from" }, transactionScoped = true)
		public int transfer(long from, long to) {
			return held("account:" + from) + held("account:" + to);
		}

		private void body(String key) {
			if (inside.incrementAndGet() > 1) {
				overlaps.incrementAndGet();
			}
			try {
				heldByOwnBackend.addAndGet(held(key));
				int before = settled.get();
				Thread.onSpinWait();
				settled.set(before + 1);
			}
			finally {
				inside.decrementAndGet();
			}
		}

		/** 1 when this transaction's backend holds the key's advisory lock: the JdbcTemplate joins the transaction. */
		private int held(String key) {
			long advisory = TransactionScopedLocks.advisoryKey(key);
			return jdbc.queryForObject("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
					+ "AND pid = pg_backend_pid() AND ((classid::bigint << 32) | objid::bigint) = ?", Integer.class,
					advisory);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PostgresConfig {

		@Bean
		DataSource dataSource() {
			return postgres();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement
	static class AccountsConfig {

		@Bean
		Accounts accounts(DataSource dataSource) {
			return new Accounts(dataSource);
		}

		@Bean
		PlatformTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

	}

	/** A ledger behind an interface, for JDK proxies. */
	public interface Ledger {

		int post(long id);

		void postOutsideATransaction(long id);

		@DistributedLock(key = "'account:' + #id", transactionScoped = true)
		default int postFromAnInterface(long id) {
			return 0;
		}

	}

	static class JdbcLedger implements Ledger {

		private final JdbcTemplate jdbc;

		JdbcLedger(DataSource dataSource) {
			this.jdbc = new JdbcTemplate(dataSource);
		}

		@Override
		@Transactional
		@DistributedLock(key = "'account:' + #id", transactionScoped = true)
		public int post(long id) {
			long advisory = TransactionScopedLocks.advisoryKey("account:" + id);
			return jdbc.queryForObject("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
					+ "AND pid = pg_backend_pid() AND ((classid::bigint << 32) | objid::bigint) = ?", Integer.class,
					advisory);
		}

		@Override
		@DistributedLock(key = "'account:' + #id", transactionScoped = true)
		public void postOutsideATransaction(long id) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement(proxyTargetClass = false)
	static class InterfaceConfig {

		@Bean
		Ledger ledger(DataSource dataSource) {
			return new JdbcLedger(dataSource);
		}

		@Bean
		PlatformTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

	}

	/** Transaction-scoped locks given what only leases have, or a result that outlives the call. */
	static class HoldMisfit {

		@DistributedLock(key = "'x'", transactionScoped = true, holdAtLeast = 1000)
		public void withHold() {
		}

	}

	static class SharedMisfit {

		@DistributedLock(key = "'x'", transactionScoped = true, shared = true)
		public void withShared() {
		}

	}

	static class PeriodMisfit {

		@DistributedLock(key = "'x'", transactionScoped = true, period = "1h")
		public void withPeriod() {
		}

	}

	static class MonoMisfit {

		@DistributedLock(key = "'x'", transactionScoped = true)
		public reactor.core.publisher.Mono<String> withMono() {
			return reactor.core.publisher.Mono.just("x");
		}

	}

	/** A transaction-scoped lock given a lease. */
	static class LeaseHolder {

		@Transactional
		@DistributedLock(key = "'x'", transactionScoped = true, timeout = 1000, autoRenew = true)
		public void withTimeout() {
		}

	}

	/** A valid transaction-scoped lock. */
	static class PlainHolder {

		@Transactional
		@DistributedLock(key = "'x'", transactionScoped = true)
		public void locked() {
		}

	}

	/** A transaction-scoped lock on a method whose work ends on another thread. */
	static class FutureHolder {

		@DistributedLock(key = "'x'", transactionScoped = true)
		public CompletableFuture<Void> later() {
			return CompletableFuture.completedFuture(null);
		}

	}

}
