package dev.distlock.spring;

import java.lang.reflect.Method;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

import dev.distlock.core.LockOptions;

/**
 * Everything resolved once per annotated method: its parsed keys, its options and how its result holds the lock.
 * @param method the annotated method
 * @param keys the parsed key expressions
 * @param group whether the keys are locked as one group ({@code keys} attribute)
 * @param options the options, attributes over the template's defaults
 * @param kind how the method's result holds the lock
 */
record LockDefinition(Method method, LockKeyExpressions keys, boolean group, LockOptions options, Kind kind) {

	private static final boolean reactorPresent = ClassUtils.isPresent("reactor.core.publisher.Mono",
			LockDefinition.class.getClassLoader());

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
		FLUX

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
			case MONO, FLUX -> ReactiveLocking.empty(kind == Kind.FLUX);
			case SYNC -> null;
		};
	}

}
