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
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelMessage;
import org.springframework.expression.spel.SpelEvaluationException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.ConstructorReference;
import org.springframework.expression.spel.ast.FunctionReference;
import org.springframework.expression.spel.ast.TypeReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.DataBindingPropertyAccessor;
import org.springframework.expression.spel.support.SimpleEvaluationContext;
import org.springframework.expression.spel.support.StandardEvaluationContext;

import dev.distlock.core.InvalidLockKeyException;
import dev.distlock.core.LockKeys;

/**
 * The key expressions of one method, parsed once and checked at startup: they may name only the method's parameters,
 * {@code #pN}/{@code #aN} and {@code #root}; never types or constructors; beans only when enabled.
 */
final class LockKeyExpressions {

	private static final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

	private final Method method;

	private final @Nullable String defaultKey;

	private final List<Expression> expressions;

	private final String @Nullable [] names;

	private final @Nullable BeanResolver beanResolver;

	private LockKeyExpressions(Method method, @Nullable String defaultKey, List<Expression> expressions,
			String @Nullable [] names, @Nullable BeanResolver beanResolver) {
		this.method = method;
		this.defaultKey = defaultKey;
		this.expressions = expressions;
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
			return new LockKeyExpressions(method, Methods.defaultKey(method, targetClass), List.of(), names, null);
		}
		List<Expression> parsed = new ArrayList<>(sources.size());
		for (String source : sources) {
			Expression expression;
			try {
				expression = parser.parseExpression(source);
			}
			catch (ParseException ex) {
				throw new LockAnnotationException(method,
						"key expression '" + source + "' does not parse: " + ex.getMessage(), ex);
			}
			check(method, source, ((SpelExpression) expression).getAST(), allowedVariables(method, names),
					beanResolver != null);
			parsed.add(expression);
		}
		return new LockKeyExpressions(method, null, List.copyOf(parsed), names, beanResolver);
	}

	/**
	 * Evaluates every key for one call.
	 * @throws InvalidLockKeyException if a key is null, blank, too long or holds control characters
	 * @throws LockKeyEvaluationException if an expression fails
	 */
	List<String> evaluate(Object target, @Nullable Object[] args) {
		if (defaultKey != null) {
			return List.of(defaultKey);
		}
		EvaluationContext context = context(target, args);
		List<String> keys = new ArrayList<>(expressions.size());
		for (Expression expression : expressions) {
			Object value;
			try {
				value = expression.getValue(context);
			}
			catch (EvaluationException ex) {
				throw new LockKeyEvaluationException(method, expression.getExpressionString(), ex);
			}
			String key = value != null ? value.toString() : null;
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

	private EvaluationContext context(Object target, @Nullable Object[] args) {
		LockExpressionRoot root = new LockExpressionRoot(method, target, args);
		EvaluationContext context;
		if (beanResolver == null) {
			context = SimpleEvaluationContext.forPropertyAccessors(new RecordPropertyAccessor(),
					DataBindingPropertyAccessor.forReadOnlyAccess()).withInstanceMethods().withRootObject(root).build();
		}
		else {
			StandardEvaluationContext standard = new StandardEvaluationContext(root);
			standard.addPropertyAccessor(new RecordPropertyAccessor());
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
		for (int i = 0; i < node.getChildCount(); i++) {
			check(method, source, node.getChild(i), allowed, beans);
		}
	}

	private static String parameterList(Method method, Set<String> allowed) {
		String[] names = parameterNames.getParameterNames(method);
		return names != null ? String.join(", ", names) : "#p0..#p" + (method.getParameterCount() - 1);
	}

}
