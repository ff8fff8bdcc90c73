package dev.distlock.spring;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

import dev.distlock.core.FailureMode;
import dev.distlock.core.InvalidLockOptionException;
import dev.distlock.core.LockOptions;

/**
 * Turns a {@link DistributedLock} into a {@link LockDefinition}: parses the keys, resolves the {@code ...String}
 * attributes and lays the set attributes over the template's defaults. Every problem names the method.
 */
final class LockDefinitionFactory {

	private final SpelExpressionParser parser;

	private final @Nullable StringValueResolver valueResolver;

	private final @Nullable BeanResolver beanResolver;

	LockDefinitionFactory(SpelExpressionParser parser, @Nullable StringValueResolver valueResolver,
			@Nullable BeanResolver beanResolver) {
		this.parser = parser;
		this.valueResolver = valueResolver;
		this.beanResolver = beanResolver;
	}

	/**
	 * Resolves the annotation on the method.
	 * @throws LockAnnotationException naming the method if anything is invalid
	 */
	LockDefinition create(Method method, Class<?> targetClass, DistributedLock lock, LockOptions defaults) {
		if (StringUtils.hasText(lock.key()) && lock.keys().length > 0) {
			throw new LockAnnotationException(method, "set key or keys, not both", null);
		}
		boolean group = lock.keys().length > 0;
		List<String> sources = group ? Arrays.asList(lock.keys())
				: StringUtils.hasText(lock.key()) ? List.of(lock.key()) : List.of();
		LockKeyExpressions keys = LockKeyExpressions.parse(parser, method, targetClass, sources, beanResolver);
		LockPeriod period = period(method, lock);
		LockOptions options = options(method, lock, defaults, period != null);
		LockDefinition.Kind kind = LockDefinition.kindOf(method);
		if (options.onFailure() == FailureMode.SKIP && method.getReturnType().isPrimitive()
				&& method.getReturnType() != void.class) {
			throw new LockAnnotationException(method, (period != null ? "period" : "onFailure SKIP")
					+ " needs a void or object return type to return nothing, not " + method.getReturnType(), null);
		}
		if (lock.transactionScoped()) {
			checkTransactionScoped(method, lock, kind);
		}
		return new LockDefinition(method, keys, group, options, kind, period, lock.transactionScoped());
	}

	/**
	 * A transaction-scoped lock lives as long as the transaction on the calling thread: it has no lease to set, renew
	 * or hold, no shared mode, and the method must finish its work on that thread.
	 */
	private static void checkTransactionScoped(Method method, DistributedLock lock, LockDefinition.Kind kind) {
		List<String> leaseOnly = setAmong(lock, "timeout", "holdAtLeast", "autoRenew", "shared", "period");
		if (!leaseOnly.isEmpty()) {
			throw new LockAnnotationException(method, "a transactionScoped lock is held until the transaction ends, "
					+ "with no lease and no shared mode; remove " + String.join(", ", leaseOnly), null);
		}
		if (kind != LockDefinition.Kind.SYNC && kind != LockDefinition.Kind.OPTIONAL) {
			throw new LockAnnotationException(method, "a transactionScoped lock belongs to the transaction of the "
					+ "calling thread, so the method must return a plain value or Optional, not " + kind.describe(),
					null);
		}
	}

	/**
	 * The once-per-period mode, if the method asks for it; the attributes it decides itself must be left unset.
	 */
	private @Nullable LockPeriod period(Method method, DistributedLock lock) {
		if (!StringUtils.hasText(lock.period())) {
			return null;
		}
		Duration length = parseDuration(method, "period", lock.period());
		if (length.compareTo(LockPeriod.MIN_LENGTH) < 0 || length.compareTo(LockOptions.MAX_DURATION) > 0) {
			throw new LockAnnotationException(method, "period must lie between " + LockPeriod.MIN_LENGTH.toSeconds()
					+ " s and " + LockOptions.MAX_DURATION.toDays() + " days, was " + length, null);
		}
		if (length.getNano() % 1_000_000 != 0) {
			throw new LockAnnotationException(method, "period must be whole milliseconds, was " + length, null);
		}
		List<String> decided = setAmong(lock, "timeout", "holdAtLeast", "autoRenew", "retries", "delay",
				"backoffMultiplier", "maxDelay", "maxWait", "onFailureString", "shared");
		if (!decided.isEmpty()) {
			throw new LockAnnotationException(method, "period decides the lease (to the period's end), the minimum "
					+ "hold, renewal (none), waiting (none) and the failure mode (skip) itself; remove "
					+ String.join(", ", decided), null);
		}
		return new LockPeriod(length);
	}

