package dev.distlock.spring;

import java.lang.reflect.RecordComponent;

import org.jspecify.annotations.Nullable;
import org.springframework.expression.AccessException;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.TypedValue;

/**
 * Reads record components as properties, so {@code #order.id} works on a record as on a JavaBean. Read-only.
 */
final class RecordPropertyAccessor extends ReadOnlyPropertyAccessor {

	@Override
	public Class<?> @Nullable [] getSpecificTargetClasses() {
		return null;
	}

	@Override
	public boolean canRead(EvaluationContext context, @Nullable Object target, String name) {
		return component(target, name) != null;
	}

	@Override
	public TypedValue read(EvaluationContext context, @Nullable Object target, String name) throws AccessException {
		RecordComponent component = component(target, name);
		if (component == null) {
			throw new AccessException("No record component '" + name + "'");
		}
		try {
			component.getAccessor().setAccessible(true);
			return new TypedValue(component.getAccessor().invoke(target));
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			throw new AccessException("Cannot read record component '" + name + "'", ex);
		}
	}

	private static @Nullable RecordComponent component(@Nullable Object target, String name) {
		if (target == null || !target.getClass().isRecord()) {
			return null;
		}
		for (RecordComponent component : target.getClass().getRecordComponents()) {
			if (component.getName().equals(name)) {
				return component;
			}
		}
		return null;
	}

}
