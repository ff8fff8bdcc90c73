package dev.distlock.spring;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;

import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Holds a lock for the life of a returned {@link Mono} or {@link Flux}: acquired on subscription off the caller's
 * thread (on bounded-elastic, so an event loop never blocks on the store), released on completion, error or cancel,
 * and released at once if it is granted after the subscriber cancelled. Each subscription takes its own lock and runs
 * the method anew. A Kotlin {@code Flow} is locked as the {@code Flux} Spring's adapter makes of it, and handed back
 * as a {@code Flow}. Only loaded when Reactor is present.
 */
final class ReactiveLocking {

	private static final Object CANCELLED = new Object();

	private ReactiveLocking() {
	}

	static boolean isMono(Class<?> type) {
		return Mono.class.isAssignableFrom(type);
	}

	static boolean isFlux(Class<?> type) {
		return Flux.class.isAssignableFrom(type);
	}

	static boolean isPublisher(Class<?> type) {
		return Publisher.class.isAssignableFrom(type);
	}

	static Object empty(LockDefinition.Kind kind) {
		return switch (kind) {
			case MONO, SUSPEND -> Mono.empty();
			case FLOW -> flow().fromPublisher(Flux.empty());
			default -> Flux.empty();
		};
	}

	/**
	 * A publisher that locks, runs the method and releases.
	 * @param acquire takes the lock; empty means skip, and the publisher completes empty
	 * @param kind one of the {@linkplain LockDefinition.Kind#isReactive() reactive} kinds
	 */
	static Object invoke(MethodInvocation invocation, Callable<Optional<InvocationLock>> acquire,
			LockDefinition.Kind kind) {
		ProxyMethodInvocation proxyInvocation = (ProxyMethodInvocation) invocation;
		Mono<InvocationLock> acquisition = acquisition(acquire);
		return switch (kind) {
			case FLOW -> flow().fromPublisher(many(acquisition, proxyInvocation, kind));
			// Spring's proxy awaits the Mono, or turns the Flux into a Flow, for the caller.
			case FLUX, SUSPEND_FLOW -> many(acquisition, proxyInvocation, kind);
			default -> one(acquisition, proxyInvocation, kind);
		};
	}

	private static Mono<?> one(Mono<InvocationLock> acquisition, ProxyMethodInvocation invocation,
			LockDefinition.Kind kind) {
		return acquisition.flatMap(held -> {
			@Nullable Body body = body(kind, held);
			return Mono
				.usingWhen(Mono.just(held),
						h -> Mono.from(call(invocation, h, kind, body))
							.contextWrite(ctx -> ctx.put(LockContext.CONTEXT_KEY, h.handles().get(0))),
						ReactiveLocking::release, (h, error) -> release(h), h -> releaseOnCancel(h, body))
				.doFinally(signal -> releaseInBackground(held, body));
		});
	}

	private static Flux<?> many(Mono<InvocationLock> acquisition, ProxyMethodInvocation invocation,
			LockDefinition.Kind kind) {
		return acquisition.flatMapMany(held -> {
			@Nullable Body body = body(kind, held);
			return Flux
				.usingWhen(Mono.just(held),
						h -> Flux.from(call(invocation, h, kind, body))
							.contextWrite(ctx -> ctx.put(LockContext.CONTEXT_KEY, h.handles().get(0))),
						ReactiveLocking::release, (h, error) -> release(h), h -> releaseOnCancel(h, body))
				.doFinally(signal -> releaseInBackground(held, body));
		});
	}

	/**
	 * Takes the lock on bounded-elastic, once per subscription. A lock granted after the subscriber cancelled (while it
	 * was waited for, or before the grant reached it) is released at once instead of being dropped: a dropped handle
	 * would stay held for its lease, and with {@code autoRenew} be renewed for ever. A wait in progress is interrupted
	 * by the cancel: the wait loop then withdraws the waiter from the store with the interrupt flag cleared, so no
	 * release hands the lock to the subscriber that has gone.
	 */
	private static Mono<InvocationLock> acquisition(Callable<Optional<InvocationLock>> acquire) {
		return Mono.create(sink -> {
			// null while acquiring, then the lock, or CANCELLED; whoever comes second releases.
			AtomicReference<@Nullable Object> slot = new AtomicReference<>();
			Disposable.Swap task = Disposables.swap();
			sink.onCancel(() -> {
				// The sink runs this only if the grant was not delivered: a lock, if any, is nobody's.
				if (slot.getAndSet(CANCELLED) instanceof InvocationLock held) {
					releaseInBackground(held, null);
				}
				else {
					task.dispose(); // interrupts a wait in progress
				}
			});
			task.update(Schedulers.boundedElastic().schedule(() -> {
				if (slot.get() == CANCELLED) {
					return; // cancelled before the attempt began
				}
				Optional<InvocationLock> held;
				try {
					held = acquire.call();
				}
				catch (Throwable ex) {
					if (slot.get() != CANCELLED) { // else nobody is left to tell
						sink.error(ex);
					}
					return;
				}
				if (held.isEmpty()) {
					sink.success();
				}
				else if (slot.compareAndSet(null, held.get())) {
					sink.success(held.get());
				}
				else {
					held.get().releaseQuietly(); // cancelled while acquiring
				}
			}));
		});
	}

