package dev.distlock.spring;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * Holds a lock until a returned {@link CompletionStage} completes. The lock is released before the returned future
 * completes, so a caller who sees the result also sees the lock free. Cancelling the returned future neither releases
 * the lock nor cancels the method's own stage: cancelling a {@code CompletableFuture} does not stop the work behind it
 * (a {@code supplyAsync} task runs on), so the lock stays held until the method's stage itself completes.
 */
final class FutureLocking {

	private FutureLocking() {
	}

	/**
	 * Runs the method and ties the release to its future.
	 */
	@SuppressWarnings("unchecked")
	static @Nullable Object invoke(MethodInvocation invocation, InvocationLock held) throws Throwable {
		Object returned;
		try (LockContext.Scope scope = held.openBody()) {
			returned = invocation.proceed();
		}
		catch (Throwable ex) {
			held.releaseAfter(ex);
			throw ex;
		}
		if (returned == null) {
			held.release();
			return null;
		}
		CompletionStage<Object> source = (CompletionStage<Object>) returned;
		CompletableFuture<Object> result = new CompletableFuture<>();
		source.whenComplete((value, error) -> {
			Throwable failure = error;
			try {
				if (result.isCancelled()) {
					// Nobody hears the result any more; the release must still happen, and a failure of it is logged.
					held.releaseQuietly();
					return;
				}
				held.release();
			}
			catch (RuntimeException ex) {
				if (failure == null) {
					failure = ex;
				}
				else {
					failure.addSuppressed(ex);
				}
			}
			if (failure != null) {
				result.completeExceptionally(failure);
			}
			else {
				result.complete(value);
			}
		});
		// No hook on the result's cancel: completing (or cancelling) the source early would release the lock while the
		// work that will complete it still runs. A cancelled result only means nobody waits for the value any more.
		return result;
	}

}
