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
		assertThat(new LockOperations(template).heldLocks()).isEmpty();
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
	void loneSurrogatesAreRejectedSoThatCutEmojiDoNotCollide() {
		String emoji = "\uD83D\uDE00";
		// "s:" + the first half of an emoji, as substring(0, 3) of "s:😀" gives; and a lone high and low surrogate.
		for (String key : new String[] { ("s:" + emoji).substring(0, 3), "s:\uD800", "s:\uDBFF", "s:\uDC00x",
				"\uDE00" + emoji, emoji + "\uD83D" }) {
			assertThatThrownBy(() -> template.acquire(key)).isInstanceOf(InvalidLockKeyException.class)
				.hasMessageContaining("lone surrogate")
				.hasMessageContaining("well-formed UTF-16");
		}
		assertThat(new LockOperations(template).heldLocks()).isEmpty();
	}

	@Test
	void surrogatePairsAndEmojiAreAccepted() {
		String key = "s:\uD83D\uDE00:\uD800\uDC00:caf\u00E9";
		assertThat(LockKeys.validate(key)).isEqualTo(key);
		try (LockHandle handle = template.acquire(key)) {
			assertThat(handle.key()).isEqualTo(key);
		}
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
