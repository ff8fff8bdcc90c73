package dev.distlock.spring;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;

import dev.distlock.core.LockHandle;

import kotlin.Unit;
import kotlin.coroutines.AbstractCoroutineContextElement;
import kotlin.coroutines.Continuation;
import kotlin.coroutines.CoroutineContext;
import kotlinx.coroutines.Job;
import kotlinx.coroutines.ThreadContextElement;
import kotlinx.coroutines.flow.Flow;
import kotlinx.coroutines.reactor.ReactorFlowKt;

/**
 * The lock inside one call of a Kotlin {@code suspend} function, or one collection of a {@code Flow} result: a
 * coroutine context element that makes the call's handles current in {@link LockContext} on whichever thread the
 * coroutine runs, and that learns when the coroutine has ended. A cancelled call releases its lock only then: a cancel
 * stops a coroutine at its next suspension, but a blocking call in it (JDBC, say) runs on, and must not run once the
 * lock is free. Only loaded for suspend functions and {@code Flow} results.
 */
final class CoroutineBody extends AbstractCoroutineContextElement
		implements ThreadContextElement<LockContext.Scope>, ReactiveLocking.Body {

	private static final CoroutineContext.Key<CoroutineBody> KEY = new CoroutineContext.Key<>() {
	};

	private final List<LockHandle> handles;

	private final CompletableFuture<Boolean> ended = new CompletableFuture<>();

	// Claimed by the coroutine's first run (which then waits for its Job) or by ended() if that comes first.
	private final AtomicBoolean claimed = new AtomicBoolean();

	CoroutineBody(List<LockHandle> handles) {
		super(KEY);
		this.handles = handles;
	}

	/**
	 * A body for one call holding the handles; a factory, so that callers never link this class without Kotlin.
	 */
	static ReactiveLocking.Body create(List<LockHandle> handles) {
		return new CoroutineBody(handles);
	}

	/**
	 * The call's arguments with this element added to the caller's continuation's context, which Spring's AOP gives
	 * the coroutine it starts for the function (without the caller's {@code Job}).
	 */
	@Override
	public @Nullable Object[] arguments(@Nullable Object[] arguments) {
		@Nullable Object[] copy = arguments.clone();
		@SuppressWarnings("unchecked")
		Continuation<Object> caller = (Continuation<Object>) copy[copy.length - 1];
		if (caller != null) {
			CoroutineContext context = caller.getContext().plus(this);
			copy[copy.length - 1] = new Continuation<Object>() {

				@Override
				public CoroutineContext getContext() {
					return context;
				}

				@Override
				public void resumeWith(Object result) {
					caller.resumeWith(result);
				}

			};
		}
		return copy;
	}

	/**
	 * A {@code Flow} result as the {@code Flux} that collects it in a coroutine carrying this element.
	 */
	@Override
	public Publisher<?> publisher(Object flow) {
		return ReactorFlowKt.asFlux((Flow<?>) flow, this);
	}

	@Override
	public LockContext.Scope updateThreadContext(CoroutineContext context) {
		if (claimed.compareAndSet(false, true)) {
			Job job = context.get(Job.Key);
			if (job != null) {
				job.invokeOnCompletion(cause -> {
					ended.complete(true);
					return Unit.INSTANCE;
				});
			}
			else {
				ended.complete(true);
			}
		}
		return LockContext.open(handles);
	}

	@Override
	public void restoreThreadContext(CoroutineContext context, LockContext.Scope scope) {
		scope.close();
	}

	/**
	 * Completes once the coroutine has ended. Called after the coroutine was cancelled: if it has not begun by then,
	 * it completes at once, since a coroutine cancelled before it began never runs its body.
	 */
	@Override
	public CompletableFuture<Boolean> ended() {
		if (claimed.compareAndSet(false, true)) {
			ended.complete(true);
		}
		return ended;
	}

}
