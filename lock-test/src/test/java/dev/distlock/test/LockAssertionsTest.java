package dev.distlock.test;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LockAssertionsTest {

	private static final LockOptions TEN_SECONDS = LockOptions.builder().timeout(Duration.ofSeconds(10)).build();

	private final TestLockProvider locks = new TestLockProvider();

	private final LockTemplate template = locks.newTemplate();

	@AfterEach
	void close() {
		template.close();
	}

	@Test
	void assertLockedPassesInsideTheLockedBody() {
		template.execute("assert:inside", TEN_SECONDS, handle -> {
			LockAssertions.assertLocked("assert:inside");
			return null;
		});
	}

	@Test
	void assertLockedPassesOnAnotherThreadOfTheLockedBody() throws Exception {
		String answer = template.execute("assert:async", TEN_SECONDS, handle -> CompletableFuture.supplyAsync(() -> {
			LockAssertions.assertLocked("assert:async");
			return "ran locked";
		}).orTimeout(30, TimeUnit.SECONDS).join());
		assertThat(answer).isEqualTo("ran locked");
	}

	@Test
	void assertLockedFailsOutsideTheLockNamingTheKeyAndTheLocksHeld() {
		try (LockHandle unrelated = template.acquire("assert:unrelated", TEN_SECONDS)) {
			assertThatThrownBy(() -> LockAssertions.assertLocked("assert:outside")).isInstanceOf(AssertionError.class)
				.hasMessageStartingWith("Expected a lock on 'assert:outside' to be held here, but it is not;")
				.hasMessageContaining("assert:unrelated");
		}
	}

	@Test
	void assertLockedFailsAfterTheLockWasReleased() {
		template.execute("assert:after", TEN_SECONDS, handle -> null);

		assertThatThrownBy(() -> LockAssertions.assertLocked("assert:after"))
			.hasMessageStartingWith("Expected a lock on 'assert:after' to be held here, but it is not");
	}

	@Test
	void assertNotLockedFailsInsideTheLockAndPassesAfter() {
		template.execute("assert:not", TEN_SECONDS, handle -> {
			assertThatThrownBy(() -> LockAssertions.assertNotLocked("assert:not"))
				.hasMessage("Expected no lock on 'assert:not' here, but one is held");
			return null;
		});
		assertThatCode(() -> LockAssertions.assertNotLocked("assert:not")).doesNotThrowAnyException();
	}

	@Test
	void lockedKeysRecordsTheLocksABodyRanUnder() {
		Set<String> seen = template.execute("assert:outer", TEN_SECONDS,
				outer -> template.execute("assert:inner", TEN_SECONDS, inner -> LockAssertions.lockedKeys()));

		assertThat(seen).contains("assert:outer", "assert:inner");
		assertThat(LockAssertions.lockedKeys()).doesNotContain("assert:outer", "assert:inner");
	}

}
