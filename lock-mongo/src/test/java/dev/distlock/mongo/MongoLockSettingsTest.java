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
					ex -> assertThat(ex.option()).isEqualTo("collection"));
		assertThatThrownBy(() -> new MongoLockSettings("a$b", WriteConcern.MAJORITY, true, null, HOUR))
			.isInstanceOf(InvalidLockOptionException.class)
			.hasMessageContaining("a$b");
	}

	@Test
	void unacknowledgedOrMissingWriteConcernIsRejected() {
		assertThatThrownBy(() -> new MongoLockSettings("c", WriteConcern.UNACKNOWLEDGED, true, null, HOUR))
			.isInstanceOfSatisfying(InvalidLockOptionException.class,
					ex -> assertThat(ex.option()).isEqualTo("writeConcern"));
	}

	@Test
	void purgeIntervalMustBePositiveAndGraceAtLeastOneMinute() {
		assertThatThrownBy(() -> new MongoLockSettings("c", WriteConcern.MAJORITY, true, Duration.ZERO, HOUR))
			.isInstanceOfSatisfying(InvalidLockOptionException.class,
					ex -> assertThat(ex.option()).isEqualTo("purgeInterval"));
		assertThatThrownBy(() -> new MongoLockSettings("c", WriteConcern.MAJORITY, true, null, Duration.ofSeconds(-1)))
			.isInstanceOfSatisfying(InvalidLockOptionException.class,
					ex -> assertThat(ex.option()).isEqualTo("purgeGrace"));
		for (Duration tooShort : new Duration[] { Duration.ZERO, Duration.ofSeconds(59), Duration.ofMillis(59_999) }) {
			assertThatThrownBy(() -> new MongoLockSettings("c", WriteConcern.MAJORITY, true, null, tooShort))
				.as("grace %s", tooShort)
				.isInstanceOfSatisfying(InvalidLockOptionException.class,
						ex -> assertThat(ex.option()).isEqualTo("purgeGrace"))
				.hasMessageContaining("at least 1 minute")
				.hasMessageContaining("was " + tooShort);
		}
		assertThatThrownBy(() -> MongoLockSettings.defaults().withPurge(null, Duration.ZERO))
			.isInstanceOf(InvalidLockOptionException.class);
		assertThat(new MongoLockSettings("c", WriteConcern.MAJORITY, true, null, Duration.ofMinutes(1)).purgeGrace())
			.isEqualTo(MongoLockSettings.MIN_PURGE_GRACE);
	}

}
