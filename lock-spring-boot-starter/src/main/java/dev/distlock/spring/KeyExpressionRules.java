package dev.distlock.spring;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.ConstructorReference;
import org.springframework.expression.spel.ast.FunctionReference;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.TypeReference;
import org.springframework.expression.spel.ast.VariableReference;

/**
 * What a key expression may name, checked once on its parsed tree at startup: the method's parameters (by name when
 * compiled with {@code -parameters}), {@code #pN}/{@code #aN}, {@code #root} and {@code #this}; never types or
 * constructors; beans only when enabled; no method call on {@code #root.method}. What the checks cannot see is refused
 * at run time by {@link ReflectionGuard}.
 */
final class KeyExpressionRules {

	private KeyExpressionRules() {
	}

	/**
	 * Checks one parsed expression.
	 * @param names the method's parameter names, or null when they were not compiled in
	 * @param beans whether bean references are enabled
	 * @throws LockAnnotationException naming the method if the expression reaches what it may not
	 */
	static void check(Method method, String source, SpelNode ast, String @Nullable [] names, boolean beans) {
		check(method, source, ast, allowedVariables(method, names), names, beans);
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
	private static void check(Method method, String source, SpelNode node, Set<String> allowed,
			String @Nullable [] names, boolean beans) {
		if (node instanceof VariableReference || node instanceof FunctionReference) {
			String name = node.toStringAST().substring(1);
			int paren = name.indexOf('(');
			name = paren >= 0 ? name.substring(0, paren) : name;
			if (!allowed.contains(name)) {
				throw new LockAnnotationException(method, "key expression '" + source + "' references #" + name
						+ ", which is not a parameter of the method (parameters: " + parameterList(method, names)
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
			check(method, source, node.getChild(i), allowed, names, beans);
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

	// Without compiled names the message can offer only the positional forms.
	private static String parameterList(Method method, String @Nullable [] names) {
		return names != null ? String.join(", ", names) : "#p0..#p" + (method.getParameterCount() - 1);
	}

}
