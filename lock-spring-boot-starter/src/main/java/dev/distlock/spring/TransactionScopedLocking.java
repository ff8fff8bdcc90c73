package dev.distlock.spring;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.TreeSet;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.util.ClassUtils;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.function.SingletonSupplier;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockOptions;
import dev.distlock.jdbc.TransactionScopedLocks;

/**
 * Takes a {@link DistributedLock#transactionScoped() transaction-scoped} method's locks through the application's
 * {@link TransactionScopedLocks}. The only class of the annotation's support that refers to lock-jdbc, loaded only
 * when a method asks for such a lock.
 */
final class TransactionScopedLocking {

	private static final boolean jdbcPresent = ClassUtils.isPresent("dev.distlock.jdbc.TransactionScopedLocks",
			TransactionScopedLocking.class.getClassLoader());

	private final SingletonSupplier<TransactionScopedLocks> locks;

	TransactionScopedLocking(BeanFactory beanFactory) {
		this.locks = SingletonSupplier.of(() -> beanFactory.getBean(TransactionScopedLocks.class));
	}

	/**
	 * Checks at startup that transaction-scoped locks can be taken.
	 * @throws LockAnnotationException naming the method if lock-jdbc or the {@code TransactionScopedLocks} bean is
	 * missing
	 */
	static void check(Method method, BeanFactory beanFactory) {
		if (!jdbcPresent) {
			throw new LockAnnotationException(method, "a transactionScoped lock is PostgreSQL's pg_advisory_xact_lock, "
					+ "taken by dev.distlock:lock-jdbc; add it (and spring-jdbc) to the class path", null);
		}
		try {
			beanFactory.getBean(TransactionScopedLocks.class);
		}
		catch (NoSuchBeanDefinitionException ex) {
			throw new LockAnnotationException(method, "a transactionScoped lock needs one TransactionScopedLocks bean "
					+ "on the DataSource of the method's transactions; the starter makes it on a single or primary "
					+ "DataSource, so declare one where there are several (" + ex.getMessage() + ")", null);
		}
	}

	/**
	 * Takes every key's lock in the current transaction, in sorted order, waiting {@link #waitOf(LockOptions)} in
	 * all.
	 * @param keys the keys, the template's prefix included
	 * @return null when the transaction holds them all, else the first key it could not have (those taken before it
	 * stay held until the transaction ends)
	 * @throws LockAcquisitionException if the thread is interrupted, with the flag kept
	 * @throws org.springframework.transaction.IllegalTransactionStateException if no transaction is active
	 */
	String lock(List<String> keys, LockOptions options) {
		TransactionScopedLocks transactionLocks = locks.obtain();
		Duration wait = waitOf(options);
		long deadline = System.nanoTime() + Math.min(wait.toNanos(), Long.MAX_VALUE / 4);
		for (String key : new TreeSet<>(keys)) {
			Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
			if (!transactionLocks.lock(key, left)) {
				return key;
			}
		}
		return null;
	}

	/**
	 * How long the lock may be waited for: as long as the retries would wait with their delays, and at most
	 * {@code maxWait}; nothing without retries. A few steps whatever the retries: once the delay stops growing, the
	 * rest is one multiplication.
	 */
	static Duration waitOf(LockOptions options) {
		long capMillis = (options.maxWait() != null ? options.maxWait() : LockOptions.MAX_DURATION).toMillis();
		BackOffExecution delays = options.backOff().start();
		long total = 0;
		long previous = -1;
		for (long retry = 0; retry < options.retries() && total < capMillis; retry++) {
			long delay = Math.max(1, delays.nextBackOff());
			if (delay == previous) {
				// Every later delay is this one (the cap, or a delay the multiplier no longer grows).
				long rest = options.retries() - retry;
				return Duration.ofMillis(rest > (capMillis - total) / delay ? capMillis : total + rest * delay);
			}
			total += delay;
			previous = delay;
		}
		return Duration.ofMillis(Math.min(total, capMillis));
	}

}
