package dev.distlock.test.kit;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fuzz oracle itself: it must catch a provider that excludes no one, or every green run of it proves nothing.
 */
class FuzzTesterTest {

	@Test
	void fuzzOracleCatchesAProviderThatNeverExcludes() throws Exception {
		try (LockTemplate broken = new LockTemplate(new GrantsEveryone())) {
			FuzzTester.Result result = new FuzzTester(broken, 8, List.of("x"), 50).run();
			assertThat(result.counts().get(0)).isLessThan(400L);
		}
	}

	/** Grants every request, held or not, with increasing fencing tokens. */
	private static final class GrantsEveryone implements LockProvider {

		private final AtomicLong fencing = new AtomicLong();

		@Override
		public Optional<Lease> tryAcquire(LockRequest request) {
			long token = fencing.incrementAndGet();
			return Optional.of(new Lease() {
				@Override
				public long fencingToken() {
					return token;
				}

				@Override
				public boolean extend(Duration lease) {
					return true;
				}

				@Override
				public boolean release() {
					return true;
				}
			});
		}

		@Override
		public boolean isLocked(String key) {
			return false;
		}

	}

}
