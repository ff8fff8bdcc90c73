package dev.distlock.jdbc;

import java.time.Duration;
import java.util.function.Supplier;

import dev.distlock.core.LockStoreException;
import dev.distlock.core.spi.Interrupts;
import dev.distlock.core.spi.Lease;

/**
 * A lock granted by {@link JdbcLockProvider}. Extend and release are one statement each (a short transaction for a
 * shared lock), filtered on the owner token and on a lease still running by the database clock, so a stale holder
 * touches nothing. Each call is bounded by the time left on the lease as this JVM counts it, with a floor; a call that
 * fails in a way that may have left it applied is made once more, which is safe as both are idempotent per token.
 */
final class JdbcLease implements Lease {

	private final HolderCalls calls;

	private final String key;

	private final String token;

	private final boolean shared;

	private final long fencingToken;

	private final Duration callTimeout;

	/**
	 * Whether the holder's release may delete the key row: a plain exclusive lock, with a lease and no lock ID, whose
	 * grant saw no live waiter's mark ({@link HolderCalls#releaseDeleting}).
	 */
	private final boolean deletable;

	/** Set once this lease released its lock, so a second release answers as the first did. */
	private volatile boolean released;

	/** {@link System#nanoTime()} at which the lease ends as this JVM counts it: from before the granting send. */
	private volatile long expiresAtNanos;

	JdbcLease(HolderCalls calls, String key, String token, boolean shared, long fencingToken, long expiresAtNanos,
			Duration callTimeout, boolean deletable) {
		this.deletable = deletable;
		this.calls = calls;
		this.key = key;
		this.token = token;
		this.shared = shared;
		this.fencingToken = fencingToken;
		this.expiresAtNanos = expiresAtNanos;
		this.callTimeout = callTimeout;
	}

	@Override
	public long fencingToken() {
		return fencingToken;
	}

	/**
	 * {@inheritDoc}
	 * @throws dev.distlock.core.InvalidLockOptionException naming {@code lease} if it is not positive or longer than
	 * 365 days; nothing is sent then
	 */
	@Override
	public boolean extend(Duration lease) {
		long leaseMs = TimeLimits.leaseMs("lease", lease);
		long start = System.nanoTime();
		long bound = TimeLimits.leaseBoundMillis(expiresAtNanos - start, callTimeout);
		boolean extended = twice(() -> calls.extend(key, token, shared, leaseMs, leaseMs, bound));
		if (extended) {
			expiresAtNanos = start + leaseMs * 1_000_000L;
		}
		return extended;
	}

	/**
	 * {@inheritDoc} One read with the filter of extend and release: the token, and a lease still running on the
	 * database clock. Bounded like them, never below a healthy round trip.
	 */
	@Override
	public boolean isHeld() {
		if (released) {
			return false;
		}
		long bound = TimeLimits.leaseBoundMillis(expiresAtNanos - System.nanoTime(), callTimeout);
		return calls.isHeld(key, token, shared, bound);
	}

	/**
	 * {@inheritDoc} When the statement finds nothing to release, a read tells whether this token's own release already
	 * went through (a first attempt whose reply was lost), so a release that worked is never reported as lost. A plain
	 * exclusive lock with at least four times the floor of its lease left deletes its row
	 * ({@link HolderCalls#releaseDeleting}), each attempt bounded by a quarter of the lease left, so that the first
	 * attempt and the retry's three statements end while the lease still runs, when a row found gone answers
	 * "released"; otherwise the row is kept with this token's release mark.
	 */
	@Override
	public boolean release() {
		if (released) {
			return true;
		}
		long left = expiresAtNanos - System.nanoTime();
		if (deletable && left / 4 >= TimeLimits.FLOOR.toNanos()) {
			long end = expiresAtNanos;
			long bound = TimeLimits.leaseBoundMillis(left / 4, callTimeout);
			released = twice(() -> calls.releaseDeleting(key, token, fencingToken, end, bound));
			return released;
		}
		long bound = TimeLimits.leaseBoundMillis(left, callTimeout);
		released = twice(() -> calls.release(key, token, shared, true, true, bound));
		return released;
	}

	/** Runs an idempotent call, once more if the first failed after it may have run; an interrupt defeats neither. */
	private static boolean twice(Supplier<Boolean> call) {
		return Interrupts.uninterruptibly(() -> {
			try {
				return call.get();
			}
			catch (LockStoreException ex) {
				if (!LockDatabase.mayHaveRun(ex.getCause())) {
					throw ex;
				}
				try {
					return call.get();
				}
				catch (LockStoreException again) {
					again.addSuppressed(ex);
					throw again;
				}
			}
		});
	}

	@Override
	public String toString() {
		return "JdbcLease[key='" + key + "', fencingToken=" + fencingToken + (shared ? ", shared" : "") + "]";
	}

}