	// A coroutine (a suspend function's, or a Flow's collection) runs with the lock in its context; null for Reactor.
	private static @Nullable Body body(LockDefinition.Kind kind, InvocationLock held) {
		return kind == LockDefinition.Kind.MONO || kind == LockDefinition.Kind.FLUX ? null
				: CoroutineBody.create(held.handles());
	}

	private static Publisher<?> call(ProxyMethodInvocation invocation, InvocationLock held, LockDefinition.Kind kind,
			@Nullable Body body) {
		// A fresh clone per subscription: proceeding twice on one invocation would skip the inner interceptors.
		boolean suspend = body != null && kind != LockDefinition.Kind.FLOW;
		MethodInvocation clone = suspend ? invocation.invocableClone(body.arguments(invocation.getArguments()))
				: invocation.invocableClone();
		try (LockContext.Scope scope = LockContext.open(held.handles())) {
			Object returned = clone.proceed();
			if (returned == null) {
				return Mono.empty();
			}
			if (returned instanceof Publisher<?> publisher) {
				return publisher;
			}
			return body != null ? body.publisher(returned) : (Publisher<?>) returned;
		}
		catch (Throwable ex) {
			return Mono.error(ex);
		}
	}

	// Spring registers the Flow adapter when kotlinx-coroutines-reactor is present, which LockDefinition checked.
	private static ReactiveAdapter flow() {
		Class<?> flowType = ClassUtils.resolveClassName("kotlinx.coroutines.flow.Flow",
				ReactiveLocking.class.getClassLoader());
		ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(flowType);
		if (adapter == null) {
			throw new IllegalStateException("No reactive adapter for kotlinx.coroutines.flow.Flow; is "
					+ "kotlinx-coroutines-reactor on the class path?");
		}
		return adapter;
	}

	private static Mono<Void> release(InvocationLock held) {
		return Mono.<Void>fromRunnable(held::release).subscribeOn(Schedulers.boundedElastic());
	}

	// A coroutine's release waits for its end (see CoroutineBody), done in doFinally, which runs after the cancel has
	// reached the coroutine.
	private static Mono<Void> releaseOnCancel(InvocationLock held, @Nullable Body body) {
		return body != null ? Mono.empty()
				: Mono.<Void>fromRunnable(held::releaseQuietly).subscribeOn(Schedulers.boundedElastic());
	}

	// Idempotent: after a normal end usingWhen has released already. Covers a cancel that came before usingWhen got
	// the lock, which it would then never see. Off the caller's thread, which may be an event loop.
	private static void releaseInBackground(InvocationLock held, @Nullable Body body) {
		if (held.isReleased()) {
			return;
		}
		if (body == null) {
			Schedulers.boundedElastic().schedule(held::releaseQuietly);
		}
		else {
			body.ended().whenComplete((ended, error) -> Schedulers.boundedElastic().schedule(held::releaseQuietly));
		}
	}

	/**
	 * What runs under one lock of a Kotlin {@code suspend} function or {@code Flow}, implemented by {@link CoroutineBody} so that this
	 * class never links Kotlin types.
	 */
	interface Body {

		/**
		 * The invocation's arguments, with the lock made visible to the coroutine.
		 */
		@Nullable Object[] arguments(@Nullable Object[] arguments);

		/**
		 * A {@code Flow} as a publisher whose collecting coroutine carries the lock.
		 */
		Publisher<?> publisher(Object flow);

		/**
		 * Completes once the coroutine has ended; called only after it was cancelled.
		 */
		CompletableFuture<?> ended();

	}

}
