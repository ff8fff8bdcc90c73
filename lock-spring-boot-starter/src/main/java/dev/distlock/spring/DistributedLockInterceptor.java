package dev.distlock.spring;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.Advisor;
import org.springframework.aop.PointcutAdvisor;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.MethodClassKey;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.StringValueResolver;
import org.springframework.util.function.SingletonSupplier;

import dev.distlock.core.FailureMode;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.StoreClock;

/**
 * Runs {@link DistributedLock @DistributedLock} methods under their lock. Each method's definition (keys parsed,
 * attributes resolved) is built once and cached; per call only the key expressions are evaluated.
 */
public final class DistributedLockInterceptor implements MethodInterceptor {

	private static final Log logger = LogFactory.getLog(DistributedLockInterceptor.class);

	private final Supplier<LockTemplate> template;

	private final LockDefinitionFactory factory;

	private final Map<MethodClassKey, LockDefinition> definitions = new ConcurrentHashMap<>();

	private final @Nullable BeanFactory beanFactory;

	private final @Nullable SingletonSupplier<TransactionScopedLocking> transactionScopedLocking;

	private final Advisor transactionScopedAdvisor;

	/**
	 * An interceptor taking locks through the template.
	 * @param template the template, looked up on first use
	 * @param valueResolver resolves {@code ${...}} in the {@code ...String} attributes, or null for none
	 * @param beanResolver resolves {@code @bean} in key expressions, or null to forbid them
	 */
	public DistributedLockInterceptor(Supplier<LockTemplate> template, @Nullable StringValueResolver valueResolver,
			@Nullable BeanResolver beanResolver) {
		this(template, valueResolver, beanResolver, new SpelExpressionParser(), null);
	}

	/**
	 * An interceptor that also takes {@link DistributedLock#transactionScoped() transaction-scoped} locks, through the
	 * {@code TransactionScopedLocks} bean of the factory.
	 */
	DistributedLockInterceptor(Supplier<LockTemplate> template, @Nullable StringValueResolver valueResolver,
			@Nullable BeanResolver beanResolver, BeanFactory beanFactory) {
		this(template, valueResolver, beanResolver, new SpelExpressionParser(), beanFactory);
	}

	/**
	 * An interceptor parsing key expressions with the given parser, so a test can count the parses.
	 */
	DistributedLockInterceptor(Supplier<LockTemplate> template, @Nullable StringValueResolver valueResolver,
			@Nullable BeanResolver beanResolver, SpelExpressionParser parser) {
		this(template, valueResolver, beanResolver, parser, null);
	}

	private DistributedLockInterceptor(Supplier<LockTemplate> template, @Nullable StringValueResolver valueResolver,
			@Nullable BeanResolver beanResolver, SpelExpressionParser parser, @Nullable BeanFactory beanFactory) {
		this.template = SingletonSupplier.of(template);
		this.factory = new LockDefinitionFactory(parser, valueResolver, beanResolver);
		this.beanFactory = beanFactory;
		this.transactionScopedLocking = beanFactory == null ? null
				: SingletonSupplier.of(() -> new TransactionScopedLocking(beanFactory));
		this.transactionScopedAdvisor = new DefaultPointcutAdvisor(new DistributedLockPointcut(true),
				(MethodInterceptor) this::invokeInnerTransactionScoped);
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		if (target == null) {
			return withoutTarget(invocation);
		}
		LockDefinition definition = definition(invocation.getMethod(), AopUtils.getTargetClass(target));
		if (definition == null) {
			return invocation.proceed();
		}
		if (definition.transactionScoped()) {
			return invokeOuterTransactionScoped(invocation, target, definition);
		}
		List<String> keys = definition.keys().evaluate(target, invocation.getArguments());
		LockTemplate locks = template.get();
		if (definition.kind().isReactive()) {
			return ReactiveLocking.invoke(invocation, () -> acquire(locks, definition, keys), definition.kind());
		}
		Optional<InvocationLock> held = acquire(locks, definition, keys);
		if (held.isEmpty()) {
			return definition.skippedResult();
		}
		if (definition.kind() == LockDefinition.Kind.FUTURE) {
			return FutureLocking.invoke(invocation, held.get());
		}
		Object result;
		try (LockContext.Scope scope = held.get().openBody()) {
			result = invocation.proceed();
		}
		catch (Throwable ex) {
			held.get().releaseAfter(ex);
			throw ex;
		}
		held.get().release();
		return result;
	}

	/**
	 * The advisor that takes {@link DistributedLock#transactionScoped() transaction-scoped} locks, to go inside the
	 * transaction's advice, after every other advisor of a proxy (the other locks are taken by this interceptor,
	 * outside the transaction by default).
	 */
	Advisor transactionScopedAdvisor() {
		return transactionScopedAdvisor;
	}

