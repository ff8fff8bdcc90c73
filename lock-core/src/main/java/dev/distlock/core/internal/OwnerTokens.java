package dev.distlock.core.internal;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * Owner tokens: 128 bits from {@link SecureRandom}, so ownership never depends on thread identity.
 *
 * <p>One shared {@code SecureRandom} serialises every acquiring thread on its lock. Tokens come instead from a small
 * stripe of independently seeded DRBG instances, picked by thread id, so concurrent acquirers rarely meet.
 */
public final class OwnerTokens {

	private static final int STRIPES = 16;

	private static final SecureRandom[] RANDOMS = new SecureRandom[STRIPES];

	private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

	static {
		for (int i = 0; i < STRIPES; i++) {
			RANDOMS[i] = newRandom();
		}
	}

	private OwnerTokens() {
	}

	/**
	 * A fresh token of 22 URL-safe characters.
	 */
	public static String next() {
		byte[] bytes = new byte[16];
		RANDOMS[(int) (Thread.currentThread().getId() & (STRIPES - 1))].nextBytes(bytes);
		return ENCODER.encodeToString(bytes);
	}

	private static SecureRandom newRandom() {
		try {
			return SecureRandom.getInstance("DRBG");
		}
		catch (NoSuchAlgorithmException ex) {
			return new SecureRandom();
		}
	}

}
