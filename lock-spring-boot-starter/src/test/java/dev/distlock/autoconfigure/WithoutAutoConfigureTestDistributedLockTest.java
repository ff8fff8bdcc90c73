package dev.distlock.autoconfigure;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;

import dev.distlock.core.LockTemplate;
import dev.distlock.redis.RedisLockProvider;
import dev.distlock.test.TestLockProvider;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The control of {@link AutoConfigureTestDistributedLockTest}: the same application, without the annotation, locks
 * on Redis (the provider is made without a connection, so no Redis server is needed to see it).
 */
@SpringBootTest(classes = AutoConfigureTestDistributedLockTest.OrdersApplication.class,
		properties = { "distributed-lock.provider=redis", "spring.data.redis.port=1" })
class WithoutAutoConfigureTestDistributedLockTest {

	@Autowired
	private ApplicationContext context;

	@Autowired
	private LockTemplate template;

	@Test
	void theSameApplicationLocksOnRedis() {
		assertThat(template.provider()).isInstanceOf(RedisLockProvider.class);
		assertThat(context.getBeansOfType(TestLockProvider.class)).isEmpty();
	}

}
