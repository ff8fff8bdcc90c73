package dev.distlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.util.backoff.BackOffExecution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LockOptionsTest {

	@Test
	void defaultsAreATenSecondLeaseTakenOnceExclusively() {
		LockOptions options = LockOptions.defaults();
		assertThat(options.timeout()).isEqualTo(Duration.ofSeconds(10));
		assertThat(options.retries()).isZero();
		assertThat(options.delay()).isEqualTo(Duration.ofMillis(50));
		assertThat(options.backoffMultiplier()).isEqualTo(1.0);
		assertThat(options.onFailure()).isEqualTo(FailureMode.THROW);
		assertThat(options.mode()).isEqualTo(LockMode.EXCLUSIVE);
		assertThat(options.maxConcurrent()).isEqualTo(1);
		assertThat(options.autoRenew()).isFalse();
		assertThat(options.expires()).isTrue();
		assertThat(options.maxDelay()).isNull();
		assertThat(options.maxWait()).isNull();
	}

	@Test
	void aBuilderStartsFromTheDefaults() {
		assertThat(LockOptions.builder().build()).isEqualTo(LockOptions.defaults());
	}

	@Test
	void fixedBackoffRepeatsTheDelay() {
		assertThat(delays(LockOptions.builder().delay(Duration.ofMillis(50)).build(), 4)).containsExactly(50L, 50L, 50L,
				50L);
	}

	@Test
	void exponentialBackoffGrowsByTheRatioUpToTheCap() {
		LockOptions options = LockOptions.builder()
			.delay(Duration.ofMillis(10))
			.backoffMultiplier(2.0)
			.maxDelay(Duration.ofMillis(50))
			.build();
		assertThat(delays(options, 5)).containsExactly(10L, 20L, 40L, 50L, 50L);
	}

	@Test
	void zeroOrNegativeDurationsAreRejectedNamingTheOption() {
		assertRejected(() -> LockOptions.builder().timeout(Duration.ZERO).build(), "timeout");
		assertRejected(() -> LockOptions.builder().timeout(Duration.ofSeconds(-1)).build(), "timeout");
		assertRejected(() -> LockOptions.builder().delay(Duration.ZERO).build(), "delay");
		assertRejected(() -> LockOptions.builder().maxWait(Duration.ofMillis(-5)).build(), "maxWait");
		assertRejected(() -> LockOptions.builder().holdAtLeast(Duration.ZERO).build(), "holdAtLeast");
	}

	@Test
	void negativeRetriesAreRejected() {
		assertRejected(() -> LockOptions.builder().retries(-1).build(), "retries");
	}

	@Test
	void multiplierBelowOneIsRejected() {
		assertRejected(() -> LockOptions.builder().backoffMultiplier(0.5).build(), "backoffMultiplier");
		assertRejected(() -> LockOptions.builder().backoffMultiplier(Double.NaN).build(), "backoffMultiplier");
	}

	@Test
	void maxConcurrentBelowOneIsRejected() {
		assertRejected(() -> LockOptions.builder().shared(0).build(), "maxConcurrent");
	}

	@Test
	void maxDelayBelowDelayIsRejected() {
		assertRejected(() -> LockOptions.builder().delay(Duration.ofMillis(100)).maxDelay(Duration.ofMillis(10)).build(),
				"maxDelay");
	}

	@Test
	void holdAtLeastAboveTheLeaseIsRejected() {
		assertRejected(() -> LockOptions.builder()
			.timeout(Duration.ofSeconds(1))
			.holdAtLeast(Duration.ofSeconds(2))
			.build(), "holdAtLeast");
	}

	@Test
	void subMillisecondDurationsAreRejectedNamingTheOption() {
		Duration halfMilli = Duration.ofNanos(500_000);
		assertRejected(() -> LockOptions.builder().timeout(halfMilli).build(), "timeout", "at least 1ms");
		assertRejected(() -> LockOptions.builder().delay(halfMilli).build(), "delay", "at least 1ms");
		assertRejected(() -> LockOptions.builder().maxDelay(halfMilli).build(), "maxDelay", "at least 1ms");
		assertRejected(() -> LockOptions.builder().maxWait(halfMilli).build(), "maxWait", "at least 1ms");
		assertRejected(() -> LockOptions.builder().holdAtLeast(halfMilli).build(), "holdAtLeast", "at least 1ms");
	}

	@Test
	void durationsAbove365DaysAreRejectedNamingTheOptionAndTheBound() {
		Duration huge = Duration.ofMillis(Long.MAX_VALUE);
		Duration justOver = Duration.ofDays(365).plusMillis(1);
		assertRejected(() -> LockOptions.builder().timeout(huge).build(), "timeout", "365 days");
		assertRejected(() -> LockOptions.builder().timeout(justOver).build(), "timeout", "365 days");
		assertRejected(() -> LockOptions.builder().delay(huge).build(), "delay", "365 days");
		assertRejected(() -> LockOptions.builder().maxDelay(huge).build(), "maxDelay", "365 days");
		assertRejected(() -> LockOptions.builder().maxWait(huge).build(), "maxWait", "365 days");
		assertRejected(() -> LockOptions.builder().waitUpTo(justOver).build(), "maxWait", "365 days");
		assertRejected(() -> LockOptions.builder().timeout(huge).holdAtLeast(huge).build(), "timeout", "365 days");
	}

	@Test
	void boundsThemselvesAreAccepted() {
		LockOptions options = LockOptions.builder()
			.timeout(Duration.ofDays(365))
			.delay(Duration.ofMillis(1))
			.maxWait(Duration.ofDays(365))
			.holdAtLeast(Duration.ofMillis(1))
			.backoffMultiplier(100)
			.build();
		assertThat(options.timeout()).isEqualTo(LockOptions.MAX_DURATION);
		assertThat(options.delay()).isEqualTo(LockOptions.MIN_DURATION);
	}

	@Test
	void checkDurationNamesTheOptionForCallersOutsideTheOptions() {
		assertThat(LockOptions.checkDuration("extend", Duration.ofSeconds(5))).isEqualTo(Duration.ofSeconds(5));
		assertRejected(() -> LockOptions.checkDuration("extend", Duration.ofMillis(Long.MAX_VALUE)), "extend",
				"365 days");
		assertRejected(() -> LockOptions.checkDuration("extend", Duration.ofNanos(999_999)), "extend", "at least 1ms");
		assertRejected(() -> LockOptions.checkDuration("extend", Duration.ZERO), "extend", "positive");
		assertRejected(() -> LockOptions.checkDuration("extend", null), "extend", "null");
	}

	@Test
	void unboundedBackoffMultiplierIsRejected() {
		assertRejected(() -> LockOptions.builder().backoffMultiplier(1e308).build(), "backoffMultiplier", "100");
		assertRejected(() -> LockOptions.builder().backoffMultiplier(100.5).build(), "backoffMultiplier", "100");
		assertRejected(() -> LockOptions.builder().backoffMultiplier(Double.POSITIVE_INFINITY).build(),
				"backoffMultiplier", "100");
	}

	@Test
	void toBuilderKeepsEveryValue() {
		LockOptions options = LockOptions.builder()
			.timeout(Duration.ofSeconds(3))
			.retries(4)
			.delay(Duration.ofMillis(7))
			.backoffMultiplier(1.5)
			.maxDelay(Duration.ofMillis(70))
			.maxWait(Duration.ofSeconds(2))
			.autoRenew(true)
			.onFailure(FailureMode.SKIP)
			.shared(3)
			.holdAtLeast(Duration.ofSeconds(1))
			.owner(new OwnerDetails("o", "h"))
			.build();
		assertThat(options.toBuilder().build()).isEqualTo(options);
	}

	private static List<Long> delays(LockOptions options, int count) {
		BackOffExecution execution = options.backOff().start();
		List<Long> delays = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			delays.add(execution.nextBackOff());
		}
		return delays;
	}

	private static void assertRejected(Runnable build, String option, String reason) {
		assertThatThrownBy(build::run).isInstanceOfSatisfying(InvalidLockOptionException.class,
				error -> assertThat(error.option()).isEqualTo(option))
			.hasMessageContaining("'" + option + "'")
			.hasMessageContaining(reason);
	}

	private static void assertRejected(Runnable build, String option) {
		assertThatThrownBy(build::run).isInstanceOfSatisfying(InvalidLockOptionException.class,
				error -> assertThat(error.option()).isEqualTo(option))
			.hasMessageContaining("'" + option + "'");
	}

	@Test
	void noExpiryIsAnOptInThatRefusesAutoRenewNamingBoth() {
		assertThat(LockOptions.defaults().expires()).isTrue();
		assertThat(LockOptions.noExpiry().expires()).isFalse();
		assertThat(LockOptions.noExpiry().toBuilder().build().expires()).isFalse();
		assertThatThrownBy(() -> LockOptions.builder().noExpiry().autoRenew(true).build())
			.isInstanceOfSatisfying(InvalidLockOptionException.class, error -> {
				assertThat(error.option()).isEqualTo("autoRenew");
				assertThat(error.detail()).contains("noExpiry");
			});
		// Without a lease, a minimum hold longer than the unused timeout is fine.
		assertThat(LockOptions.builder().timeout(Duration.ofSeconds(1)).noExpiry()
			.holdAtLeast(Duration.ofSeconds(5)).build().holdAtLeast()).isEqualTo(Duration.ofSeconds(5));
	}

	@Test
	void sharedMinusOneMeansUnlimitedAndOtherNegativesAreRefused() {
		assertThat(LockOptions.shared(LockOptions.UNLIMITED).maxConcurrent()).isEqualTo(Integer.MAX_VALUE);
		assertThat(LockOptions.shared(4).maxConcurrent()).isEqualTo(4);
		assertThatThrownBy(() -> LockOptions.shared(-2)).isInstanceOf(InvalidLockOptionException.class)
			.hasMessageContaining("maxConcurrent");
		assertThatThrownBy(() -> LockOptions.builder().mode(LockMode.EXCLUSIVE, -1).build())
			.isInstanceOf(InvalidLockOptionException.class);
	}

}
