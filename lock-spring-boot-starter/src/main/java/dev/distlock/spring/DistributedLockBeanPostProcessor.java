package dev.distlock.spring;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.springframework.aop.Advisor;
import org.springframework.aop.TargetSource;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.AdvisedSupport;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.interceptor.AsyncExecutionInterceptor;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.config.EmbeddedValueResolver;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import dev.distlock.core.LockTemplate;

/**
 * Proxies beans with {@link DistributedLock @DistributedLock} methods, as Spring's {@code @Retryable} and
 * {@code @ConcurrencyLimit} post-processors do. By default the lock advisor goes before existing advisors, so the
 * lock wraps {@code @Transactional}: taken before the transaction begins, released after it commits or rolls back.
 * It always goes after {@code @Async}'s advisor, so an {@code @Async} method's lock covers its body on the executor
 * thread.
 * A {@link DistributedLock#transactionScoped() transaction-scoped} lock, which must be taken inside the transaction,
 * is taken by a second advisor that goes after all others of the bean's proxy, so inside its {@code @Transactional}
 * whatever the order above.
 * Once all singletons exist, every annotated method's definition is built, so a bad key expression or attribute
 * fails startup naming the method: for the beans created so far, and for lazy and prototype beans, whose classes are
 * read from their bean definitions without creating them.
 * Proxies are CGLIB subclasses unless {@code spring.aop.proxy-target-class} is {@code false}, as for Spring Boot's own
 * advice: then a bean implementing interfaces gets a JDK proxy of them, so a final class behind an interface can be
 * locked (and must be injected as its interface).
 */
