package dev.distlock.spring;

import java.lang.reflect.Method;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;
import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodParameter;
import org.springframework.util.ClassUtils;

import dev.distlock.core.LockOptions;

/**
 * Everything resolved once per annotated method: its parsed keys, its options and how its result holds the lock.
 * @param method the annotated method
 * @param keys the parsed key expressions
 * @param group whether the keys are locked as one group ({@code keys} attribute)
 * @param options the options, attributes over the template's defaults
 * @param kind how the method's result holds the lock
 * @param period the once-per-period mode, or null for a plain lock
 * @param transactionScoped whether the lock is the current transaction's advisory lock rather than a lease
 */
record LockDefinition(Method method, LockKeyExpressions keys, boolean group, LockOptions options, Kind kind,
		@Nullable LockPeriod period, boolean transactionScoped) {

	private static final boolean reactorPresent = ClassUtils.isPresent("reactor.core.publisher.Mono",
			LockDefinition.class.getClassLoader());

	// What Spring's AOP needs to run a suspend function as a Mono, and Spring's adapter needs to turn a Flow into one.
	private static final boolean coroutinesReactorPresent = reactorPresent
			&& ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", LockDefinition.class.getClassLoader());

	private static final String FLOW = "kotlinx.coroutines.flow.Flow";

	/**
	 * How a method's result holds the lock.
	 */
	enum Kind {

		/** Held for the call. */
		SYNC,

		/** Held for the call; a skip returns {@code Optional.empty()}. */
		OPTIONAL,

		/** Held until the returned future completes. */
		FUTURE,

		/** Held until the returned {@code Mono} terminates or is cancelled. */
		MONO,

		/** Held until the returned {@code Flux} terminates or is cancelled. */
		FLUX,

		/** Held until the collection of the returned Kotlin {@code Flow} ends or is cancelled, as for a {@code Flux}. */
		FLOW,

		/** A Kotlin {@code suspend} function: held until its coroutine has ended, run by Spring as a {@code Mono}. */
		SUSPEND,

		/** A {@code suspend} function returning a {@code Flow}: held until its collection has ended, as a {@code Flux}. */
		SUSPEND_FLOW;

		/**
		 * Whether the lock is taken on subscription and held for a publisher's life.
		 */
		boolean isReactive() {
			return this != SYNC && this != OPTIONAL && this != FUTURE;
		}

		/**
		 * The kind of result, as an error message names it.
		 */
		String describe() {
			return switch (this) {
				case SYNC, OPTIONAL -> "a plain value";
				case FUTURE -> "a CompletableFuture or CompletionStage";
				case MONO -> "a Mono";
				case FLUX -> "a Flux";
				case FLOW -> "a Flow";
				case SUSPEND, SUSPEND_FLOW -> "a suspend function's result";
			};
		}

	}

	/**
	 * The kind for a method. A Kotlin {@code suspend} function returns {@code Object} to the JVM, but Spring's AOP runs
	 * it inside the advice as a {@code Mono} (a {@code Flux} when it returns a {@code Flow}) and awaits that for the
	 * caller afterwards, so its lock is held like a {@code Mono}'s or {@code Flux}'s: until the coroutine completes.
	 * @throws LockAnnotationException naming the method if Kotlin coroutine support is missing from the class path
	 */
	static Kind kindOf(Method method) {
		if (KotlinDetector.isSuspendingFunction(method)) {
			if (!coroutinesReactorPresent) {
				throw new LockAnnotationException(method, "a suspend function holds its lock until the coroutine "
						+ "completes only with org.jetbrains.kotlinx:kotlinx-coroutines-reactor on the class path, "
						+ "through which Spring runs it as a Mono; add it", null);
			}
			// The Kotlin return type, as Spring's proxy reads it to choose between awaiting and a Flow.
			Class<?> declared = new MethodParameter(method, -1).getParameterType();
			boolean many = declared.getName().equals(FLOW)
					|| (ReactiveLocking.isPublisher(declared) && !ReactiveLocking.isMono(declared));
			return many ? Kind.SUSPEND_FLOW : Kind.SUSPEND;
		}
		if (isFlow(method.getReturnType())) {
			if (!coroutinesReactorPresent) {
				throw new LockAnnotationException(method, "a Flow result holds its lock for the whole collection only "
						+ "with org.jetbrains.kotlinx:kotlinx-coroutines-reactor on the class path; add it", null);
			}
			return Kind.FLOW;
		}
		return kindOf(method.getReturnType());
	}

	private static boolean isFlow(Class<?> type) {
		for (Class<?> candidate : ClassUtils.getAllInterfacesForClassAsSet(type)) {
			if (candidate.getName().equals(FLOW)) {
				return true;
			}
		}
		return type.getName().equals(FLOW);
	}

	/**
	 * The kind for a return type.
	 */
	static Kind kindOf(Class<?> returnType) {
		if (reactorPresent && ReactiveLocking.isMono(returnType)) {
			return Kind.MONO;
		}
		if (reactorPresent && ReactiveLocking.isFlux(returnType)) {
			return Kind.FLUX;
		}
		if (returnType == CompletableFuture.class || returnType == CompletionStage.class) {
			return Kind.FUTURE;
		}
		return returnType == Optional.class ? Kind.OPTIONAL : Kind.SYNC;
	}

	/**
	 * What a skipped call returns.
	 */
	@Nullable Object skippedResult() {
		return switch (kind) {
			case OPTIONAL -> Optional.empty();
			case FUTURE -> CompletableFuture.completedFuture(null);
			case MONO, FLUX, FLOW, SUSPEND, SUSPEND_FLOW -> ReactiveLocking.empty(kind);
			case SYNC -> null;
		};
	}

}
