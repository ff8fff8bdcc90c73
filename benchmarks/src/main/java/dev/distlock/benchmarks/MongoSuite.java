package dev.distlock.benchmarks;

import java.util.List;

import dev.distlock.benchmarks.mongo.DistlockMongoArm;
import dev.distlock.benchmarks.mongo.MongoEndpoint;
import dev.distlock.benchmarks.mongo.RawMongoArm;
import dev.distlock.benchmarks.mongo.ShedLockMongoArm;

/**
 * The Mongo arms on one endpoint: uncontended figures and one contention level (8 clients).
 */
final class MongoSuite {

	private MongoSuite() {
	}

	/**
	 * What the suite measured on one endpoint.
	 * @param endpoint what the arms ran against
	 * @param floor the raw driver arm
	 * @param distlock distlock
	 * @param shedLock ShedLock's provider
	 */
	record Results(String endpoint, ArmResult floor, ArmResult distlock, ArmResult shedLock) {

		List<ArmResult> all() {
			return List.of(floor, distlock, shedLock);
		}

	}

	static Results run(MongoEndpoint endpoint, Settings settings) {
		Progress.say("Mongo arms on " + endpoint.description());
		Settings mongo = new Settings(settings.window(), settings.warmup(), settings.contentionWarmup(), List.of(8),
				settings.heldLocks(), 0, settings.suites(), settings.peers());
		List<ArmResult> all = new SuiteRunner(mongo, null, () -> -1, () -> { })
			.run(List.of(new RawMongoArm(endpoint.uri()), new DistlockMongoArm(endpoint.uri()),
					new ShedLockMongoArm(endpoint.uri())));
		return new Results(endpoint.description(), all.get(0), all.get(1), all.get(2));
	}

}
