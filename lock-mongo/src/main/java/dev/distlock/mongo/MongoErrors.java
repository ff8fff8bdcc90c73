package dev.distlock.mongo;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import com.mongodb.MongoException;
import com.mongodb.MongoInterruptedException;
import com.mongodb.MongoOperationTimeoutException;
import com.mongodb.MongoServerException;
import com.mongodb.MongoSocketOpenException;
import com.mongodb.MongoTimeoutException;

import dev.distlock.core.LockStoreException;

/**
 * Turns driver errors into {@link LockStoreException}, recognises the duplicate-key error by its code, and runs the
 * clean-up calls that an interrupt must not defeat.
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
	 * Whether a failed write may still have been applied on the server: anything but an error raised before the
	 * command left the client (no server selected in time, no connection opened, a closed client). A socket error, an
	 * interrupt and a write-concern error all may follow an applied write. The driver's operation timeout is both: it
	 * carries the socket's timeout as its cause when it struck while the command was on the wire, and no cause when
	 * it struck while waiting for a server or a connection (measured on driver 5.8), when nothing was sent.
	 */
	static boolean mayHaveRun(@Nullable Throwable error) {
		if (error instanceof MongoOperationTimeoutException) {
			return error.getCause() != null;
		}
		return !(error instanceof MongoTimeoutException || error instanceof MongoSocketOpenException
				|| error instanceof IllegalStateException || error == null);
	}

	/**
	 * Runs one store call on the driver, translating its errors; {@code operation} and the key go into the message.
	 * The calls go to the driver's collection, not through {@code MongoTemplate}, so there is no Spring translation
	 * to undo: a {@link MongoException}, or the {@link IllegalStateException} a closed client answers with ("state
	 * should be: open").
	 */
	static <T> T call(@Nullable String key, String operation, Supplier<T> storeCall) {
		return call(key, operation, -1, storeCall);
	}

	/**
	 * As {@link #call(String, String, Supplier)}, for a call bounded to {@code boundMillis}; a timeout names the
	 * bound.
	 */
	static <T> T call(@Nullable String key, String operation, long boundMillis, Supplier<T> storeCall) {
		try {
			return storeCall.get();
		}
		catch (MongoException | IllegalStateException ex) {
			String where = key != null ? " for '" + key + "'" : "";
			String bound = ex instanceof MongoOperationTimeoutException && boundMillis > 0
					? " within its " + boundMillis + " ms bound" : "";
			throw new LockStoreException(key, "Mongo lock store failed to " + operation + where + bound + ": "
					+ ex.getClass().getSimpleName() + ": " + ex.getMessage(), ex);
		}
	}

	/** A few threads, made once: clean-up is one short statement, and the pool must not grow with concurrency. */
	private static final int CLEANUP_THREADS = 4;

	/**
	 * Clean-up statements run here, on threads nobody interrupts: the driver aborts a statement whose thread is
	 * interrupted mid-call, and a release abandoned after it reached the server cannot tell "released" from "lost"
	 * once another holder has come and gone.
	 */
	private static final ExecutorService CLEANUP = cleanupThreads();

	private static ExecutorService cleanupThreads() {
		ThreadPoolExecutor pool = new ThreadPoolExecutor(CLEANUP_THREADS, CLEANUP_THREADS, 0, TimeUnit.MILLISECONDS,
				new LinkedBlockingQueue<>(), runnable -> {
					Thread thread = new Thread(runnable, "distlock-mongo-cleanup");
					thread.setDaemon(true);
					return thread;
				});
		pool.prestartAllCoreThreads(); // all at once, so the thread count never grows with use
		return pool;
	}

	/**
	 * Runs the call on a clean-up thread and waits for it through interrupts (which are kept for the caller); the call
	 * itself is bounded, so the wait is too.
	 */
	private static <T> T offCallerThread(@Nullable String key, String operation, long boundMillis,
			Supplier<T> storeCall) {
		Future<T> result = CLEANUP.submit(() -> call(key, operation, boundMillis, storeCall));
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return result.get();
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof RuntimeException runtime) {
				throw runtime;
			}
			throw new LockStoreException(key, "Mongo lock store failed to " + operation, ex.getCause());
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Runs a clean-up call (a release, the clean-up after a failed acquire) so that the caller's interrupt cannot
	 * defeat it: the statement runs on a clean-up thread nobody interrupts (the driver would abort it with
	 * {@link MongoInterruptedException}), and the caller waits for it through interrupts, keeping its flag. A call
	 * that fails in a way that may have left it applied (a timeout, a socket error) is made once more, as
	 * {@code replay}.
	 * @param replay the statement that answers correctly whether or not the first attempt was applied, or null for
	 * no second attempt
	 */
	static <T> T uninterrupted(@Nullable String key, String operation, long boundMillis, Supplier<T> storeCall,
			@Nullable Supplier<T> replay) {
		try {
			return offCallerThread(key, operation, boundMillis, storeCall);
		}
		catch (LockStoreException ex) {
			if (replay == null || !mayHaveRun(ex.getCause())) {
				throw ex;
			}
			try {
				return offCallerThread(key, operation, boundMillis, replay);
			}
			catch (LockStoreException again) {
				again.addSuppressed(ex);
				throw again;
			}
		}
	}

}
