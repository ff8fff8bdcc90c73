package dev.distlock.core;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Who holds a lock, stored beside it for status queries. Never used for ownership checks:
 * those compare the owner token.
 * @param owner an application or instance name
 * @param host the host name of the holder
 */
public record OwnerDetails(String owner, String host) {

	private static final String LOCAL_HOST = resolveHost();

	/**
	 * Checks both names as {@link LockIds} checks lock IDs, so nothing a store cannot give back unchanged is stored.
	 * @throws InvalidLockOptionException naming {@code owner} or {@code host}
	 */
	public OwnerDetails {
		LockIds.validate("owner", owner);
		LockIds.validate("host", host);
	}

	/**
	 * Details for this JVM under the given owner name.
	 */
	public static OwnerDetails of(String owner) {
		return new OwnerDetails(owner, LOCAL_HOST);
	}

	/**
	 * Details for this JVM under the default owner name {@code distlock}.
	 */
	public static OwnerDetails local() {
		return of("distlock");
	}

	private static String resolveHost() {
		try {
			String host = InetAddress.getLocalHost().getHostName();
			return host != null && !host.isBlank() && host.length() <= LockIds.MAX_LENGTH
					&& LockKeys.malformed(host) == null ? host : "unknown";
		}
		catch (UnknownHostException ex) {
			return "unknown";
		}
	}

}
