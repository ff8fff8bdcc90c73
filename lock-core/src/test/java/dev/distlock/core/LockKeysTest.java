package dev.distlock.core;

import org.junit.jupiter.api.Test;

import dev.distlock.core.memory.InMemoryLockProvider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LockKeysTest {

	private final LockTemplate template = new LockTemplate(new InMemoryLockProvider());

	@Test
	void nullKeyIsRejectedAndNothingRuns() {
		boolean[] ran = { false };
		assertThatThrownBy(() -> template.execute(null, handle -> ran[0] = true))
			.isInstanceOf(InvalidLockKeyException.class)
			.hasMessageContaining("null");
		assertThat(ran[0]).isFalse();
		assertThat(template.heldLocks()).isEmpty();
	}

	@Test
	void blankKeyIsRejected() {
		assertThatThrownBy(() -> template.acquire("   ")).isInstanceOf(InvalidLockKeyException.class)
			.hasMessageContaining("blank");
	}

	@Test
	void oversizedKeyIsRejectedNamingTheLimit() {
		assertThatThrownBy(() -> template.acquire("k".repeat(LockKeys.MAX_LENGTH + 1)))
			.isInstanceOf(InvalidLockKeyException.class)
			.hasMessageContaining(String.valueOf(LockKeys.MAX_LENGTH));
	}

	@Test
	void keyWithControlCharactersIsRejectedNamingTheCharacter() {
		assertThatThrownBy(() -> template.acquire("order:\n1")).isInstanceOf(InvalidLockKeyException.class)
			.hasMessageContaining("U+000A");
	}

	@Test
	void emptyGroupIsRejected() {
		assertThatThrownBy(() -> template.acquireAll(java.util.List.of(), LockOptions.defaults()))
			.isInstanceOf(InvalidLockKeyException.class)
			.hasMessageContaining("at least one key");
	}

	@Test
	void prefixIsPartOfTheLengthLimit() {
		LockTemplate prefixed = LockTemplate.builder(new InMemoryLockProvider()).keyPrefix("p".repeat(500)).build();
		assertThatThrownBy(() -> prefixed.acquire("k".repeat(20))).isInstanceOf(InvalidLockKeyException.class);
	}

}
