package dev.distlock.spring;

import java.lang.reflect.Array;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;

import org.jspecify.annotations.Nullable;
import org.springframework.core.convert.TypeDescriptor;
import org.springframework.expression.TypeConverter;
import org.springframework.expression.spel.support.StandardTypeConverter;

import dev.distlock.core.LockKeys;

/**
 * Renders a key expression's value as text that is the same for equal values on every JVM, so two instances build the
 * same key. Arrays and lists go element by element ({@code [1, 2, 3]}, as {@code List.toString()} does), sets and other
 * collections sorted by rendered element, maps sorted by rendered key ({@code {a=1, b=2}}), all recursively; a record
 * holding such values component by component ({@code Order[id=1, seats=[1, 2]]}). Anything else uses its own
 * {@code toString()}; a value with only {@code Object}'s identity {@code toString()} ({@code Type@1b2c3d}) is refused.
 */
final class KeyRenderer {

	// Deep enough for any sane key; stops a collection that contains itself.
	private static final int MAX_DEPTH = 16;

	private KeyRenderer() {
	}

	/**
	 * The stable text of a value.
	 * @throws UnstableKeyValueException if the value, or a value inside it, has only an identity {@code toString()}
	 */
	static String render(Object value) {
		if (value instanceof String text) {
			return text;
		}
		StringBuilder out = new StringBuilder();
		append(out, value, 0);
		return out.toString();
	}

	private static void append(StringBuilder out, @Nullable Object value, int depth) {
		if (depth > MAX_DEPTH) {
			throw new UnstableKeyValueException("is nested more than " + MAX_DEPTH + " levels deep (does it contain "
					+ "itself?)");
		}
		if (value == null || value instanceof CharSequence || value instanceof Number || value instanceof Boolean
				|| value instanceof Character || value instanceof Enum<?>) {
			out.append(value);
		}
		else if (value.getClass().isArray()) {
			int length = Array.getLength(value);
			List<Object> elements = new ArrayList<>(length);
			for (int i = 0; i < length; i++) {
				elements.add(Array.get(value, i));
			}
			appendInOrder(out, elements, depth);
		}
		else if (value instanceof List<?> || value instanceof Queue<?>) {
			appendInOrder(out, (Collection<?>) value, depth);
		}
		else if (value instanceof Collection<?> collection) {
			// Sets (and bags such as Map.values()) have no order of their own: Set.of iterates differently on each JVM.
			List<String> elements = new ArrayList<>(collection.size());
			for (Object element : collection) {
				elements.add(nested(element, depth));
			}
			elements.sort(null);
			out.append('[').append(String.join(", ", elements)).append(']');
		}
		else if (value instanceof Map<?, ?> map) {
			List<String> entries = new ArrayList<>(map.size());
			for (Map.Entry<?, ?> entry : map.entrySet()) {
				entries.add(nested(entry.getKey(), depth) + "=" + nested(entry.getValue(), depth));
			}
			entries.sort(null);
			out.append('{').append(String.join(", ", entries)).append('}');
		}
		else if (value instanceof Optional<?> optional) {
			if (optional.isPresent()) {
				out.append("Optional[");
				append(out, optional.get(), depth + 1);
				out.append(']');
			}
			else {
				out.append("Optional.empty");
			}
		}
		else if (value.getClass().isRecord() && needsRendering(value, depth)) {
			appendRecord(out, value, depth);
		}
		else if (hasIdentityToString(value)) {
			throw new UnstableKeyValueException("is a " + value.getClass().getName() + ", which has no toString() of "
					+ "its own: Object's identity toString() differs per instance and per JVM; use a property of it "
					+ "(such as #order.id) or give the type a toString()");
		}
		else {
			out.append(value);
		}
	}

	private static void appendInOrder(StringBuilder out, Collection<?> elements, int depth) {
		out.append('[');
		boolean first = true;
		for (Object element : elements) {
			if (!first) {
				out.append(", ");
			}
			first = false;
			append(out, element, depth + 1);
			if (out.length() > LockKeys.MAX_LENGTH) {
				break; // already too long to be a key: the key check rejects it, naming the limit
			}
		}
		out.append(']');
	}

	// The format of a record's generated toString(), with every component rendered stably.
	private static void appendRecord(StringBuilder out, Object record, int depth) {
		out.append(record.getClass().getSimpleName()).append('[');
		RecordComponent[] components = record.getClass().getRecordComponents();
		for (int i = 0; i < components.length; i++) {
			if (i > 0) {
				out.append(", ");
			}
			out.append(components[i].getName()).append('=');
			append(out, component(record, components[i]), depth + 1);
		}
		out.append(']');
	}

	private static String nested(@Nullable Object value, int depth) {
		StringBuilder out = new StringBuilder();
		append(out, value, depth + 1);
		return out.toString();
	}

	/**
	 * Whether a record holds anything its {@code toString()} would render unstably; if not, its own
	 * {@code toString()} (perhaps written by the user) is kept.
	 */
	private static boolean needsRendering(@Nullable Object value, int depth) {
		if (value == null || depth > MAX_DEPTH) {
			return false;
		}
		Class<?> type = value.getClass();
		if (type.isArray() || value instanceof Collection<?> || value instanceof Map<?, ?>
				|| value instanceof Optional<?>) {
			return true;
		}
		if (type.isRecord()) {
			for (RecordComponent component : type.getRecordComponents()) {
				if (needsRendering(component(value, component), depth + 1)) {
					return true;
				}
			}
			return false;
		}
		return hasIdentityToString(value);
	}

	private static @Nullable Object component(Object record, RecordComponent component) {
		try {
			component.getAccessor().setAccessible(true);
			return component.getAccessor().invoke(record);
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			throw new UnstableKeyValueException("is a record whose component '" + component.getName()
					+ "' cannot be read: " + ex);
		}
	}

	private static boolean hasIdentityToString(Object value) {
		try {
			return value.getClass().getMethod("toString").getDeclaringClass() == Object.class;
		}
		catch (NoSuchMethodException ex) {
			return true; // every class has toString(); unreachable
		}
	}

	/**
	 * Converts to String through {@link KeyRenderer#render}, so that {@code 'ids:' + #ids} renders an array or a set as a
	 * whole key {@code #ids} would; every other conversion goes to the standard converter.
	 */
	static final class Converter implements TypeConverter {

		private final TypeConverter standard = new StandardTypeConverter();

		@Override
		public boolean canConvert(@Nullable TypeDescriptor sourceType, TypeDescriptor targetType) {
			return targetType.getType() == String.class || standard.canConvert(sourceType, targetType);
		}

		@Override
		public @Nullable Object convertValue(@Nullable Object value, @Nullable TypeDescriptor sourceType,
				TypeDescriptor targetType) {
			if (value != null && targetType.getType() == String.class) {
				return render(value);
			}
			return standard.convertValue(value, sourceType, targetType);
		}

	}

	/**
	 * A key value that has no stable text.
	 */
	static final class UnstableKeyValueException extends RuntimeException {

		UnstableKeyValueException(String message) {
			super(message);
		}

	}

}
