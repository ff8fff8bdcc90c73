package dev.distlock.test;

import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.WeakHashMap;

/**
 * Assertions that code runs under a lock, for application tests on a {@link TestLockProvider}. Call
 * {@link #assertLocked(String)} inside the method that should be guarded (a test double of a collaborator it calls,
 * or a callback it runs) to prove that the lock is held while it runs; from the test itself, read
 * {@link TestLockProvider#acquiredKeys()} afterwards to see which locks a call took.
 * <p>
 * They ask every {@link TestLockProvider} of this JVM that is still in use, so they work on any thread (async and
 * reactive bodies included) without a reference to the provider. They see locks, not callers: a lock on the key held
 * by another caller passes too, so a test that asserts on a key keeps other holders of it out.
 */
public final class LockAssertions {

	/** The test stores of this JVM; one that is no longer referenced drops out. */
	private static final Set<TestLockProvider> stores = Collections.synchronizedSet(
			Collections.newSetFromMap(new WeakHashMap<>()));

	private LockAssertions() {
	}

	/**
	 * Fails unless a lock on {@code key} is held now.
	 * @param key the store's key: the template's key prefix included
	 * @throws AssertionError naming the key and the keys that are locked, if it is not held
	 */
	public static void assertLocked(String key) {
		if (stores().stream().noneMatch(store -> store.isLocked(key))) {
			throw new AssertionError("Expected a lock on '" + key + "' to be held here, but it is not; "
					+ describeLocked());
		}
	}

	/**
	 * Fails if a lock on {@code key} is held now.
	 * @param key the store's key: the template's key prefix included
	 * @throws AssertionError naming the key, if it is held
	 */
	public static void assertNotLocked(String key) {
		if (stores().stream().anyMatch(store -> store.isLocked(key))) {
			throw new AssertionError("Expected no lock on '" + key + "' here, but one is held");
		}
	}

	/**
	 * The keys locked now in every test store of this JVM, sorted; call it inside a method to record which locks
	 * it ran under.
	 */
	public static Set<String> lockedKeys() {
		Set<String> keys = new TreeSet<>();
		stores().forEach(store -> keys.addAll(store.lockedKeys()));
		return keys;
	}

	/** Called by each new {@link TestLockProvider}. */
	static void register(TestLockProvider store) {
		stores.add(store);
	}

	private static List<TestLockProvider> stores() {
		synchronized (stores) {
			return List.copyOf(stores);
		}
	}

	private static String describeLocked() {
		if (stores().isEmpty()) {
			return "no TestLockProvider exists: lock through one (new TestLockProvider(), or "
					+ "@AutoConfigureTestDistributedLock in a Spring Boot test)";
		}
		Set<String> locked = lockedKeys();
		return locked.isEmpty() ? "no lock is held" : "the locks held are " + locked;
	}

}
