package dev.distlock.test;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.distlock.core.spi.LockProvider;

/**
 * Imported by {@link AutoConfigureTestDistributedLock}: a {@link TestLockProvider} bean, ordered before every store's
 * auto-configuration and the starter's core one, which all back off when a {@link LockProvider} bean exists. The bean
 * is also a listener, so the starter's template hands it its handles (for {@link TestLockProvider#loseLock(String)}).
 * The starter's classes are named, not referenced, so lock-test does not depend on the starter.
 */
@AutoConfiguration(beforeName = { "dev.distlock.autoconfigure.RedisLockAutoConfiguration",
		"dev.distlock.autoconfigure.MongoLockAutoConfiguration", "dev.distlock.autoconfigure.JdbcLockAutoConfiguration",
		"dev.distlock.autoconfigure.DistributedLockAutoConfiguration" })
public final class TestDistributedLockAutoConfiguration {

	/**
	 * The test store, unless the test declares its own.
	 */
	@Bean
	@ConditionalOnMissingBean(TestLockProvider.class)
	TestLockProvider testLockProvider() {
		return new TestLockProvider();
	}

}
