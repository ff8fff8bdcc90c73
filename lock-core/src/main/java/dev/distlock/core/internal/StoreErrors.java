package dev.distlock.core.internal;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.DistributedLockException;
import dev.distlock.core.LockStoreException;

/**
 * The one place a store's failure becomes the error a caller sees: a {@link LockStoreException} naming the store, the
 * operation and the key. Stores throw {@link LockStoreException} (or their client's own exceptions) with the store's
 * words only; other {@link DistributedLockException}s, such as a rejected option, pass through unchanged.
 */
public final class StoreErrors {

	private final String storeName;

	/**
	 * Translates for the named store, such as {@code redis}.
	 */
	public StoreErrors(String storeName) {
		this.storeName = storeName;
	}

	/**
	 * Runs one store call.
	 * @param key the lock key, or null for calls about no single key
	 * @param operation what the call does, as a verb: {@code acquire}, {@code release}, {@code ping}
	 */
	public <T> T call(@Nullable String key, String operation, Supplier<T> call) {
		try {
			return call.get();
		}
		catch (RuntimeException ex) {
			throw error(key, operation, ex);
		}
	}

	/**
	 * The error to throw for a store call that failed with {@code error}, for a caller that calls the provider
	 * itself and catches its errors ({@code throw store.error(key, "acquire", ex)}): the translated
	 * {@link LockStoreException}, or the error itself when it is another {@link DistributedLockException} or an
	 * {@link UnsupportedOperationException}.
	 * @param key the lock key, or null for calls about no single key
	 * @param operation what the call does, as a verb: {@code acquire}, {@code release}, {@code ping}
	 * @param error what the provider threw
	 */
	public RuntimeException error(@Nullable String key, String operation, RuntimeException error) {
		if (error instanceof LockStoreException
				|| !(error instanceof DistributedLockException || error instanceof UnsupportedOperationException)) {
			return translate(key, operation, error);
		}
		return error;
	}

	/**
	 * The error for a failed call.
	 */
	public LockStoreException translate(@Nullable String key, String operation, RuntimeException error) {
		// A store's own LockStoreException only carries its words: keep its cause, the client's exception, directly.
		Throwable cause = error instanceof LockStoreException && error.getCause() != null ? error.getCause() : error;
		return new LockStoreException(key, "Lock store '" + storeName + "' could not " + operation
				+ (key != null ? " lock '" + key + "'" : "") + ": " + error.getMessage(), cause);
	}

}
