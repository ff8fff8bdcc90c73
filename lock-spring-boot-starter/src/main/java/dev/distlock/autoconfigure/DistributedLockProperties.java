package dev.distlock.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.Ordered;

import dev.distlock.core.FailureMode;
import dev.distlock.core.LockOptions;

/**
 * The {@code distributed-lock.*} properties. The lock options (lease, retries, backoff, renewal and failure mode) are
 * the defaults of the {@code LockTemplate} and of every {@code @DistributedLock} attribute left unset; each starts from
 * {@link LockOptions#defaults()}, so the core holds the only copy of the defaults, and
 * {@code META-INF/additional-spring-configuration-metadata.json} shows them to IDEs, as the configuration processor
 * reads only literal field initialisers.
 */
@ConfigurationProperties("distributed-lock")
public class DistributedLockProperties {

	/**
	 * Whether to auto-configure distributed locks; when off, @DistributedLock methods run unlocked.
	 */
	private boolean enabled = true;

	/**
	 * Which store holds the locks: auto (Redis, then MongoDB, then in-memory), redis, mongo or in-memory.
	 */
	private LockProviderType provider = LockProviderType.AUTO;

	/**
	 * Prefix put before every lock key, such as "myapp:".
	 */
	private String keyPrefix = "";

	/**
	 * How long shutdown waits for locked work to finish and release its locks before it releases what is still held.
	 */
	private Duration shutdownWait = Duration.ofSeconds(5);

	/**
	 * Lease of a lock: how long the store keeps it without a renewal.
	 */
	private Duration timeout = LockOptions.defaults().timeout();

	/**
	 * How many more attempts follow the first when the lock is held.
	 */
	private int retries = LockOptions.defaults().retries();

	/**
	 * Wait before the first retry.
	 */
	private Duration delay = LockOptions.defaults().delay();

	/**
	 * Ratio by which the retry delay grows; 1.0 keeps it fixed.
	 */
	private double backoffMultiplier = LockOptions.defaults().backoffMultiplier();

	/**
	 * Cap on a grown retry delay; when unset, 1s (or the delay, if longer), so a long waiter keeps its place.
	 */
	private @Nullable Duration maxDelay = LockOptions.defaults().maxDelay();

	/**
	 * Overall limit on waiting for a lock, whatever retries remain; none when unset.
	 */
	private @Nullable Duration maxWait = LockOptions.defaults().maxWait();

	/**
	 * Whether a watchdog renews the lease every third of it while the lock is held.
	 */
	private boolean autoRenew = LockOptions.defaults().autoRenew();

	/**
	 * What a locked method does when the lock cannot be had: throw or skip.
	 */
	private FailureMode onFailure = LockOptions.defaults().onFailure();

	/**
	 * Owner name stored with every lock for status queries; defaults to spring.application.name.
	 */
	private @Nullable String owner;

	/**
	 * Key expression settings.
	 */
	private final Spel spel = new Spel();

	/**
	 * Interception settings.
	 */
	private final Aop aop = new Aop();

	/**
	 * Web settings.
	 */
	private final Web web = new Web();

	public boolean isEnabled() {
		return enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public LockProviderType getProvider() {
		return provider;
	}

	public void setProvider(LockProviderType provider) {
		this.provider = provider;
	}

	public Duration getTimeout() {
		return timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	public int getRetries() {
		return retries;
	}

	public void setRetries(int retries) {
		this.retries = retries;
	}

	public Duration getDelay() {
		return delay;
	}

	public void setDelay(Duration delay) {
		this.delay = delay;
	}

	public double getBackoffMultiplier() {
		return backoffMultiplier;
	}

	public void setBackoffMultiplier(double backoffMultiplier) {
		this.backoffMultiplier = backoffMultiplier;
	}

	public @Nullable Duration getMaxDelay() {
		return maxDelay;
	}

	public void setMaxDelay(@Nullable Duration maxDelay) {
		this.maxDelay = maxDelay;
	}

	public @Nullable Duration getMaxWait() {
		return maxWait;
	}

	public void setMaxWait(@Nullable Duration maxWait) {
		this.maxWait = maxWait;
	}

	public boolean isAutoRenew() {
		return autoRenew;
	}

	public void setAutoRenew(boolean autoRenew) {
		this.autoRenew = autoRenew;
	}

	public FailureMode getOnFailure() {
		return onFailure;
	}

	public void setOnFailure(FailureMode onFailure) {
		this.onFailure = onFailure;
	}

	public String getKeyPrefix() {
		return keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public Duration getShutdownWait() {
		return shutdownWait;
	}

	public void setShutdownWait(Duration shutdownWait) {
		this.shutdownWait = shutdownWait;
	}

	public @Nullable String getOwner() {
		return owner;
	}

	public void setOwner(@Nullable String owner) {
		this.owner = owner;
	}

	public Spel getSpel() {
		return spel;
	}

	public Aop getAop() {
		return aop;
	}

	public Web getWeb() {
		return web;
	}

	/**
	 * Key expression settings.
	 */
	public static class Spel {

		/**
		 * Whether key expressions may reference beans as @name; types stay unreachable either way.
		 */
		private boolean beanReferences = false;

		public boolean isBeanReferences() {
			return beanReferences;
		}

		public void setBeanReferences(boolean beanReferences) {
			this.beanReferences = beanReferences;
		}

	}

	/**
	 * Interception settings.
	 */
	public static class Aop {

		/**
		 * Whether the lock advisor goes before existing advisors, so the lock wraps @Transactional and other advice.
		 */
		private boolean beforeExistingAdvisors = true;

		/**
		 * Order of the @DistributedLock post-processor among bean post-processors.
		 */
		private int order = Ordered.LOWEST_PRECEDENCE;

		public boolean isBeforeExistingAdvisors() {
			return beforeExistingAdvisors;
		}

		public void setBeforeExistingAdvisors(boolean beforeExistingAdvisors) {
			this.beforeExistingAdvisors = beforeExistingAdvisors;
		}

		public int getOrder() {
			return order;
		}

		public void setOrder(int order) {
			this.order = order;
		}

	}

	/**
	 * Web settings.
	 */
	public static class Web {

		/**
		 * How lock errors become HTTP responses.
		 */
		private final ProblemDetails problemDetails = new ProblemDetails();

		public ProblemDetails getProblemDetails() {
			return problemDetails;
		}

		/**
		 * How lock errors become HTTP responses.
		 */
		public static class ProblemDetails {

			/**
			 * Whether Spring MVC and WebFlux answer lock errors with RFC 9457 problem details: 409 when a lock could
			 * not be acquired, 503 when the lock store could not be asked, 400 for an invalid key. The application's
			 * own exception handlers take precedence.
			 */
			private boolean enabled = true;

			public boolean isEnabled() {
				return enabled;
			}

			public void setEnabled(boolean enabled) {
				this.enabled = enabled;
			}

		}

	}

}
