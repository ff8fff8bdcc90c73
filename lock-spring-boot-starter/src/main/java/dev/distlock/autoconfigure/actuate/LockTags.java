package dev.distlock.autoconfigure.actuate;

import java.util.Locale;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.springframework.util.function.SingletonSupplier;

import dev.distlock.core.LockAttempt;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockMode;
import dev.distlock.core.LockTemplate;

/**
 * The low-cardinality tag values shared by the meters and the observations: provider, mode, key prefix and method.
 */
final class LockTags {

	static final String PROVIDER = "provider";

	static final String MODE = "mode";

	static final String OUTCOME = "outcome";

	static final String METHOD = "method";

	private final Supplier<LockTemplate> template;

	private final LockKeyTag keyTag;

	/**
	 * Tags for the template's events. The template is looked up on the first event: it is built with the listeners,
	 * so it cannot be a constructor argument of one.
	 */
	LockTags(Supplier<LockTemplate> template, LockKeyTag keyTag) {
		this.template = SingletonSupplier.of(template);
		this.keyTag = keyTag;
	}

	/**
	 * The provider's short name, such as {@code redis}.
	 */
	String provider() {
		return template.get().provider().name();
	}

	/**
	 * {@code exclusive} or {@code shared}.
	 */
	static String mode(LockMode mode) {
		return mode.name().toLowerCase(Locale.ROOT);
	}

	/**
	 * How an acquisition ended, as a tag value: {@code acquired}, {@code timed-out}, {@code skipped},
	 * {@code interrupted}, {@code store-error} or {@code error}.
	 */
	static String outcome(LockAttempt.Outcome outcome) {
		return outcome.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	/**
	 * Where a lock comes from: a named lock (a {@code @DistributedLock} method), tagged by its name, or a template
	 * call, tagged by its key's prefix.
	 */
	Site site(LockHandle handle) {
		return site(handle.name(), handle.key());
	}

	/**
	 * Where a failed acquisition comes from; a group stands for itself by its first key.
	 */
	Site site(LockAttempt attempt) {
		return site(attempt.name(), attempt.firstKey());
	}

	private Site site(@Nullable String name, String key) {
		return name != null ? new Site(LockKeyTag.NONE, name) : new Site(keyPrefix(key), LockKeyTag.NONE);
	}

	/**
	 * The key tag of a store key.
	 */
	String keyPrefix(String key) {
		String prefix = template.get().keyPrefix();
		String local = key.startsWith(prefix) ? key.substring(prefix.length()) : key;
		return keyTag.valueOf(local);
	}

	/**
	 * The {@code key.prefix} and {@code method} tags of one lock; one of them is {@link LockKeyTag#NONE}.
	 * @param keyPrefix the key's prefix, for a template call
	 * @param method {@code ClassName.methodName}, for a {@code @DistributedLock} method
	 */
	record Site(String keyPrefix, String method) {
	}

}
