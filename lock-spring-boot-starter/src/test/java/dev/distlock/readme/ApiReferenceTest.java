package dev.distlock.readme;

import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's API reference lists every public method and constructor of the types users call, with its
 * parameters as the code names them, so the reference cannot drift from the code.
 */
class ApiReferenceTest {

	@ParameterizedTest
	@ValueSource(strings = { "dev.distlock.core.LockTemplate", "dev.distlock.core.LockTemplate$Builder",
			"dev.distlock.core.LockOptions", "dev.distlock.core.LockOptions$Builder", "dev.distlock.core.LockHandle",
			"dev.distlock.core.LockGroup", "dev.distlock.core.LockOperations", "dev.distlock.core.spi.StatusQuery" })
	void everyPublicMethodIsListedWithItsParameters(String typeName) throws ClassNotFoundException {
		Class<?> type = Class.forName(typeName);
		String reference = Readme.text().substring(Readme.text().indexOf("\n## API reference\n"));
		List<String> missing = new ArrayList<>();
		for (String signature : signatures(type)) {
			if (!reference.contains("`" + signature + "`")) {
				missing.add(signature);
			}
		}
		assertThat(missing).as("methods of %s missing from the README's API reference", type.getSimpleName())
			.isEmpty();
	}

	private static List<String> signatures(Class<?> type) {
		List<String> signatures = new ArrayList<>();
		for (Constructor<?> constructor : type.getConstructors()) {
			signatures.add("new " + type.getSimpleName() + "(" + parameters(constructor) + ")");
		}
		for (Method method : type.getDeclaredMethods()) {
			if (Modifier.isPublic(method.getModifiers()) && !method.isSynthetic() && !method.isBridge()
					&& !Set.of("equals", "hashCode", "toString").contains(method.getName())) {
				signatures.add(method.getName() + "(" + parameters(method) + ")");
			}
		}
		return signatures;
	}

	// Simple type names as written in code: java.util.function.Supplier<T> is Supplier<T>, StatusQuery$State is
	// StatusQuery.State; parameter names come from lock-core's -parameters.
	private static String parameters(Executable executable) {
		return Arrays.stream(executable.getParameters())
			.map(parameter -> simple(parameter.getParameterizedType().getTypeName()) + " " + parameter.getName())
			.collect(Collectors.joining(", "));
	}

	private static String simple(String typeName) {
		return typeName.replaceAll("\\b[a-z][a-z0-9_]*\\.", "").replace('$', '.');
	}

}
