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
		Settings mongo = new Settings(settings.window(), settings.warmup(), List.of(8), settings.heldLocks(), 0,
				settings.suites());
		ArmRunner runner = new ArmRunner(mongo, null, () -> -1);
		ArmResult floor = runner.run(new RawMongoArm(endpoint.uri()), "raw");
		ArmResult distlock = runner.run(new DistlockMongoArm(endpoint.uri()), "distlock");
		ArmResult shedLock = runner.run(new ShedLockMongoArm(endpoint.uri()), "shedlock");
		return new Results(endpoint.description(), floor, distlock, shedLock);
	}

}
