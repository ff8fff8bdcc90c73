package dev.distlock.spring;

import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.LockHandle;

/**
 * Gives a {@link DistributedLock @DistributedLock} method its lock handle, and so its fencing token.
 *
 * <p>Sync methods call {@link #current()} anywhere on the calling thread while the method runs. Methods returning a
 * {@code CompletableFuture} call it in their synchronous part, before handing work to another thread, and capture the
 * handle. {@code Mono} and {@code Flux} methods see it the same way while they assemble their publisher, and inside
 * the publisher through the Reactor context under {@link #CONTEXT_KEY}:
 * {@code Mono.deferContextual(ctx -> use(ctx.<LockHandle>get(LockContext.CONTEXT_KEY)))}. Kotlin {@code suspend}
 * functions call {@link #current()} anywhere in their coroutine, on whichever thread it resumes, and in coroutines it
 * starts.
 */
public final class LockContext {

	/**
	 * The Reactor context key under which {@code Mono} and {@code Flux} methods find their {@link LockHandle}.
	 */
	public static final String CONTEXT_KEY = LockContext.class.getName() + ".handle";

	private static final ThreadLocal<@Nullable Frame> frames = new ThreadLocal<>();

	private LockContext() {
	}

	/**
	 * The handle of the innermost locked method running on this thread; for a key group, its first member in key order.
	 * @throws IllegalStateException if no {@code @DistributedLock} method is running on this thread
	 */
	public static LockHandle current() {
		return currentHandles().get(0);
	}

	/**
	 * Every handle of the innermost locked method: one, or each member of a key group in key order.
	 * @throws IllegalStateException if no {@code @DistributedLock} method is running on this thread
	 */
	public static List<LockHandle> currentHandles() {
		Frame frame = frames.get();
		if (frame == null) {
			throw new IllegalStateException("No @DistributedLock method is running on this thread; for async work, "
					+ "capture LockContext.current() before leaving the calling thread");
		}
		return frame.handles();
	}

	/**
	 * The current handle if a locked method is running on this thread, else empty.
	 */
	public static Optional<LockHandle> find() {
		Frame frame = frames.get();
		return frame != null ? Optional.of(frame.handles().get(0)) : Optional.empty();
	}

	/**
	 * Makes the handles current until the returned scope closes, restoring the outer method's afterwards.
	 */
	static Scope open(List<LockHandle> handles) {
		Frame previous = frames.get();
		frames.set(new Frame(handles, previous));
		return () -> {
			if (previous == null) {
				frames.remove();
			}
			else {
				frames.set(previous);
			}
		};
	}

	/**
	 * Ends a binding made by {@link #open(List)}.
	 */
	interface Scope extends AutoCloseable {

		@Override
		void close();

	}

	private record Frame(List<LockHandle> handles, @Nullable Frame previous) {
	}

}
