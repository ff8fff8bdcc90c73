package dev.distlock.autoconfigure.actuate;

import java.lang.reflect.Method;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;

import dev.distlock.core.LockMode;
import dev.distlock.core.LockTemplate;
import dev.distlock.spring.LockContext;

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

	/** {@code ClassName.methodName} per annotated method, built once: every acquire of the method asks for it. */
	private final Map<Method, String> methodNames = new ConcurrentHashMap<>();

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
	 * Where an acquire happening on this thread comes from: a {@code @DistributedLock} method, tagged by its name, or
	 * a template call, tagged by its key's prefix. Only valid on the acquiring thread.
	 * @param key a store key, or a failed group's label
	 */
	Site site(String key) {
		Optional<Method> method = LockContext.acquiringMethod();
		if (method.isPresent()) {
			return new Site(LockKeyTag.NONE, methodNames.computeIfAbsent(method.get(),
					locked -> ClassUtils.getUserClass(locked.getDeclaringClass()).getSimpleName() + "." + locked.getName()));
		}
		return new Site(keyPrefix(key), LockKeyTag.NONE);
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

	/**
	 * The {@code key.prefix} and {@code method} tags of one lock; one of them is {@link LockKeyTag#NONE}.
	 * @param keyPrefix the key's prefix, for a template call
	 * @param method {@code ClassName.methodName}, for a {@code @DistributedLock} method
	 */
	record Site(String keyPrefix, String method) {
	}

}
