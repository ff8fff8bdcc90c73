package dev.distlock.spring;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * Holds a lock until a returned {@link CompletionStage} completes. The lock is released before the returned future
 * completes, so a caller who sees the result also sees the lock free; cancelling the returned future releases it too.
 */
final class FutureLocking {

	private FutureLocking() {
	}

	/**
	 * Runs the method and ties the release to its future.
	 */
	@SuppressWarnings("unchecked")
	static @Nullable Object invoke(MethodInvocation invocation, HeldLock held) throws Throwable {
		Object returned;
		try (LockContext.Scope scope = LockContext.open(held.handles())) {
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
		result.whenComplete((value, error) -> {
			if (result.isCancelled()) {
				held.releaseQuietly();
				if (source instanceof Future<?> future) {
					future.cancel(false);
				}
			}
		});
		return result;
	}

}
