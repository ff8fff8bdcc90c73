package dev.distlock.mongo;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.distlock.core.LockMode;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Acquisition;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.mongo.testsupport.MongoTestServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 19's FIFO risk on Mongo: a waiting writer's mark is renewed by each attempt for three waits (at most
 * {@link MongoAcquisition#MAX_MARK}), so the provider caps each wait at a third of that and a long backoff delay cannot
 * let the mark lapse between two attempts.
 */
class MongoAcquisitionTest extends AbstractMongoServerTest {

	@Override
	protected MongoTestServer startServer() {
		return MongoTestServer.startInProcess();
	}

	@Override
	protected OwnerDetails owner() {
		return OwnerDetails.of("acquisition-test");
	}

	@Test
	void aWaitingWriterWaitsAtMostAThirdOfTheLongestMarkAndAReaderAsTheBackoffSays() {
		LockRequest writer = new LockRequest("k", LockTemplate.newLockId(), Duration.ofSeconds(10), LockMode.EXCLUSIVE,
				1, owner());
		LockRequest reader = new LockRequest("k", LockTemplate.newLockId(), Duration.ofSeconds(10), LockMode.SHARED, 3,
				owner());
		try (Acquisition writing = provider.begin(writer); Acquisition reading = provider.begin(reader)) {
			assertThat(writing.longestWait()).isNotNull();
			assertThat(writing.longestWait().multipliedBy(3)).isLessThanOrEqualTo(MongoAcquisition.MAX_MARK);
			assertThat(reading.longestWait()).isNull();
		}
	}

}