	/**
	 * A transaction-scoped method met by the outer advice: its lock is left to the inner advisor when that comes
	 * later in the same proxy's chain, and taken here otherwise (needing a transaction already active), so it never
	 * runs without its lock whatever the proxy looks like.
	 */
	private @Nullable Object invokeOuterTransactionScoped(MethodInvocation invocation, Object target,
			LockDefinition definition) throws Throwable {
		if (advisedHere(target)) {
			// The target is a proxy with this lock advice of its own, which takes the lock inside its transaction.
			return invocation.proceed();
		}
		if (invocation instanceof ProxyMethodInvocation proxied && proxied.getProxy() instanceof Advised advised) {
			Advisor[] advisors = advised.getAdvisors();
			int outer = -1;
			for (int i = 0; i < advisors.length; i++) {
				if (advisors[i].getAdvice() == this && outer < 0) {
					outer = i;
				}
				else if (advisors[i] == transactionScopedAdvisor && outer >= 0) {
					return invocation.proceed();
				}
			}
		}
		return invokeTransactionScoped(invocation, target, definition);
	}

	private @Nullable Object invokeInnerTransactionScoped(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		LockDefinition definition = target == null ? null
				: definition(invocation.getMethod(), AopUtils.getTargetClass(target));
		if (target == null || definition == null || !definition.transactionScoped() || advisedHere(target)) {
			return invocation.proceed();
		}
		return invokeTransactionScoped(invocation, target, definition);
	}

	/** Whether the target is itself a proxy carrying the lock advice: that proxy takes the lock, once. */
	private static boolean advisedHere(Object target) {
		if (target instanceof Advised advised) {
			for (Advisor advisor : advised.getAdvisors()) {
				if (advisor.getAdvice() instanceof DistributedLockInterceptor
						|| (advisor instanceof PointcutAdvisor pointcut
								&& pointcut.getPointcut() instanceof DistributedLockPointcut)) {
					return true;
				}
			}
		}
		return false;
	}

	/**
	 * A call on a proxy without a target (an HTTP interface client, say): its last advice makes the call, and the
	 * lock cannot be evaluated against a target, so an annotated method fails rather than run without its lock.
	 */
	private @Nullable Object withoutTarget(MethodInvocation invocation) throws Throwable {
		Method method = invocation.getMethod();
		if (DistributedLockPointcut.find(method, method.getDeclaringClass()) != null) {
			throw new LockAnnotationException(method, "the proxy it is called on has no target (such as an HTTP "
					+ "interface client), so it cannot be locked; lock a method of a bean that calls it", null);
		}
		return invocation.proceed();
	}

	private @Nullable Object invokeTransactionScoped(MethodInvocation invocation, Object target,
			LockDefinition definition) throws Throwable {
		LockTemplate locks = template.get();
		List<String> keys = definition.keys().evaluate(target, invocation.getArguments());
		List<String> stored = keys.stream().map(key -> locks.keyPrefix() + key).toList();
		long start = System.nanoTime();
		// definition() refused a transaction-scoped lock without a bean factory.
		String missed = Objects.requireNonNull(transactionScopedLocking).obtain().lock(stored, definition.options());
		if (missed != null) {
			if (definition.options().onFailure() == FailureMode.SKIP) {
				if (logger.isDebugEnabled()) {
					logger.debug("Skipped " + MethodNames.describe(definition.method()) + ": transaction-scoped lock '"
							+ missed + "' is held by another transaction");
				}
				return definition.skippedResult();
			}
			Duration waited = Duration.ofNanos(System.nanoTime() - start);
			throw new LockAcquisitionException(missed, "Transaction-scoped lock '" + missed + "' is held by another "
					+ "transaction; waited " + waited.toMillis() + " ms", 1, waited, null);
		}
		return invocation.proceed();
	}

	/**
	 * Builds and caches the definition of a method if it is annotated, so a bad one fails at startup.
	 * @throws LockAnnotationException naming the method if its annotation is invalid
	 */
	void validate(Method method, Class<?> targetClass) {
		definition(method, targetClass);
	}

	private @Nullable LockDefinition definition(Method method, Class<?> targetClass) {
		MethodClassKey cacheKey = new MethodClassKey(method, targetClass);
		LockDefinition cached = definitions.get(cacheKey);
		if (cached != null) {
			return cached;
		}
		DistributedLock annotation = DistributedLockPointcut.find(method, targetClass);
		if (annotation == null) {
			return null;
		}
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		LockTemplate locks = template.get();
		LockDefinition created = factory.create(specific, targetClass, annotation, locks.defaults());
		if (created.transactionScoped()) {
			if (beanFactory == null) {
				throw new LockAnnotationException(specific, "a transactionScoped lock needs the interceptor of "
						+ "DistributedLockBeanPostProcessor, which finds the TransactionScopedLocks bean", null);
			}
			TransactionScopedLocking.check(specific, beanFactory);
		}
		if (created.period() != null && !(locks.provider() instanceof StoreClock)) {
			throw new LockAnnotationException(specific, "period counts periods on the store's clock, and lock provider '"
					+ locks.provider().name() + "' cannot read it (it does not implement StoreClock)", null);
		}
		definitions.putIfAbsent(cacheKey, created);
		return created;
	}

	private static Optional<InvocationLock> acquire(LockTemplate template, LockDefinition definition, List<String> keys) {
		Optional<InvocationLock> held = InvocationLock.acquire(template, definition, keys);
		if (held.isEmpty() && logger.isDebugEnabled()) {
			logger.debug("Skipped " + MethodNames.describe(definition.method()) + ": lock " + keys + " is held elsewhere");
		}
		return held;
	}

}
