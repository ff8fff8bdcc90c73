package dev.distlock.spring;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
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
import org.springframework.expression.spel.SpelMessage;
import org.springframework.expression.spel.SpelEvaluationException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.ConstructorReference;
import org.springframework.expression.spel.ast.Elvis;
import org.springframework.expression.spel.ast.FunctionReference;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.OpAnd;
import org.springframework.expression.spel.ast.OpOr;
import org.springframework.expression.spel.ast.OpPlus;
import org.springframework.expression.spel.ast.Projection;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.Selection;
import org.springframework.expression.spel.ast.Ternary;
import org.springframework.expression.spel.ast.TypeReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.DataBindingMethodResolver;
import org.springframework.expression.spel.support.DataBindingPropertyAccessor;
import org.springframework.expression.spel.support.ReflectiveMethodResolver;
import org.springframework.expression.spel.support.SimpleEvaluationContext;
import org.springframework.expression.spel.support.StandardEvaluationContext;

import dev.distlock.core.DistributedLockException;
import dev.distlock.core.InvalidLockKeyException;
import dev.distlock.core.LockKeys;

/**
 * The key expressions of one method, parsed once and checked at startup: they may name only the method's parameters,
 * {@code #pN}/{@code #aN} and {@code #root}; never types or constructors; beans only when enabled; never call into
 * reflection ({@link ReflectionGuard}). Values render through {@link KeyValues}, the same on every JVM.
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
			return new LockKeyExpressions(method, Methods.defaultKey(method, targetClass), List.of(), List.of(), names,
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
			check(method, source, ast, allowedVariables(method, names), beanResolver != null);
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
		EvaluationContext context = context(target, args);
		List<String> keys = new ArrayList<>(expressions.size());
		for (int i = 0; i < expressions.size(); i++) {
			Expression expression = expressions.get(i);
			rejectNullOperands(expression, concatenated.get(i), context);
			String key;
			try {
				Object value = expression.getValue(context);
				key = value != null ? KeyValues.render(value) : null;
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
						+ expression.getExpressionString() + "' of " + Methods.describe(method) + ")");
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
						+ Methods.describe(method) + ", which would render it as the text 'null'; pass a value, or "
						+ "write a default into the expression, such as (#" + name + " ?: 'none')");
			}
		}
	}

	private LockKeyEvaluationException evaluationError(Expression expression, RuntimeException ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof KeyValues.UnstableKeyValueException || cause instanceof ReflectionGuard.Refused) {
				return new LockKeyEvaluationException(method, expression.getExpressionString(),
						"its value " + cause.getMessage(), ex);
			}
		}
		return new LockKeyEvaluationException(method, expression.getExpressionString(), ex);
	}

	private EvaluationContext context(Object target, @Nullable Object[] args) {
		LockExpressionRoot root = new LockExpressionRoot(method, target, args);
		EvaluationContext context;
		if (beanResolver == null) {
			context = SimpleEvaluationContext
				.forPropertyAccessors(ReflectionGuard.properties(), new RecordPropertyAccessor(),
						DataBindingPropertyAccessor.forReadOnlyAccess())
				.withMethodResolvers(ReflectionGuard.methods(DataBindingMethodResolver.forInstanceMethodInvocation()))
				.withTypeConverter(new KeyValues.Converter())
				.withRootObject(root)
				.build();
		}
		else {
			StandardEvaluationContext standard = new StandardEvaluationContext(root);
			standard.setPropertyAccessors(List.of(ReflectionGuard.properties(), new RecordPropertyAccessor(),
					DataBindingPropertyAccessor.forReadOnlyAccess()));
			standard.setMethodResolvers(List.of(ReflectionGuard.methods(new ReflectiveMethodResolver())));
			standard.setTypeConverter(new KeyValues.Converter());
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

	private static Set<String> allowedVariables(Method method, String @Nullable [] names) {
		Set<String> allowed = new HashSet<>(List.of("root", "this"));
		for (int i = 0; i < method.getParameterCount(); i++) {
			allowed.add("p" + i);
			allowed.add("a" + i);
		}
		if (names != null) {
			allowed.addAll(Arrays.asList(names));
		}
		return allowed;
	}

	// Walks the whole tree: the rules hold at any depth, not only at the top.
	private static void check(Method method, String source, SpelNode node, Set<String> allowed, boolean beans) {
		if (node instanceof VariableReference || node instanceof FunctionReference) {
			String name = node.toStringAST().substring(1);
			int paren = name.indexOf('(');
			name = paren >= 0 ? name.substring(0, paren) : name;
			if (!allowed.contains(name)) {
				throw new LockAnnotationException(method, "key expression '" + source + "' references #" + name
						+ ", which is not a parameter of the method (parameters: " + parameterList(method, allowed)
						+ "; compile with -parameters to use names)", null);
			}
		}
		else if (node instanceof TypeReference || node instanceof ConstructorReference) {
			throw new LockAnnotationException(method,
					"key expression '" + source + "' may not reference types or constructors", null);
		}
		else if (node instanceof BeanReference && !beans) {
			throw new LockAnnotationException(method, "key expression '" + source
					+ "' references a bean; set distributed-lock.spel.bean-references=true to allow it", null);
		}
		else if (node instanceof CompoundExpression && callsOnRootMethod(node)) {
			throw new LockAnnotationException(method, "key expression '" + source + "' calls a method on #root.method; "
					+ "key expressions may not invoke reflection (read #root.method.name or #root.methodName instead)",
					null);
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			check(method, source, node.getChild(i), allowed, beans);
		}
	}

	// #root.method.invoke(...), #root.method.getDeclaringClass(), method.getName(): a call right after "method".
	private static boolean callsOnRootMethod(SpelNode compound) {
		for (int i = 0; i + 1 < compound.getChildCount(); i++) {
			SpelNode node = compound.getChild(i);
			boolean rootMethod = (node instanceof PropertyOrFieldReference property && property.getName().equals("method"))
					|| (node instanceof MethodReference call && call.getName().equals("getMethod"));
			boolean fromRoot = i == 0 || (i == 1 && compound.getChild(0).toStringAST().equals("#root"));
			if (rootMethod && fromRoot && compound.getChild(i + 1) instanceof MethodReference) {
				return true;
			}
		}
		return false;
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

	private static String parameterList(Method method, Set<String> allowed) {
		String[] names = parameterNames.getParameterNames(method);
		return names != null ? String.join(", ", names) : "#p0..#p" + (method.getParameterCount() - 1);
	}

}
