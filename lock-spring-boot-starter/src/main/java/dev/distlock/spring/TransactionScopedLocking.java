package dev.distlock.spring;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.TreeSet;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.util.ClassUtils;
import org.springframework.util.backoff.BackOffExecution;

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

	private TransactionScopedLocking() {
	}

	/**
	 * Checks at startup that transaction-scoped locks can be taken.
	 * @throws LockAnnotationException naming the method if lock-jdbc or the {@code TransactionScopedLocks} bean is
	 * missing
	 */
	static void check(Method method, BeanFactory beanFactory) {
		if (!jdbcPresent) {
			throw new LockAnnotationException(method, "a transactionScoped lock is PostgreSQL's pg_advisory_xact_lock, "
					+ "taken by dev.distlock:lock-jdbc; add it to the class path", null);
		}
		locks(method, beanFactory);
	}

	private static TransactionScopedLocks locks(Method method, BeanFactory beanFactory) {
		try {
			return beanFactory.getBean(TransactionScopedLocks.class);
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
	 * @return whether the transaction holds them all; when not, the ones taken stay held until it ends
	 */
	static boolean lock(Method method, BeanFactory beanFactory, List<String> keys, LockOptions options) {
		TransactionScopedLocks locks = locks(method, beanFactory);
		Duration wait = waitOf(options);
		long deadline = System.nanoTime() + Math.min(wait.toNanos(), Long.MAX_VALUE / 4);
		for (String key : new TreeSet<>(keys)) {
			Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
			if (!locks.lock(key, left)) {
				return false;
			}
		}
		return true;
	}

	/**
	 * How long the lock may be waited for: as long as the retries would wait with their delays, and at most
	 * {@code maxWait}; nothing without retries.
	 */
	static Duration waitOf(LockOptions options) {
		Duration cap = options.maxWait() != null ? options.maxWait() : LockOptions.MAX_DURATION;
		long capMillis = cap.toMillis();
		long maxDelay = options.effectiveMaxDelay().toMillis();
		BackOffExecution delays = options.backOff().start();
		long total = 0;
		for (long retry = 0; retry < options.retries() && total < capMillis; retry++) {
			long delay = Math.min(delays.nextBackOff(), maxDelay);
			if (delay >= maxDelay) {
				// Every later delay is the cap: the rest in one step.
				long rest = options.retries() - retry;
				total = rest > (capMillis - total) / Math.max(1, delay) ? capMillis : total + rest * delay;
				break;
			}
			total += delay;
		}
		return Duration.ofMillis(Math.min(total, capMillis));
	}

}
