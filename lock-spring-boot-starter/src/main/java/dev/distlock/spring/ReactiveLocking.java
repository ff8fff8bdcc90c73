package dev.distlock.spring;

import java.util.Optional;
import java.util.concurrent.Callable;

import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import org.springframework.aop.ProxyMethodInvocation;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Holds a lock for the life of a returned {@link Mono} or {@link Flux}: acquired on subscription off the caller's
 * thread (on bounded-elastic, so an event loop never blocks on the store), released on completion, error or cancel.
 * Each subscription takes its own lock and runs the method anew. Only loaded when Reactor is present.
 */
final class ReactiveLocking {

	private ReactiveLocking() {
	}

	static boolean isMono(Class<?> type) {
		return Mono.class.isAssignableFrom(type);
	}

	static boolean isFlux(Class<?> type) {
		return Flux.class.isAssignableFrom(type);
	}

	static Object empty(boolean flux) {
		return flux ? Flux.empty() : Mono.empty();
	}

	/**
	 * A publisher that locks, runs the method and releases.
	 * @param acquire takes the lock; empty means skip, and the publisher completes empty
	 */
	static Object invoke(MethodInvocation invocation, Callable<Optional<HeldLock>> acquire, boolean flux) {
		ProxyMethodInvocation proxyInvocation = (ProxyMethodInvocation) invocation;
		Mono<HeldLock> resource = Mono.fromCallable(() -> acquire.call().orElse(null))
			.subscribeOn(Schedulers.boundedElastic());
		if (flux) {
			return Flux.usingWhen(resource,
					held -> Flux.from(call(proxyInvocation, held))
						.contextWrite(ctx -> ctx.put(LockContext.CONTEXT_KEY, held.handles().get(0))),
					ReactiveLocking::release, (held, error) -> release(held), ReactiveLocking::release);
		}
		return Mono.usingWhen(resource,
				held -> Mono.from(call(proxyInvocation, held))
					.contextWrite(ctx -> ctx.put(LockContext.CONTEXT_KEY, held.handles().get(0))),
				ReactiveLocking::release, (held, error) -> release(held), ReactiveLocking::release);
	}

	private static Publisher<?> call(ProxyMethodInvocation invocation, HeldLock held) {
		// A fresh clone per subscription: proceeding twice on one invocation would skip the inner interceptors.
		MethodInvocation clone = invocation.invocableClone();
		try (LockContext.Scope scope = LockContext.open(held.handles())) {
			Object returned = clone.proceed();
			return returned != null ? (Publisher<?>) returned : Mono.empty();
		}
		catch (Throwable ex) {
			return Mono.error(ex);
		}
	}

	private static Mono<Void> release(HeldLock held) {
		return Mono.<Void>fromRunnable(held::release).subscribeOn(Schedulers.boundedElastic());
	}

}