public class DistributedLockBeanPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
		implements SmartInitializingSingleton, EnvironmentAware {

	/** Boot's property choosing class-based proxies (its default, true) or interface-based ones. */
	static final String PROXY_TARGET_CLASS = "spring.aop.proxy-target-class";

	private final Supplier<LockTemplate> template;

	private final boolean beanReferences;

	private final Set<Class<?>> lockedClasses = ConcurrentHashMap.newKeySet();

	private DistributedLockInterceptor interceptor;

	private @Nullable ConfigurableListableBeanFactory beanFactory;

	/**
	 * A post-processor taking locks through the template.
	 * @param template the template, looked up on first use
	 * @param beanReferences whether key expressions may reference beans as {@code @name}
	 */
	public DistributedLockBeanPostProcessor(Supplier<LockTemplate> template, boolean beanReferences) {
		this.template = template;
		this.beanReferences = beanReferences;
		this.interceptor = new DistributedLockInterceptor(template, null, null);
		this.advisor = new DefaultPointcutAdvisor(new DistributedLockPointcut(), interceptor);
		setBeforeExistingAdvisors(true);
		setProxyTargetClass(true);
	}

	/**
	 * Applies {@code spring.aop.proxy-target-class} when it is set; left out, proxies stay class-based.
	 */
	@Override
	public void setEnvironment(Environment environment) {
		Boolean proxyTargetClass = environment.getProperty(PROXY_TARGET_CLASS, Boolean.class);
		if (proxyTargetClass != null) {
			setProxyTargetClass(proxyTargetClass);
		}
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		super.setBeanFactory(beanFactory);
		this.beanFactory = beanFactory instanceof ConfigurableListableBeanFactory listable ? listable : null;
		ConfigurableBeanFactory configurable = (ConfigurableBeanFactory) beanFactory;
		this.interceptor = new DistributedLockInterceptor(template, new EmbeddedValueResolver(configurable),
				beanReferences ? new BeanFactoryResolver(beanFactory) : null, beanFactory);
		this.advisor = new DefaultPointcutAdvisor(new DistributedLockPointcut(), interceptor);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Object result = super.postProcessAfterInitialization(bean, beanName);
		// An existing JDK proxy is advised by its target class, which isEligible(bean) does not look at.
		if (isEligible(bean, beanName) || (result instanceof Advised advised && advised.indexOf(this.advisor) >= 0)) {
			Class<?> targetClass = AopProxyUtils.ultimateTargetClass(bean);
			lockedClasses.add(targetClass);
			if (result instanceof Advised advised) {
				moveInsideAsync(advised);
				addTransactionScoped(advised, targetClass);
			}
		}
		return result;
	}

	/**
	 * Adds the transaction-scoped locks' advisor last, inside every other advice (a transaction's included), to a
	 * proxy that carries the lock advisor over the bean itself, when the class has such a method. Where it is not
	 * added (a frozen proxy, a proxy without a target, whose last advice is the call itself, a proxy around another
	 * proxy), the outer lock advice takes those locks itself, in the transaction active there.
	 */
	private void addTransactionScoped(Advised advised, Class<?> targetClass) {
		Advisor inner = interceptor.transactionScopedAdvisor();
		if (advised.isFrozen() || advised.indexOf(this.advisor) < 0 || advised.indexOf(inner) >= 0
				|| advised.getTargetSource() == AdvisedSupport.EMPTY_TARGET_SOURCE
				|| AopUtils.isAopProxy(targetOf(advised)) || !hasTransactionScoped(targetClass)) {
			return;
		}
		advised.addAdvisor(inner);
	}

	private static @Nullable Object targetOf(Advised advised) {
		TargetSource source = advised.getTargetSource();
		if (!source.isStatic()) {
			return null;
		}
		try {
			return source.getTarget();
		}
		catch (Exception ex) {
			return null;
		}
	}

	private static boolean hasTransactionScoped(Class<?> targetClass) {
		return !lockedMethods(ClassUtils.getUserClass(targetClass), new DistributedLockPointcut(true)).isEmpty();
	}

	/** The methods of a user class that the pointcut matches. */
	private static List<Method> lockedMethods(Class<?> userClass, DistributedLockPointcut pointcut) {
		return Arrays.stream(ReflectionUtils.getUniqueDeclaredMethods(userClass, ReflectionUtils.USER_DECLARED_METHODS))
			.filter(method -> pointcut.matches(method, userClass))
			.toList();
	}

	/**
	 * Puts the lock advisor after {@code @Async}'s, so that the lock is taken on the executor thread around the body
	 * rather than around the submission: outside, it would be released as soon as the task was queued. Only needed when
	 * the async post-processor ran first; the one running second puts its advisor in front either way.
	 */
	private void moveInsideAsync(Advised advised) {
		Advisor[] advisors = advised.getAdvisors();
		int lock = -1;
		int lastAsync = -1;
		for (int i = 0; i < advisors.length; i++) {
			if (advisors[i] == this.advisor) {
				lock = i;
			}
			else if (advisors[i].getAdvice() instanceof AsyncExecutionInterceptor) {
				lastAsync = i;
			}
		}
		if (lock >= 0 && lock < lastAsync && !advised.isFrozen()) {
			advised.removeAdvisor(lock);
			// The async advisor moved down by one with the removal: insert right after it.
			advised.addAdvisor(lastAsync, this.advisor);
		}
	}

	/**
	 * Validates every annotated method of the beans proxied so far and of the lazy and prototype beans not yet created.
	 * @throws LockAnnotationException naming the first invalid method
	 */
	@Override
	public void afterSingletonsInstantiated() {
		DistributedLockPointcut pointcut = new DistributedLockPointcut();
		Set<Class<?>> classes = new LinkedHashSet<>(lockedClasses);
		classes.addAll(classesCreatedLater());
		for (Class<?> lockedClass : classes) {
			Class<?> userClass = ClassUtils.getUserClass(lockedClass);
			for (Method method : lockedMethods(userClass, pointcut)) {
				interceptor.validate(method, userClass);
			}
		}
	}

	/**
	 * The classes of lazy and non-singleton beans, from their definitions: eager singletons have all passed through
	 * {@link #postProcessAfterInitialization} by now, the others may be created long after startup, or never.
	 */
	private Set<Class<?>> classesCreatedLater() {
		Set<Class<?>> classes = new LinkedHashSet<>();
		if (beanFactory == null) {
			return classes;
		}
		for (String name : beanFactory.getBeanDefinitionNames()) {
			BeanDefinition definition = beanFactory.getBeanDefinition(name);
			if (definition.isAbstract() || (definition.isSingleton() && !definition.isLazyInit())) {
				continue;
			}
			Class<?> type = beanFactory.getType(name, false); // never instantiates a bean or a FactoryBean
			if (type != null) {
				classes.add(type);
			}
		}
		return classes;
	}

}
