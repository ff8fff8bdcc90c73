package dev.distlock.mongo;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import com.mongodb.MongoException;
import com.mongodb.MongoServerException;

import dev.distlock.core.LockStoreException;

/**
 * Turns driver errors into {@link LockStoreException}, and recognises the duplicate-key error by its code.
 */
final class MongoErrors {

	/** The server's duplicate-key error code. */
	static final int DUPLICATE_KEY = 11000;

	private MongoErrors() {
	}

	/**
	 * Whether the error is the server's duplicate-key error, read from the error code, never the message. A write
	 * error ({@code MongoWriteException}) and a command error ({@code findAndModify}'s
	 * {@code MongoCommandException}) both carry the server's code in {@link MongoServerException#getCode()}.
	 */
	static boolean isDuplicateKey(MongoException ex) {
		return ex instanceof MongoServerException && ex.getCode() == DUPLICATE_KEY;
	}

	/**
	 * Runs one store call on the driver, translating its errors; {@code operation} and the key go into the message.
	 * The calls go to the driver's collection, not through {@code MongoTemplate}, so there is no Spring translation
	 * to undo: a {@link MongoException}, or the {@link IllegalStateException} a closed client answers with ("state
	 * should be: open").
	 */
	static <T> T call(@Nullable String key, String operation, Supplier<T> storeCall) {
		try {
			return storeCall.get();
		}
		catch (MongoException | IllegalStateException ex) {
			String where = key != null ? " for '" + key + "'" : "";
			throw new LockStoreException(key, "Mongo lock store failed to " + operation + where + ": "
					+ ex.getClass().getSimpleName() + ": " + ex.getMessage(), ex);
		}
	}

}
