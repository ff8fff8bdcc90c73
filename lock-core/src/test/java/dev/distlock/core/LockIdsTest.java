package dev.distlock.core;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.distlock.core.memory.InMemoryLockProvider;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.core.spi.StatusQuery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LockIdsTest {

	private static final String CUT_EMOJI = "job-\uD83D";

	private final InMemoryLockProvider provider = new InMemoryLockProvider();

	private final LockTemplate template = new LockTemplate(provider);

	@AfterEach
	void close() {
		template.close();
	}

	@Test
	void aLockIdWithALoneSurrogateIsRefusedNamingItAndNothingIsLockedOrRun() {
		AtomicBoolean ran = new AtomicBoolean();
		for (String bad : new String[] { CUT_EMOJI, "\uDE00job", "a\uD800b", "x\uDBFF" }) {
			assertThatThrownBy(() -> {
				try (LockGroup group = template.group(bad)) {
					group.lock("k", LockOptions.noExpiry());
					ran.set(true);
				}
			}).isInstanceOfSatisfying(InvalidLockOptionException.class, error -> {
				assertThat(error.option()).isEqualTo("lockId");
				assertThat(error.getMessage()).contains("lone surrogate", "well-formed UTF-16");
			});
			assertThatThrownBy(() -> template.unlock(bad)).isInstanceOf(InvalidLockOptionException.class)
				.hasMessageContaining("lockId");
			assertThatThrownBy(() -> template.renew(bad, Duration.ofSeconds(1)))
				.isInstanceOf(InvalidLockOptionException.class)
				.hasMessageContaining("lockId");
		}
		assertThat(ran).isFalse();
		assertThat(new LockOperations(template).status(StatusQuery.all())).isEmpty();
		assertThat(new LockOperations(template).heldLocks()).isEmpty();
	}

	@Test
	void nullEmptyControlAndOverLengthLockIdsAreRefusedNamingTheProblem() {
		assertThatThrownBy(() -> template.group(null)).isInstanceOf(InvalidLockOptionException.class)
			.hasMessageContaining("null");
		assertThatThrownBy(() -> template.unlock("")).isInstanceOf(InvalidLockOptionException.class)
			.hasMessageContaining("blank");
		assertThatThrownBy(() -> template.unlock("a\u0007b")).isInstanceOf(InvalidLockOptionException.class)
			.hasMessageContaining("U+0007");
		assertThatThrownBy(() -> template.unlock("x".repeat(LockIds.MAX_LENGTH + 1)))
			.isInstanceOf(InvalidLockOptionException.class)
			.hasMessageContaining(String.valueOf(LockIds.MAX_LENGTH));
		String emoji = "job-\uD83D\uDE00";
		assertThat(LockIds.validate(emoji)).isEqualTo(emoji);
	}

	@Test
	void providersRefuseAMalformedLockIdSentPastTheTemplate() {
		assertThatThrownBy(() -> provider.unlock(CUT_EMOJI)).isInstanceOf(InvalidLockOptionException.class);
		assertThatThrownBy(() -> provider.renew(CUT_EMOJI, Duration.ofSeconds(1)))
			.isInstanceOf(InvalidLockOptionException.class);
		assertThatThrownBy(() -> new LockRequest("k", "t", Duration.ofSeconds(1), LockMode.EXCLUSIVE, 1,
				OwnerDetails.local(), CUT_EMOJI, true))
			.isInstanceOf(InvalidLockOptionException.class)
			.hasMessageContaining("lockId");
		assertThat(provider.isLocked("k")).isFalse();
	}

	@Test
	void ownerNamesWithALoneSurrogateOrControlCharactersAreRefusedNamingTheOwner() {
		for (String bad : new String[] { "app-\uD83D", "app\nx", "", "o".repeat(LockIds.MAX_LENGTH + 1) }) {
			assertThatThrownBy(() -> OwnerDetails.of(bad)).isInstanceOfSatisfying(InvalidLockOptionException.class,
					error -> assertThat(error.option()).isEqualTo("owner"));
		}
		assertThatThrownBy(() -> new OwnerDetails("app", "host\uDC00"))
			.isInstanceOfSatisfying(InvalidLockOptionException.class, error -> assertThat(error.option()).isEqualTo("host"));
		assertThat(OwnerDetails.of("app-\uD83D\uDE00").owner()).isEqualTo("app-\uD83D\uDE00");
	}

}
