package dev.distlock.mongo;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.bson.Document;
import org.jspecify.annotations.Nullable;

import com.mongodb.client.MongoCollection;

import dev.distlock.core.spi.Acquisition;
import dev.distlock.core.spi.LockRequest;

import static dev.distlock.mongo.LockDocuments.ID;

/**
 * A waiting acquisition on MongoDB: it polls (the template's backoff decides when), and while an exclusive request
 * waits it keeps a mark in the lock document that refuses new shared holders (writer priority). Each refused attempt
 * renews the mark for a short validity on the database clock, so a waiter that died stops keeping readers out soon;
 * the grant or {@link #close()} removes it.
 */
final class MongoAcquisition implements Acquisition {

	private static final Log logger = LogFactory.getLog(MongoAcquisition.class);

	/** Marking and withdrawing carry no lease to derive a bound from. */
	private static final long MARK_CALL_MS = TimeLimits.ADMIN.toMillis();

	/** The least a mark lives: attempts on a loaded machine come further apart than the backoff says. */
	static final Duration MIN_MARK = Duration.ofSeconds(1);

	/** The most a mark lives, whatever the backoff: a writer that died keeps readers out no longer. */
	static final Duration MAX_MARK = Duration.ofSeconds(30);

	private final MongoAcquirer acquirer;

	private final MongoCollection<Document> collection;

	private final LockRequest request;

	/** The last wait between attempts; the mark must outlive the next one. */
	private long lastWaitMillis;

	private boolean marked;

	MongoAcquisition(MongoAcquirer acquirer, MongoCollection<Document> collection, LockRequest request) {
		this.acquirer = acquirer;
		this.collection = collection;
		this.request = request;
	}

	@Override
	public Optional<Granted> tryOnce() {
		long sent = System.nanoTime();
		Optional<Granted> granted = acquirer.tryAcquire(request).map(lease -> new Granted(lease, sent));
		if (granted.isPresent()) {
			marked = false; // an exclusive grant removes the mark
		}
		else if (!request.shared()) {
			long validity = Math.min(MAX_MARK.toMillis(), Math.max(MIN_MARK.toMillis(), 3 * lastWaitMillis));
			marked |= markWaiter(validity);
		}
		return granted;
	}

	/**
	 * A third of the longest mark for an exclusive request: each wait is at most that, so the mark, renewed for three
	 * waits, never lapses between two attempts however long the backoff's delay. None for a shared request (no mark).
	 */
	@Override
	public @Nullable Duration longestWait() {
		return request.shared() ? null : MAX_MARK.dividedBy(3);
	}

	@Override
	public boolean awaitSignal(Duration max) throws InterruptedException {
		lastWaitMillis = max.toMillis();
		TimeUnit.NANOSECONDS.sleep(max.toNanos());
		return false;
	}

	@Override
	public void close() {
		if (marked) {
			clearWaiter();
		}
	}

	/**
	 * Marks the exclusive request as waiting for its key for {@code validityMs} on the database clock. Best effort:
	 * priority is about fairness, not safety, so a failure is logged and the wait goes on.
	 * @return whether a mark was written
	 */
	private boolean markWaiter(long validityMs) {
		try {
			return TimeLimits.bounded(collection, MARK_CALL_MS).updateOne(new Document(ID, request.key()),
					GrantStatements.markWaiter(request.token(), validityMs)).getMatchedCount() == 1;
		}
		catch (RuntimeException ex) {
			logger.debug("Could not mark a writer waiting for lock '" + request.key() + "'", ex);
			return false;
		}
	}

	/**
	 * Withdraws this request's waiting mark, if it is still the one recorded. Never throws: the mark ends by itself.
	 */
	private void clearWaiter() {
		try {
			TimeLimits.bounded(collection, MARK_CALL_MS)
				.updateOne(GrantStatements.waiterOf(request.key(), request.token()), GrantStatements.clearWaiter());
		}
		catch (RuntimeException ex) {
			logger.debug("Could not withdraw the waiting mark on lock '" + request.key() + "'; it ends by itself", ex);
		}
	}

}
