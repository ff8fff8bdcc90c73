package dev.distlock.autoconfigure;

import java.time.Duration;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.data.mongodb.core.MongoTemplate;

import com.mongodb.WriteConcern;

import dev.distlock.core.spi.LockProvider;
import dev.distlock.mongo.MongoLockProvider;
import dev.distlock.mongo.MongoLockSettings;

/**
 * The MongoDB provider, on the application's {@link MongoTemplate}, with index creation at startup and a periodic
 * purge of long-expired lock documents. Runs after Spring Boot's MongoDB and distlock's Redis auto-configurations, so
 * {@code provider=auto} prefers Redis.
 */
@AutoConfiguration(before = DistributedLockAutoConfiguration.class, after = RedisLockAutoConfiguration.class,
		afterName = "org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration")
@ConditionalOnClass({ MongoLockProvider.class, MongoTemplate.class })
@ConditionalOnBooleanProperty(name = "distributed-lock.enabled", matchIfMissing = true)
@ConditionalOnLockProvider(LockProviderType.MONGO)
@EnableConfigurationProperties(DistributedLockProperties.class)
public final class MongoLockAutoConfiguration {

	/**
	 * The provider, unless the application has its own {@link LockProvider}; creates its indexes when asked.
	 */
	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean(LockProvider.class)
	@ConditionalOnSingleCandidate(MongoTemplate.class)
	MongoLockProvider mongoLockProvider(MongoTemplate mongoTemplate, DistributedLockProperties properties) {
		MongoLockProvider provider = new MongoLockProvider(mongoTemplate, settings(properties.getMongo()));
		if (properties.getMongo().isCreateIndexes()) {
			provider.createIndexes();
		}
		return provider;
	}

	/**
	 * Purges expired lock documents every {@code mongo.purge-interval} while the context runs.
	 */
	@Bean
	@ConditionalOnMissingBean
	MongoLockPurger mongoLockPurger(ObjectProvider<LockProvider> provider, DistributedLockProperties properties) {
		return new MongoLockPurger(provider, properties.getMongo().getPurgeInterval());
	}

	static MongoLockSettings settings(DistributedLockProperties.Mongo mongo) {
		String name = PropertyChecks.text("mongo.write-concern", mongo.getWriteConcern());
		WriteConcern writeConcern = WriteConcern.valueOf(name);
		if (writeConcern == null) {
			throw PropertyChecks.invalid("mongo.write-concern",
					"unknown write concern '" + name + "'; use majority, w1, w2, w3, journaled or acknowledged");
		}
		Duration interval = mongo.getPurgeInterval();
		if (interval != null) {
			PropertyChecks.positive("mongo.purge-interval", interval);
		}
		Duration grace = mongo.getPurgeGrace();
		if (grace == null || grace.isNegative()) {
			throw PropertyChecks.invalid("mongo.purge-grace", "must be zero or more, was " + grace);
		}
		return new MongoLockSettings(PropertyChecks.text("mongo.collection", mongo.getCollection()), writeConcern,
				mongo.isCreateIndexes(), interval, grace);
	}

}