	/** Whether each attribute named in errors is set on an annotation (its numeric or its String form). */
	private static final Map<String, Predicate<DistributedLock>> ATTRIBUTE_SET = Map.ofEntries(
			Map.entry("timeout", lock -> lock.timeout() >= 0 || StringUtils.hasText(lock.timeoutString())),
			Map.entry("holdAtLeast", lock -> lock.holdAtLeast() >= 0 || StringUtils.hasText(lock.holdAtLeastString())),
			Map.entry("autoRenew", lock -> lock.autoRenew() || StringUtils.hasText(lock.autoRenewString())),
			Map.entry("retries", lock -> lock.retries() >= 0 || StringUtils.hasText(lock.retriesString())),
			Map.entry("delay", lock -> lock.delay() >= 0 || StringUtils.hasText(lock.delayString())),
			Map.entry("backoffMultiplier",
					lock -> lock.backoffMultiplier() >= 0 || StringUtils.hasText(lock.backoffMultiplierString())),
			Map.entry("maxDelay", lock -> lock.maxDelay() >= 0 || StringUtils.hasText(lock.maxDelayString())),
			Map.entry("maxWait", lock -> lock.maxWait() >= 0 || StringUtils.hasText(lock.maxWaitString())),
			Map.entry("onFailureString", lock -> StringUtils.hasText(lock.onFailureString())),
			Map.entry("shared", DistributedLock::shared),
			Map.entry("period", lock -> StringUtils.hasText(lock.period())));

	/** The attributes among {@code names} that the annotation sets, in the order given. */
	private static List<String> setAmong(DistributedLock lock, String... names) {
		return Arrays.stream(names).filter(name -> ATTRIBUTE_SET.get(name).test(lock)).toList();
	}

	private LockOptions options(Method method, DistributedLock lock, LockOptions defaults, boolean periodic) {
		// Listeners (meters, observations) report the method instead of the key, whose values are unbounded.
		LockOptions.Builder builder = defaults.toBuilder()
			.name(ClassUtils.getUserClass(method.getDeclaringClass()).getSimpleName() + "." + method.getName());
		Duration timeout = duration(method, "timeout", lock.timeout(), lock.timeoutString(), lock);
		if (timeout != null) {
			builder.timeout(timeout);
		}
		Integer retries = number(method, "retries", lock.retries() >= 0 ? lock.retries() : null, lock.retriesString(),
				Integer::valueOf);
		if (retries != null) {
			builder.retries(retries);
		}
		Duration delay = duration(method, "delay", lock.delay(), lock.delayString(), lock);
		if (delay != null) {
			builder.delay(delay);
		}
		Double multiplier = number(method, "backoffMultiplier",
				lock.backoffMultiplier() >= 0 ? lock.backoffMultiplier() : null, lock.backoffMultiplierString(),
				Double::valueOf);
		if (multiplier != null) {
			builder.backoffMultiplier(multiplier);
		}
		Duration maxDelay = duration(method, "maxDelay", lock.maxDelay(), lock.maxDelayString(), lock);
		if (maxDelay != null) {
			builder.maxDelay(maxDelay);
		}
		Duration maxWait = duration(method, "maxWait", lock.maxWait(), lock.maxWaitString(), lock);
		if (maxWait != null) {
			builder.maxWait(maxWait);
		}
		Duration holdAtLeast = duration(method, "holdAtLeast", lock.holdAtLeast(), lock.holdAtLeastString(), lock);
		if (holdAtLeast != null) {
			builder.holdAtLeast(holdAtLeast);
		}
		// false and THROW, the defaults, mean unset: only the String twins can say them against the properties.
		Boolean autoRenew = number(method, "autoRenew", lock.autoRenew() ? Boolean.TRUE : null,
				lock.autoRenewString(), LockDefinitionFactory::parseBoolean);
		if (autoRenew != null) {
			builder.autoRenew(autoRenew);
		}
		FailureMode onFailure = number(method, "onFailure",
				lock.onFailure() == FailureMode.SKIP ? FailureMode.SKIP : null, lock.onFailureString(),
				LockDefinitionFactory::parseFailureMode);
		if (onFailure != null) {
			builder.onFailure(onFailure);
		}
		if (periodic) {
			// The properties' waiting, renewal and hold give way: each run takes the period's key once, or skips.
			builder.retries(0).maxWait(null).autoRenew(false).holdAtLeast(null).onFailure(FailureMode.SKIP);
		}
		if (lock.shared()) {
			// The default, Integer.MAX_VALUE, admits any number of readers; below 1 fails in LockOptions.
			builder.shared(lock.maxConcurrent());
		}
		else if (lock.maxConcurrent() != Integer.MAX_VALUE) {
			throw new LockAnnotationException(method, "maxConcurrent applies to shared locks only; set shared = true",
					null);
		}
		else {
			builder.exclusive();
		}
		try {
			return builder.build();
		}
		catch (InvalidLockOptionException ex) {
			throw new LockAnnotationException(method, ex.getMessage(), ex);
		}
	}

