package dev.distlock.core.internal;

import java.security.SecureRandom;
import java.util.Base64;

/**
 * Owner tokens: 128 bits from {@link SecureRandom}, so ownership never depends on thread identity.
 */
public final class OwnerTokens {

	private static final SecureRandom RANDOM = new SecureRandom();

	private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

	private OwnerTokens() {
	}

	/**
	 * A fresh token of 22 URL-safe characters.
	 */
	public static String next() {
		byte[] bytes = new byte[16];
		RANDOM.nextBytes(bytes);
		return ENCODER.encodeToString(bytes);
	}

}
