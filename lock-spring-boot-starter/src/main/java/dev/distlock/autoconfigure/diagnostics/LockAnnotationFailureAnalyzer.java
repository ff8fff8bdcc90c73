package dev.distlock.autoconfigure.diagnostics;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.distlock.spring.LockAnnotationException;

/**
 * Reports an invalid {@code @DistributedLock} declaration with the method and what is wrong with it. When a key names
 * parameters that the compiled class does not know by name, the action shows how to compile with {@code -parameters}.
 */
class LockAnnotationFailureAnalyzer extends AbstractFailureAnalyzer<LockAnnotationException> {

	// KeyExpressionRules lists the parameters as "#p0..#pN" when their names were not compiled in.
	private static final String NO_PARAMETER_NAMES = "(parameters: #p0..";

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, LockAnnotationException cause) {
		String method = cause.method();
		String description = "The @DistributedLock annotation on " + method + " is invalid: " + problem(cause) + ".";
		String action = "Correct the @DistributedLock annotation on " + method + ".";
		if (String.valueOf(cause.getMessage()).contains(NO_PARAMETER_NAMES)) {
			action = "Compile " + method + "'s class with the -parameters flag so that keys can name parameters "
					+ "(Spring Boot's parent POM sets it; with the BOM alone, set <parameters>true</parameters> in the "
					+ "maven-compiler-plugin's configuration, or 'options.compilerArgs << \"-parameters\"' in Gradle), "
					+ "or refer to the parameters by position: #p0, #p1 and so on.";
		}
		return new FailureAnalysis(description, action, cause);
	}

	// The message without its "Invalid @DistributedLock on <method>: " opening, which the description says anyway.
	private static String problem(LockAnnotationException cause) {
		String message = String.valueOf(cause.getMessage());
		String opening = "Invalid @DistributedLock on " + cause.method() + ": ";
		return message.startsWith(opening) ? message.substring(opening.length()) : message;
	}

}
