package dev.distlock.spring;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.distlock.core.DistributedLockException;
import dev.distlock.core.FailureMode;
import dev.distlock.core.LockGroup;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;

/**
 * The lock (or lock group) one call holds, released exactly once whichever way the call ends.
 */
final class InvocationLock {

	private static final Log logger = LogFactory.getLog(InvocationLock.class);

	private final LockTemplate template;

	private final List<LockHandle> handles;

	private final AutoCloseable closer;

	private final AtomicBoolean released = new AtomicBoolean();

	private final boolean periodic;

	private InvocationLock(LockTemplate template, List<LockHandle> handles, AutoCloseable closer, boolean periodic) {
		this.template = template;
		this.handles = handles;
		this.closer = closer;
		this.periodic = periodic;
	}

	/**
	 * Acquires the keys per the definition; for a {@link DistributedLock#period() period} method, the keys of the
	 * period the store's clock is in now, read once.
	 * @return empty if the lock stayed held and the definition skips on failure
	 */
	static Optional<InvocationLock> acquire(LockTemplate template, LockDefinition definition, List<String> keys) {
		LockPeriod period = definition.period();
		if (period == null) {
			return acquire(template, definition, keys, definition.options(), false);
		}
		Instant storeTime = template.storeTime().orElseThrow(() -> new IllegalStateException(
				"Lock provider '" + template.provider().name() + "' has no store clock for a period"));
		long number = period.number(storeTime);
		List<String> periodKeys = keys.stream().map(key -> LockPeriod.key(key, number)).toList();
		return acquire(template, definition, periodKeys, period.options(definition.options(), storeTime), true);
	}

	private static Optional<InvocationLock> acquire(LockTemplate template, LockDefinition definition,
			List<String> keys, LockOptions options, boolean periodic) {
		boolean skip = options.onFailure() == FailureMode.SKIP;
		if (definition.group()) {
			Optional<LockGroup> group = skip ? template.tryAcquireAll(keys, options)
					: Optional.of(template.acquireAll(keys, options));
			return group.map(g -> new InvocationLock(template, g.handles(), g, periodic));
		}
		Optional<LockHandle> handle = skip ? template.tryAcquire(keys.get(0), options)
				: Optional.of(template.acquire(keys.get(0), options));
		return handle.map(h -> new InvocationLock(template, List.of(h), h, periodic));
	}

	/**
	 * The handles, in key order.
	 */
	List<LockHandle> handles() {
		return handles;
	}

	/**
	 * Makes the lock current for the method's body on this thread until the scope closes: {@link LockContext} sees
	 * the handles, and the template's listeners open theirs (the observation listener makes the hold's span current,
	 * so the body's spans nest under it).
	 */
	LockContext.Scope openBody() {
		LockContext.Scope context = LockContext.open(handles);
		LockListener.Scope work = template.openWorkScope(handles);
		return () -> {
			try {
				work.close();
			}
			finally {
				context.close();
			}
		};
	}

	/**
	 * Whether a release has been started.
	 */
	boolean isReleased() {
		return released.get();
	}

	/**
	 * Releases the lock unless already done; a lost lock throws. A period's lock whose lease has run out (the run
	 * outlasted its period) is left alone: the store has let it go, and nobody takes a past period's key again.
	 */
	void release() {
		if (released.compareAndSet(false, true)) {
			if (periodic && handles.stream().noneMatch(LockHandle::isHeld)) {
				logger.debug("Lock '" + handles.get(0).key() + "' ran out with its period before the run ended");
				return;
			}
			try {
				closer.close();
			}
			catch (DistributedLockException ex) {
				throw ex;
			}
			catch (Exception ex) {
				throw new IllegalStateException("Release of lock '" + handles.get(0).key() + "' failed", ex);
			}
		}
	}

	/**
	 * Releases after the call failed, attaching a release failure to the call's error rather than hiding it.
	 */
	void releaseAfter(Throwable failure) {
		try {
			release();
		}
		catch (RuntimeException ex) {
			failure.addSuppressed(ex);
		}
	}

	/**
	 * Releases where nobody can hear a failure any more, as after a cancel.
	 */
	void releaseQuietly() {
		try {
			release();
		}
		catch (RuntimeException ex) {
			logger.warn("Release of lock '" + handles.get(0).key() + "' failed: " + ex.getMessage());
		}
	}

}
