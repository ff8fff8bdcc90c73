package dev.distlock.mongo;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import com.mongodb.ReadConcern;
import com.mongodb.WriteConcern;

import dev.distlock.core.InvalidLockOptionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Settings fail fast, naming the property at fault.
 */
class MongoLockSettingsTest {

	private static final Duration HOUR = Duration.ofHours(1);

	@Test
	void defaultsAreMajorityWritesAndReadsWithIndexesAndAPurger() {
		MongoLockSettings defaults = MongoLockSettings.defaults();
		assertThat(defaults.collection()).isEqualTo("distributed_locks");
		assertThat(defaults.writeConcern()).isEqualTo(WriteConcern.MAJORITY);
		assertThat(defaults.readConcern()).isEqualTo(ReadConcern.MAJORITY);
		assertThat(defaults.createIndexes()).isTrue();
		assertThat(defaults.purgeInterval()).isEqualTo(Duration.ofMinutes(5));
		assertThat(defaults.purgeGrace()).isEqualTo(HOUR);
		assertThat(new MongoLockSettings("c", WriteConcern.W1, true, null, HOUR).readConcern())
			.isEqualTo(ReadConcern.DEFAULT);
	}

	@Test
	void blankOrReservedCollectionNamesAreRejected() {
		assertThatThrownBy(() -> new MongoLockSettings(" ", WriteConcern.MAJORITY, true, null, HOUR))
			.isInstanceOfSatisfying(InvalidLockOptionException.class,
					ex -> assertThat(ex.option()).isEqualTo("distributed-lock.mongo.collection"));
		assertThatThrownBy(() -> new MongoLockSettings("a$b", WriteConcern.MAJORITY, true, null, HOUR))
			.isInstanceOf(InvalidLockOptionException.class)
			.hasMessageContaining("a$b");
	}

	@Test
	void unacknowledgedOrMissingWriteConcernIsRejected() {
		assertThatThrownBy(() -> new MongoLockSettings("c", WriteConcern.UNACKNOWLEDGED, true, null, HOUR))
			.isInstanceOfSatisfying(InvalidLockOptionException.class,
					ex -> assertThat(ex.option()).isEqualTo("distributed-lock.mongo.write-concern"));
	}

	@Test
	void purgeIntervalMustBePositiveAndGraceNotNegative() {
		assertThatThrownBy(() -> new MongoLockSettings("c", WriteConcern.MAJORITY, true, Duration.ZERO, HOUR))
			.isInstanceOfSatisfying(InvalidLockOptionException.class,
					ex -> assertThat(ex.option()).isEqualTo("distributed-lock.mongo.purge-interval"));
		assertThatThrownBy(() -> new MongoLockSettings("c", WriteConcern.MAJORITY, true, null, Duration.ofSeconds(-1)))
			.isInstanceOfSatisfying(InvalidLockOptionException.class,
					ex -> assertThat(ex.option()).isEqualTo("distributed-lock.mongo.purge-grace"));
		assertThat(new MongoLockSettings("c", WriteConcern.MAJORITY, true, null, Duration.ZERO).purgeGrace()).isZero();
	}

}
