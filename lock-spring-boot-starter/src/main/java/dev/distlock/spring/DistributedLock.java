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
 * {@code PT1M}. An attribute left at its default is unset (-1 for numbers, empty for text, {@code THROW} for
 * {@link #onFailure()} and {@code false} for {@link #autoRenew()}), so the properties decide; to force {@code THROW} or
 * no renewal where the properties say otherwise, use {@link #onFailureString()} or {@link #autoRenewString()}. Sync
 * methods hold the lock for the call; {@code CompletableFuture}/{@code CompletionStage}
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
	 * Whether a watchdog renews the lease every third of it while the method runs: {@code true} turns renewal on;
	 * {@code false} (the default) means unset, so {@code distributed-lock.auto-renew} decides. To turn renewal off
	 * where that property turns it on, write {@code autoRenewString = "false"}.
	 */
	boolean autoRenew() default false;

	/**
	 * Whether the lease is renewed, as {@code true}, {@code false} or a placeholder such as
	 * {@code ${orders.lock.renew:true}}; empty means unset. Any other text fails startup naming the method.
	 */
	String autoRenewString() default "";

	/**
	 * What to do when the lock cannot be had: {@link FailureMode#SKIP} (the method does not run and returns null, an
	 * empty {@code Optional}, {@code Mono} or {@code Flux}, or a future of null) or {@link FailureMode#THROW}.
	 * {@code THROW} (the default) means unset, so {@code distributed-lock.on-failure} decides. To throw where that
	 * property says skip, write {@code onFailureString = "throw"}.
	 */
	FailureMode onFailure() default FailureMode.THROW;

	/**
	 * What to do when the lock cannot be had, as {@code throw}, {@code skip} (in any case) or a placeholder; empty
	 * means unset.
	 */
	String onFailureString() default "";

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
	 * Once per period: the method runs at most once per period of this length across every instance that shares the
	 * store, whatever their start times, schedules and clocks, as a duration string or placeholder ({@code 1m},
	 * {@code PT1H}, {@code ${report.period}}); at least 1 s. Periods are counted from the Unix epoch on the store's
	 * clock (an hour starts on the hour, UTC). Each call reads the store's clock once, locks the key with
	 * {@code @<period number>} appended, and keeps that lock past the period's end (a tenth of a period beyond it), so
	 * a later call in the same period, here or elsewhere, is skipped as with {@link FailureMode#SKIP} (no error; a debug
	 * log line). A run longer than the period does not hold the next period back: the next period's run starts on time
	 * on whichever instance comes first, while this one goes on. Empty (the default) means a plain lock. Needs a store
	 * whose provider reads its clock ({@link dev.distlock.core.spi.StoreClock}); the lease, minimum hold, renewal,
	 * retries, waiting and failure mode follow from the period and cannot be set with it.
	 */
	String period() default "";

	/**
	 * Whether the lock is PostgreSQL's transaction-scoped advisory lock ({@code pg_advisory_xact_lock}) instead of a
	 * lease in the lock store: taken on the current transaction's connection, it is held exactly until that
	 * transaction commits or rolls back, and there is nothing to release, renew or leave behind. Needs
	 * {@code dev.distlock:lock-jdbc}, a {@link dev.distlock.jdbc.TransactionScopedLocks} bean (the starter makes one on
	 * the application's single or primary {@code DataSource}) and an active transaction on that {@code DataSource} at
	 * the call: the lock is taken inside the method's own {@code @Transactional}, whichever advisor comes first (a
	 * proxy that cannot take the inner advice has it taken in the caller's transaction), or inside the caller's
	 * transaction; with none, the call fails with Spring's {@code IllegalTransactionStateException} and the method
	 * does not run. It waits, in the server's queue without polling, as long as {@link #retries()} with their delays
	 * would, at most {@link #maxWait()}; with no retries it only tries. {@link #onFailure()} applies as for any lock,
	 * and the key prefix is put before the keys. It has no lease, fencing token or lock
	 * ID, so {@link #timeout()}, {@link #autoRenew()}, {@link #holdAtLeast()}, {@link #shared()} and {@link #period()}
	 * cannot be set with it, and the method must return a plain value or {@code Optional} (the transaction is the
	 * thread's), not a future, a publisher or a {@code suspend} result; each of these fails startup naming the method.
	 * With {@link #keys()}, every key is locked in sorted order.
	 */
	boolean transactionScoped() default false;

	/**
	 * The unit of the numeric duration attributes.
	 */
	TimeUnit timeUnit() default TimeUnit.MILLISECONDS;

}
