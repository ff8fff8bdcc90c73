package dev.distlock.spring;

import java.lang.reflect.Method;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.spel.SpelEvaluationException;
import org.springframework.expression.spel.SpelMessage;
import org.springframework.expression.spel.support.DataBindingMethodResolver;
import org.springframework.expression.spel.support.DataBindingPropertyAccessor;
import org.springframework.expression.spel.support.ReflectiveMethodResolver;
import org.springframework.expression.spel.support.SimpleEvaluationContext;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * What a key expression reaches at run time, one context per call: the {@link LockExpressionRoot}, the arguments as
 * {@code #pN}, {@code #aN} and by name, properties (read-only, record components included) and method calls, both
 * behind {@link ReflectionGuard}, with values converted by {@link KeyRenderer}. Beans only when a resolver is given (and
 * then a value's static methods as well as its instance methods); types never.
 */
final class KeyEvaluationContexts {

	private KeyEvaluationContexts() {
	}

	/**
	 * A context for one call.
	 * @param names the method's parameter names, or null when they were not compiled in
	 * @param beanResolver resolves {@code @bean} references, or null when they are disabled
	 */
	static EvaluationContext forCall(Method method, Object target, @Nullable Object[] args,
			String @Nullable [] names, @Nullable BeanResolver beanResolver) {
		LockExpressionRoot root = new LockExpressionRoot(method, target, args);
		EvaluationContext context;
		if (beanResolver == null) {
			context = SimpleEvaluationContext
				.forPropertyAccessors(ReflectionGuard.properties(), new RecordPropertyAccessor(),
						DataBindingPropertyAccessor.forReadOnlyAccess())
				.withMethodResolvers(ReflectionGuard.methods(DataBindingMethodResolver.forInstanceMethodInvocation()))
				.withTypeConverter(new KeyRenderer.Converter())
				.withRootObject(root)
				.build();
		}
		else {
			StandardEvaluationContext standard = new StandardEvaluationContext(root);
			standard.setPropertyAccessors(List.of(ReflectionGuard.properties(), new RecordPropertyAccessor(),
					DataBindingPropertyAccessor.forReadOnlyAccess()));
			standard.setMethodResolvers(List.of(ReflectionGuard.methods(new ReflectiveMethodResolver())));
			standard.setTypeConverter(new KeyRenderer.Converter());
			standard.setBeanResolver(beanResolver);
			// Bean references on, types still off: T(...) would reach any static method.
			standard.setTypeLocator(typeName -> {
				throw new SpelEvaluationException(SpelMessage.TYPE_NOT_FOUND, typeName);
			});
			context = standard;
		}
		for (int i = 0; i < args.length; i++) {
			context.setVariable("p" + i, args[i]);
			context.setVariable("a" + i, args[i]);
			if (names != null && i < names.length) {
				context.setVariable(names[i], args[i]);
			}
		}
		return context;
	}

}
