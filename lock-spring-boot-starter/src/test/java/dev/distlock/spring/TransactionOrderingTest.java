package dev.distlock.spring;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.core.LockTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock must wrap the transaction: taken before it begins and released after it commits or rolls back, so another
 * instance that gets the lock next reads committed state.
 */
class TransactionOrderingTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
		.withPropertyValues("distributed-lock.provider=in-memory")
		.withUserConfiguration(TransactionConfig.class);

	@Test
	void lockIsHeldWhenTheTransactionBeginsAndCommits() {
		runner.run(context -> {
			context.getBean(Ledger.class).post("acc-1");
			RecordingTransactionManager manager = context.getBean(RecordingTransactionManager.class);
			assertThat(manager.events).containsExactly("begin locked=true", "commit locked=true");
			assertThat(context.getBean(LockTemplate.class).isLocked("ledger:acc-1")).isFalse();
		});
	}

	@Test
	void lockIsHeldWhenTheTransactionRollsBack() {
		runner.run(context -> {
			Ledger ledger = context.getBean(Ledger.class);
			try {
				ledger.fail("acc-2");
			}
			catch (IllegalStateException expected) {
				// the rollback is what is under test
			}
			assertThat(context.getBean(RecordingTransactionManager.class).events)
				.containsExactly("begin locked=true", "rollback locked=true");
		});
	}

	@Test
	void afterExistingAdvisorsPutsTheLockInsideTheTransaction() {
		runner.withPropertyValues("distributed-lock.aop.before-existing-advisors=false").run(context -> {
			context.getBean(Ledger.class).post("acc-3");
			assertThat(context.getBean(RecordingTransactionManager.class).events)
				.containsExactly("begin locked=false", "commit locked=false");
		});
	}

	/** A transactional service whose methods also lock. */
	static class Ledger {

		@Transactional
		@DistributedLock(key = "'ledger:' + #account")
		public void post(String account) {
		}

		@Transactional
		@DistributedLock(key = "'ledger:' + #account")
		public void fail(String account) {
			throw new IllegalStateException("boom");
		}

	}

	/** Records, at each transaction step, whether the ledger's lock is held. */
	static class RecordingTransactionManager extends AbstractPlatformTransactionManager {

		final List<String> events = new ArrayList<>();

		private final ObjectProvider<LockTemplate> template;

		RecordingTransactionManager(ObjectProvider<LockTemplate> template) {
			this.template = template;
		}

		@Override
		protected Object doGetTransaction() {
			return new Object();
		}

		@Override
		protected void doBegin(Object transaction, TransactionDefinition definition) {
			events.add("begin locked=" + anyLedgerLocked());
		}

		@Override
		protected void doCommit(DefaultTransactionStatus status) {
			events.add("commit locked=" + anyLedgerLocked());
		}

		@Override
		protected void doRollback(DefaultTransactionStatus status) {
			events.add("rollback locked=" + anyLedgerLocked());
		}

		private boolean anyLedgerLocked() {
			LockTemplate locks = template.getObject();
			return locks.isLocked("ledger:acc-1") || locks.isLocked("ledger:acc-2") || locks.isLocked("ledger:acc-3");
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement
	static class TransactionConfig {

		@Bean
		Ledger ledger() {
			return new Ledger();
		}

		@Bean
		RecordingTransactionManager transactionManager(ObjectProvider<LockTemplate> template) {
			return new RecordingTransactionManager(template);
		}

	}

}