	private @Nullable Duration duration(Method method, String attribute, long amount, String text, DistributedLock lock) {
		if (StringUtils.hasText(text)) {
			if (amount >= 0) {
				throw new LockAnnotationException(method, "set " + attribute + " or " + attribute + "String, not both",
						null);
			}
			return parseDuration(method, attribute + "String", text);
		}
		if (amount < 0) {
			return null;
		}
		try {
			return Duration.of(amount, lock.timeUnit().toChronoUnit());
		}
		catch (ArithmeticException ex) {
			throw new LockAnnotationException(method, attribute + " " + amount + " " + lock.timeUnit()
					+ " does not fit in a Duration; the most any duration may be is 365 days", ex);
		}
	}

	private Duration parseDuration(Method method, String attribute, String text) {
		String resolved = resolve(method, attribute, text);
		try {
			return DurationStyle.detectAndParse(resolved);
		}
		catch (IllegalArgumentException ex) {
			throw new LockAnnotationException(method, attribute + " '" + resolved
					+ "' is not a duration such as 500ms, 10s or PT1M", ex);
		}
	}

	private <T> @Nullable T number(Method method, String attribute, @Nullable T value, String text,
			Function<String, T> parser) {
		if (!StringUtils.hasText(text)) {
			return value;
		}
		String name = attribute + "String";
		if (value != null) {
			throw new LockAnnotationException(method, "set " + attribute + " or " + name + ", not both", null);
		}
		String resolved = resolve(method, name, text);
		try {
			return parser.apply(resolved.trim());
		}
		catch (IllegalArgumentException ex) {
			throw new LockAnnotationException(method, name + " '" + resolved + "' is not valid: " + ex.getMessage(), ex);
		}
	}

	private String resolve(Method method, String attribute, String text) {
		if (valueResolver == null) {
			return text;
		}
		try {
			String resolved = valueResolver.resolveStringValue(text);
			if (!StringUtils.hasText(resolved)) {
				throw new LockAnnotationException(method, attribute + " '" + text + "' resolved to nothing", null);
			}
			if (resolved.contains("${")) {
				throw new LockAnnotationException(method, attribute + " '" + text + "' has an unresolvable placeholder",
						null);
			}
			return resolved;
		}
		catch (IllegalArgumentException ex) {
			throw new LockAnnotationException(method, attribute + " '" + text + "' cannot be resolved: " + ex.getMessage(),
					ex);
		}
	}

	private static FailureMode parseFailureMode(String text) {
		return switch (text.toLowerCase(java.util.Locale.ROOT)) {
			case "throw" -> FailureMode.THROW;
			case "skip" -> FailureMode.SKIP;
			default -> throw new IllegalArgumentException("expected throw or skip");
		};
	}

	private static Boolean parseBoolean(String text) {
		return switch (text.toLowerCase(java.util.Locale.ROOT)) {
			case "true" -> Boolean.TRUE;
			case "false" -> Boolean.FALSE;
			default -> throw new IllegalArgumentException("expected true or false");
		};
	}

}
