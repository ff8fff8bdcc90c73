package dev.distlock.spring;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.Elvis;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.OpAnd;
import org.springframework.expression.spel.ast.OpOr;
import org.springframework.expression.spel.ast.OpPlus;
import org.springframework.expression.spel.ast.Projection;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.Selection;
import org.springframework.expression.spel.ast.Ternary;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

import dev.distlock.core.DistributedLockException;
import dev.distlock.core.InvalidLockKeyException;
import dev.distlock.core.LockKeys;

/**
 * The key expressions of one method, parsed once and checked at startup against {@link KeyExpressionRules}, then
 * evaluated on each call in a context from {@link KeyEvaluationContexts}, which keeps them away from reflection
 * ({@link ReflectionGuard}). Values render through {@link KeyRenderer}, the same on every JVM; a parameter concatenated
 * into a key with {@code +} must not be null.
 */
final class LockKeyExpressions {

	private static final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

	private final Method method;

	private final @Nullable String defaultKey;

	private final List<Expression> expressions;

	// Per expression: the parameters that are operands of a "+" always evaluated, which must not be null.
	private final List<Set<String>> concatenated;

	private final String @Nullable [] names;

	private final @Nullable BeanResolver beanResolver;

	private LockKeyExpressions(Method method, @Nullable String defaultKey, List<Expression> expressions,
			List<Set<String>> concatenated, String @Nullable [] names, @Nullable BeanResolver beanResolver) {
		this.method = method;
		this.defaultKey = defaultKey;
		this.expressions = expressions;
		this.concatenated = concatenated;
		this.names = names;
		this.beanResolver = beanResolver;
	}

	/**
	 * Parses and checks the sources; none means the literal key {@code ClassName.methodName}.
	 * @param parser a SpEL parser
	 * @param beanResolver resolves {@code @bean} references, or null when they are disabled
	 * @throws LockAnnotationException naming the method if an expression does not parse or reaches what it may not
	 */
	static LockKeyExpressions parse(SpelExpressionParser parser, Method method, Class<?> targetClass,
			List<String> sources, @Nullable BeanResolver beanResolver) {
		String[] names = parameterNames.getParameterNames(method);
		if (sources.isEmpty()) {
			return new LockKeyExpressions(method, MethodNames.defaultKey(method, targetClass), List.of(), List.of(), names,
					null);
		}
		List<Expression> parsed = new ArrayList<>(sources.size());
		List<Set<String>> concatenated = new ArrayList<>(sources.size());
		for (String source : sources) {
			Expression expression;
			try {
				expression = parser.parseExpression(source);
			}
			catch (ParseException ex) {
				throw new LockAnnotationException(method,
						"key expression '" + source + "' does not parse: " + ex.getMessage(), ex);
			}
			SpelNode ast = ((SpelExpression) expression).getAST();
			KeyExpressionRules.check(method, source, ast, names, beanResolver != null);
			Set<String> operands = new HashSet<>();
			concatenatedParameters(ast, true, operands);
			parsed.add(expression);
			concatenated.add(Set.copyOf(operands));
		}
		return new LockKeyExpressions(method, null, List.copyOf(parsed), List.copyOf(concatenated), names,
				beanResolver);
	}

	/**
	 * Evaluates every key for one call.
	 * @throws InvalidLockKeyException if a key is null, blank, too long, holds control characters or lone surrogates,
	 * or if a parameter concatenated into it is null
	 * @throws LockKeyEvaluationException if an expression fails, reaches for reflection, or gives a value without a
	 * stable text
	 */
	List<String> evaluate(Object target, @Nullable Object[] args) {
		if (defaultKey != null) {
			return List.of(defaultKey);
		}
		EvaluationContext context = KeyEvaluationContexts.forCall(method, target, args, names, beanResolver);
		List<String> keys = new ArrayList<>(expressions.size());
		for (int i = 0; i < expressions.size(); i++) {
			Expression expression = expressions.get(i);
			rejectNullOperands(expression, concatenated.get(i), context);
			String key;
			try {
				Object value = expression.getValue(context);
				key = value != null ? KeyRenderer.render(value) : null;
			}
			catch (DistributedLockException ex) {
				throw ex;
			}
			catch (RuntimeException ex) {
				// SpEL rethrows a method's own runtime exception unwrapped, such as substring's index error.
				throw evaluationError(expression, ex);
			}
			try {
				keys.add(LockKeys.validate(key));
			}
			catch (InvalidLockKeyException ex) {
				throw new InvalidLockKeyException(ex.key(), ex.getMessage() + " (expression '"
						+ expression.getExpressionString() + "' of " + MethodNames.describe(method) + ")");
			}
		}
		return keys;
	}

	/**
	 * A parameter concatenated with {@code +} that is null would become the text {@code null}: one lock for every null
	 * call, and the same as the value {@code "null"}. A whole key that is null fails later, as null.
	 */
	private void rejectNullOperands(Expression expression, Set<String> operands, EvaluationContext context) {
		for (String name : operands) {
			if (context.lookupVariable(name) == null) {
				throw new InvalidLockKeyException(null, "Lock key must not be built from a null parameter: #" + name
						+ " is null in expression '" + expression.getExpressionString() + "' of "
						+ MethodNames.describe(method) + ", which would render it as the text 'null'; pass a value, or "
						+ "write a default into the expression, such as (#" + name + " ?: 'none')");
			}
		}
	}

	private LockKeyEvaluationException evaluationError(Expression expression, RuntimeException ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof KeyRenderer.UnstableKeyValueException || cause instanceof ReflectionGuard.Refused) {
				return new LockKeyEvaluationException(method, expression.getExpressionString(),
						"its value " + cause.getMessage(), ex);
			}
		}
		return new LockKeyEvaluationException(method, expression.getExpressionString(), ex);
	}

	/**
	 * Collects the parameters that are operands of a {@code +} evaluated on every call: not inside the branches of
	 * {@code ?:}, {@code ?:} (Elvis), {@code and}/{@code or}, selections, projections or after {@code ?.}, where a null
	 * may be what the expression tests for.
	 */
	private static void concatenatedParameters(SpelNode node, boolean always, Set<String> operands) {
		if (always && node instanceof OpPlus && node.getChildCount() == 2) {
			for (int i = 0; i < 2; i++) {
				if (node.getChild(i) instanceof VariableReference variable) {
					String name = variable.toStringAST().substring(1);
					if (!name.equals("root") && !name.equals("this")) {
						operands.add(name);
					}
				}
			}
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			boolean conditional = (node instanceof Ternary && i > 0) || (node instanceof Elvis && i > 0)
					|| ((node instanceof OpAnd || node instanceof OpOr) && i > 0) || node instanceof Selection
					|| node instanceof Projection || (node instanceof MethodReference call && call.isNullSafe())
					|| (node instanceof CompoundExpression && i > 0 && isNullSafe(node.getChild(i)));
			concatenatedParameters(node.getChild(i), always && !conditional, operands);
		}
	}

	private static boolean isNullSafe(SpelNode node) {
		return (node instanceof PropertyOrFieldReference property && property.isNullSafe())
				|| (node instanceof MethodReference call && call.isNullSafe());
	}

}
