package dev.distlock.core.spi;

import java.time.Duration;

import dev.distlock.core.LockMode;
import dev.distlock.core.OwnerDetails;

/**
 * One attempt's parameters, as a provider sees them.
 * @param key the full store key (prefix applied, validated)
 * @param token the owner token, unique per acquisition; release and extend compare it
 * @param lease how long the store keeps the lock without an extend
 * @param mode exclusive or shared
 * @param maxConcurrent for shared mode, how many holders may share the key; 1 for exclusive
 * @param owner owner name and host, stored with the lock for status queries
 */
public record LockRequest(String key, String token, Duration lease, LockMode mode, int maxConcurrent,
		OwnerDetails owner) {

	/**
	 * Whether this request is for a shared lock.
	 */
	public boolean shared() {
		return mode == LockMode.SHARED;
	}

}
