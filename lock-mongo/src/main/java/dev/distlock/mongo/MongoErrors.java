package dev.distlock.mongo;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

import com.mongodb.MongoException;
import com.mongodb.MongoServerException;
import com.mongodb.MongoWriteException;

import dev.distlock.core.LockStoreException;

/**
 * Turns driver and Spring data-access errors into {@link LockStoreException}, and recognises the duplicate-key
 * error by its code.
 */
final class MongoErrors {

	/** The server's duplicate-key error code. */
	static final int DUPLICATE_KEY = 11000;

	private MongoErrors() {
	}

	/**
	 * Whether the error is the server's duplicate-key error, read from the error code, never the message.
	 */
	static boolean isDuplicateKey(MongoException ex) {
		if (ex instanceof MongoWriteException write) {
			return write.getError().getCode() == DUPLICATE_KEY;
		}
		return ex instanceof MongoServerException && ex.getCode() == DUPLICATE_KEY;
	}

	/**
	 * Runs one store call, translating its errors; {@code operation} and the key go into the message.
	 */
	static <T> T call(@Nullable String key, String operation, Supplier<T> storeCall) {
		try {
			return storeCall.get();
		}
		catch (MongoException | DataAccessException ex) {
			throw translate(key, operation, ex);
		}
		catch (IllegalStateException ex) {
			// The driver's answer once the client is closed ("state should be: open").
			throw translate(key, operation, ex);
		}
	}

	static LockStoreException translate(@Nullable String key, String operation, RuntimeException ex) {
		String where = key != null ? " for '" + key + "'" : "";
		return new LockStoreException(key,
				"Mongo lock store failed to " + operation + where + ": " + ex.getClass().getSimpleName() + ": "
						+ ex.getMessage(), ex);
	}

}
