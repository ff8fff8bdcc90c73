package dev.distlock.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.FailureMode;

/**
 * Runs the method under a distributed lock. On a class, every public method is locked. Attributes left unset fall back
 * to the {@code distributed-lock.*} properties (the {@link dev.distlock.core.LockTemplate}'s defaults).
 *
 * <p>Keys are SpEL expressions that see the parameters by name, as {@code #p0} / {@code #a0}, and {@code #root.method},
 * {@code #root.target} and {@code #root.args}. Literal keys need quotes: {@code key = "'nightly-report'"}. The
 * {@code ...String} attributes accept {@code ${...}} placeholders and durations such as {@code 500ms}, {@code 10s} or
 * {@code PT1M}. Two attributes have surprising types: {@link #autoRenew()} is a String, so that it takes placeholders
 * (write {@code autoRenew = "true"}), and {@link #onFailure()} is an array, so that "unset" can be told apart (write
 * {@code onFailure = FailureMode.SKIP}). Sync methods hold the lock for the call; {@code CompletableFuture}/{@code CompletionStage}
 * methods until the returned stage completes (a caller cancelling its future does not release it while the work runs);
 * {@code Mono} and {@code Flux} methods until completion, error or cancel.
 *
 * <p>Key values render the same on every JVM: arrays and lists element by element ({@code [1, 2, 3]}), sets and maps
 * sorted; a value with only an identity {@code toString()} fails with {@link LockKeyEvaluationException}, as does an
 * expression that throws or calls into reflection. A parameter concatenated into a key ({@code 'user:' + #id}) must not
 * be null. Durations must lie between 1 ms and 365 days, and {@link #backoffMultiplier()} between 1 and 100.
 *
 * <p>With {@code @Async}, the lock is taken on the executor thread around the body, whichever post-processor runs
 * first: it covers the work, not the submission. A lock that cannot be had then fails on that thread (through the
 * returned {@code Future}, or the async uncaught-exception handler for {@code void} methods), not in the caller.
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DistributedLock {

	/**
	 * The lock key as a SpEL expression, such as {@code "'seat:' + #showId + ':' + #seat"}; empty means
	 * {@code ClassName.methodName}.
	 */
	String key() default "";

	/**
	 * Several key expressions, locked together as one all-or-nothing group in sorted order. Exclusive with {@link #key()}.
	 */
	String[] keys() default {};

	/**
	 * The lease in {@link #timeUnit()}; negative means unset.
	 */
	long timeout() default -1;

	/**
	 * The lease as a duration string or placeholder, such as {@code 30s}; empty means unset.
	 */
	String timeoutString() default "";

	/**
	 * How many more attempts follow the first; negative means unset.
	 */
	int retries() default -1;

	/**
	 * The retries as a number or placeholder; empty means unset.
	 */
	String retriesString() default "";

	/**
	 * The wait before the first retry in {@link #timeUnit()}; negative means unset.
	 */
	long delay() default -1;

	/**
	 * The first retry delay as a duration string or placeholder; empty means unset.
	 */
	String delayString() default "";

	/**
	 * The ratio by which the retry delay grows (1.0 keeps it fixed); negative means unset.
	 */
	double backoffMultiplier() default -1;

	/**
	 * The backoff ratio as a number or placeholder; empty means unset.
	 */
	String backoffMultiplierString() default "";

	/**
	 * The cap on a grown retry delay in {@link #timeUnit()}; negative means unset.
	 */
	long maxDelay() default -1;

	/**
	 * The cap on a grown retry delay as a duration string or placeholder; empty means unset.
	 */
	String maxDelayString() default "";

	/**
	 * The overall limit on waiting in {@link #timeUnit()}, whatever retries remain; negative means unset.
	 */
	long maxWait() default -1;

	/**
	 * The overall limit on waiting as a duration string or placeholder; empty means unset.
	 */
	String maxWaitString() default "";

	/**
	 * Whether a watchdog renews the lease every third of it while the method runs. <b>A String, not a boolean</b>, so
	 * that it takes a placeholder and can be left unset: write {@code autoRenew = "true"}, {@code autoRenew = "false"}
	 * or {@code autoRenew = "${orders.lock.renew:true}"}. Empty (the default) means unset, so
	 * {@code distributed-lock.auto-renew} decides; any other text fails startup naming the method.
	 */
	String autoRenew() default "";

	/**
	 * What to do when the lock cannot be had: {@link FailureMode#THROW} or {@link FailureMode#SKIP} (the method does
	 * not run and returns null, an empty {@code Optional}, {@code Mono} or {@code Flux}, or a future of null).
	 * <b>An array only so that "unset" can be told apart</b>: write a single value,
	 * {@code onFailure = FailureMode.SKIP}, as Java allows for arrays. Empty (the default) means unset, so
	 * {@code distributed-lock.on-failure} decides; two or more values fail startup naming the method.
	 */
	FailureMode[] onFailure() default {};

	/**
	 * Whether the lock is shared (a read lock) rather than exclusive.
	 */
	boolean shared() default false;

	/**
	 * How many holders a shared lock admits, at least 1; the default admits any number. Only for {@link #shared()}
	 * locks. A value below 1 fails startup with {@link dev.distlock.core.InvalidLockOptionException} naming
	 * {@code maxConcurrent}.
	 */
	int maxConcurrent() default Integer.MAX_VALUE;

	/**
	 * The minimum hold in {@link #timeUnit()}: after a fast method returns, the lock stays held until this time has
	 * passed since acquisition (by shortening the lease, not by sleeping); negative means unset.
	 */
	long holdAtLeast() default -1;

	/**
	 * The minimum hold as a duration string or placeholder, such as {@code 5s}; empty means unset.
	 */
	String holdAtLeastString() default "";

	/**
	 * The unit of the numeric duration attributes.
	 */
	TimeUnit timeUnit() default TimeUnit.MILLISECONDS;

}
