package dev.distlock.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
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
 * The MongoDB provider, on the application's {@link MongoTemplate}. Its {@code start()} creates the index (when
 * {@code mongo.create-indexes}) and schedules the purger every {@code mongo.purge-interval} on {@link LockThreads}; {@code close()} stops it
 * on shutdown. Runs after Spring Boot's MongoDB and distlock's Redis auto-configurations, so {@code provider=auto}
 * prefers Redis.
 */
@AutoConfiguration(before = DistributedLockAutoConfiguration.class, after = RedisLockAutoConfiguration.class,
		afterName = "org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration")
@ConditionalOnClass({ MongoLockProvider.class, MongoTemplate.class })
@ConditionalOnLocksEnabled
@ConditionalOnLockProvider(LockProviderType.MONGO)
@EnableConfigurationProperties(MongoLockProperties.class)
public final class MongoLockAutoConfiguration {

	/**
	 * The provider, unless the application has its own {@link LockProvider}.
	 */
	@Bean(initMethod = "start", destroyMethod = "close")
	@ConditionalOnMissingBean(LockProvider.class)
	@ConditionalOnSingleCandidate(MongoTemplate.class)
	MongoLockProvider mongoLockProvider(MongoTemplate mongoTemplate, MongoLockProperties properties,
			ObjectProvider<LockThreads> threads) {
		MongoLockProvider provider = new MongoLockProvider(mongoTemplate, settings(properties));
		threads.ifAvailable(own -> provider.purgeScheduler(own.scheduler()));
		return provider;
	}

	/**
	 * The settings; {@link MongoLockSettings} checks the values and names the setting at fault, mapped here to its
	 * property.
	 */
	static MongoLockSettings settings(MongoLockProperties mongo) {
		String name = LockPropertyValues.text("mongo.write-concern", mongo.getWriteConcern());
		WriteConcern writeConcern = WriteConcern.valueOf(name);
		if (writeConcern == null) {
			throw LockPropertyValues.invalid("mongo.write-concern",
					"unknown write concern '" + name + "'; use majority, w1, w2, w3, journaled or acknowledged");
		}
		return LockPropertyValues.storeSettings("mongo", () -> new MongoLockSettings(mongo.getCollection(), writeConcern,
				mongo.isCreateIndexes(), mongo.getPurgeInterval(), mongo.getPurgeGrace(), mongo.getCallTimeout()));
	}

}
