package dev.distlock.autoconfigure.actuate;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.distlock.core.LockMode;
import dev.distlock.core.LockOperations;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.OperatorSupport;
import dev.distlock.core.spi.StatusQuery;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A plain {@code GET /actuator/locks} lists held locks only, as the README's example shows; records a store keeps
 * after release or expiry (MongoDB until its purger runs) appear only when asked for.
 */
class LocksEndpointDefaultStateTest {

	private static final LockInfo HELD = new LockInfo("orders:1", LockMode.EXCLUSIVE, "app", "host", 7, null,
			Duration.ofSeconds(9), 1);

	private static final LockInfo EXPIRED = new LockInfo("orders:2", LockMode.EXCLUSIVE, "app", "host", 3, null,
			Duration.ofSeconds(-40), 0);

	@Test
	void plainCallListsHeldLocksOnlyAndAnyOrExpiredShowTheRest() {
		try (LockTemplate template = new LockTemplate(new KeepsExpiredRecords())) {
			LocksEndpoint endpoint = new LocksEndpoint(new LockOperations(template), 100);

			LocksDescriptor.StoreLocks plain = endpoint.locks(null, null, null).store();
			assertThat(plain.query().state()).isEqualTo(StatusQuery.State.HELD);
			assertThat(plain.locks()).extracting(LocksDescriptor.StoreLock::key).containsExactly("orders:1");

			assertThat(endpoint.locks(null, null, StatusQuery.State.ANY).store().locks()).extracting(LocksDescriptor.StoreLock::key)
				.containsExactly("orders:1", "orders:2");
			assertThat(endpoint.locks(null, null, StatusQuery.State.EXPIRED).store().locks()).extracting(LocksDescriptor.StoreLock::key)
				.containsExactly("orders:2");
		}
	}

	/** A store that, like MongoDB, keeps an expired lock's record. */
	static final class KeepsExpiredRecords implements LockProvider, OperatorSupport {

		@Override
		public Optional<Lease> tryAcquire(LockRequest request) {
			return Optional.empty();
		}

		@Override
		public boolean isLocked(String key) {
			return key.equals(HELD.key());
		}

		@Override
		public List<LockInfo> status(StatusQuery query) {
			return List.of(HELD, EXPIRED).stream().filter(query::matches).toList();
		}

		@Override
		public boolean forceRelease(String key) {
			return false;
		}

		@Override
		public Duration ping() {
			return Duration.ZERO;
		}

	}

}
