package dev.distlock.autoconfigure.actuate;

import java.util.Locale;
import java.util.function.Supplier;

import org.springframework.util.function.SingletonSupplier;

import dev.distlock.core.LockMode;
import dev.distlock.core.LockTemplate;

/**
 * The low-cardinality tag values shared by the meters and the observations: provider, mode and key prefix.
 */
final class LockTags {

	static final String PROVIDER = "provider";

	static final String MODE = "mode";

	static final String OUTCOME = "outcome";

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
	 * The key tag of a store key or of a failed group's label (its keys joined by commas, in key order, of which the
	 * first stands for the group).
	 */
	String keyPrefix(String key) {
		String prefix = template.get().keyPrefix();
		String first = key;
		int comma = key.indexOf(',', prefix.length());
		if (comma > 0) {
			first = key.substring(0, comma);
		}
		String local = first.startsWith(prefix) ? first.substring(prefix.length()) : first;
		return keyTag.valueOf(local);
	}

}
