package dev.distlock.core;

import java.util.Base64;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.distlock.core.internal.OwnerTokens;

import static org.assertj.core.api.Assertions.assertThat;

class OwnerTokensTest {

	@Test
	void tokensAre128BitsOfUrlSafeTextAndNeverRepeat() throws Exception {
		Set<String> tokens = java.util.concurrent.ConcurrentHashMap.newKeySet();
		Thread[] threads = new Thread[4];
		for (int t = 0; t < threads.length; t++) {
			threads[t] = new Thread(() -> {
				for (int i = 0; i < 25_000; i++) {
					tokens.add(OwnerTokens.next());
				}
			});
			threads[t].start();
		}
		for (Thread thread : threads) {
			thread.join();
		}
		assertThat(tokens).hasSize(100_000);
		Set<Integer> lengths = new HashSet<>();
		tokens.forEach(token -> lengths.add(token.length()));
		assertThat(lengths).containsExactly(22);
		assertThat(tokens).allMatch(token -> token.matches("[A-Za-z0-9_-]{22}"));
	}

	@Test
	void tokensAreTheUrlSafeBase64OfTheir16Bytes() {
		for (int i = 0; i < 10_000; i++) {
			String token = OwnerTokens.next();
			byte[] bits = Base64.getUrlDecoder().decode(token);
			assertThat(bits).hasSize(16);
			assertThat(Base64.getUrlEncoder().withoutPadding().encodeToString(bits)).isEqualTo(token);
		}
	}

}
