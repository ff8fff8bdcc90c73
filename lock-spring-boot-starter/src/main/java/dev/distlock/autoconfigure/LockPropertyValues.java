package dev.distlock.autoconfigure;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

import dev.distlock.core.InvalidLockKeyException;
import dev.distlock.core.InvalidLockOptionException;
import dev.distlock.core.LockKeys;
import dev.distlock.core.LockOptions;
import dev.distlock.core.OwnerDetails;

/**
 * Turns the properties into core values, failing with {@link InvalidLockOptionException} that names the property.
 */
final class LockPropertyValues {

	private static final String PREFIX = "distributed-lock.";

	// LockOptions names its options in Java style; users wrote the property.
	private static final Map<String, String> propertyOf = Map.of("timeout", "timeout", "retries", "retries", "delay",
			"delay", "backoffMultiplier", "backoff-multiplier", "maxDelay", "max-delay", "maxWait", "max-wait",
			"onFailure", "on-failure");

	private LockPropertyValues() {
	}

	/**
	 * The default lock options.
	 */
	static LockOptions options(DistributedLockProperties properties) {
		try {
			return LockOptions.builder()
				.timeout(properties.getTimeout())
				.retries(properties.getRetries())
				.delay(properties.getDelay())
				.backoffMultiplier(properties.getBackoffMultiplier())
				.maxDelay(properties.getMaxDelay())
				.maxWait(properties.getMaxWait())
				.autoRenew(properties.isAutoRenew())
				.onFailure(properties.getOnFailure())
				.build();
		}
		catch (InvalidLockOptionException ex) {
			throw invalid(propertyOf.getOrDefault(ex.option(), ex.option()), ex.detail());
		}
	}

	/**
	 * The key prefix, checked as a key would be, without hash-tag braces and leaving room for a key.
	 */
	static String keyPrefix(DistributedLockProperties properties) {
		String prefix = properties.getKeyPrefix();
		if (prefix.isEmpty()) {
			return prefix;
		}
		// Redis wraps prefix + key in a {hash tag}: a brace in the prefix would end or nest the tag, so a key's lock,
		// fence and queue could fall in different cluster slots, or every key be refused on the first call.
		if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
			throw invalid("key-prefix", "must not contain '{' or '}' (Redis hash-tag braces), was '" + prefix + "'");
		}
		if (prefix.length() >= LockKeys.MAX_LENGTH) {
			throw invalid("key-prefix", "is " + prefix.length() + " characters long, which leaves no room for a key "
					+ "under the " + LockKeys.MAX_LENGTH + "-character limit (prefix included)");
		}
		try {
			return LockKeys.validate(prefix);
		}
		catch (InvalidLockKeyException ex) {
			throw invalid("key-prefix", ex.getMessage());
		}
	}

	/**
	 * The owner: the property, else {@code spring.application.name}, else {@code distlock}.
	 */
	static OwnerDetails owner(DistributedLockProperties properties, Environment environment) {
		String owner = properties.getOwner();
		if (owner != null) {
			if (!StringUtils.hasText(owner)) {
				throw invalid("owner", "must not be blank");
			}
			return OwnerDetails.of(owner);
		}
		String application = environment.getProperty("spring.application.name");
		return StringUtils.hasText(application) ? OwnerDetails.of(application) : OwnerDetails.local();
	}

	/**
	 * Checks that a text property is not blank.
	 */
	static String text(String property, @Nullable String value) {
		if (!StringUtils.hasText(value)) {
			throw invalid(property, "must not be blank");
		}
		return value;
	}

	/**
	 * Checks that a duration property is positive.
	 */
	static Duration positive(String property, @Nullable Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			throw invalid(property, "must be positive, was " + value);
		}
		return value;
	}

	/**
	 * Builds a store's settings, naming the property of a rejected setting: a settings field such as
	 * {@code fenceRetention} in group {@code redis} is {@code distributed-lock.redis.fence-retention}.
	 */
	static <T> T storeSettings(String group, Supplier<T> settings) {
		try {
			return settings.get();
		}
		catch (InvalidLockOptionException ex) {
			String kebab = ex.option().replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
			throw invalid(group + "." + kebab, ex.detail());
		}
	}

	/**
	 * An error naming the property, such as {@code distributed-lock.timeout}.
	 */
	static InvalidLockOptionException invalid(String property, String message) {
		return new InvalidLockOptionException(PREFIX + property, message);
	}

}
