package dev.distlock.spring;

import org.jspecify.annotations.Nullable;
import org.springframework.expression.AccessException;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.PropertyAccessor;

/**
 * A property accessor for key expressions, which only ever read: every write is refused.
 */
abstract class ReadOnlyPropertyAccessor implements PropertyAccessor {

	@Override
	public final boolean canWrite(EvaluationContext context, @Nullable Object target, String name) {
		return false;
	}

	@Override
	public final void write(EvaluationContext context, @Nullable Object target, String name,
			@Nullable Object newValue) throws AccessException {
		throw new AccessException("Lock key expressions are read-only");
	}

}
