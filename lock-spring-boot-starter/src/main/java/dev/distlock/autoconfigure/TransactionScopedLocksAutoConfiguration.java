package dev.distlock.autoconfigure;

import javax.sql.DataSource;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.datasource.DataSourceUtils;

import dev.distlock.jdbc.TransactionScopedLocks;

/**
 * PostgreSQL's transaction-scoped locks ({@code @DistributedLock(transactionScoped = true)}) on the application's
 * single (or primary) {@link DataSource}, the one its transaction manager runs on; whichever store holds the other
 * locks, since these live in the transaction, not in the lock store.
 */
@AutoConfiguration(afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass({ TransactionScopedLocks.class, DataSource.class, DataSourceUtils.class })
@ConditionalOnLocksEnabled
public final class TransactionScopedLocksAutoConfiguration {

	/**
	 * The locks on the application's data source, unless it declares its own (with several data sources, declare
	 * one on the data source of the locked methods' transactions).
	 */
	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnSingleCandidate(DataSource.class)
	TransactionScopedLocks transactionScopedLocks(DataSource dataSource) {
		return new TransactionScopedLocks(dataSource);
	}

}
