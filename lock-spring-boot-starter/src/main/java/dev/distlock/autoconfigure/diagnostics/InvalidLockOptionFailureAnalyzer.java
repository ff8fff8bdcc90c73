package dev.distlock.autoconfigure.diagnostics;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;

import dev.distlock.core.InvalidLockOptionException;
import dev.distlock.spring.LockAnnotationException;

/**
 * Reports an invalid {@code distributed-lock.*} property (or a lock option the application builds in code) with the
 * property, what is wrong with its value and where it was set. A missing store behind {@code distributed-lock.provider}
 * is left to {@link MissingLockStoreFailureAnalyzer}, a bad annotation attribute to
 * {@link LockAnnotationFailureAnalyzer}.
 */
class InvalidLockOptionFailureAnalyzer extends AbstractFailureAnalyzer<InvalidLockOptionException> {

	private static final String PREFIX = "distributed-lock.";

	private final @Nullable Environment environment;

	InvalidLockOptionFailureAnalyzer(@Nullable Environment environment) {
		this.environment = environment;
	}

	@Override
	protected @Nullable FailureAnalysis analyze(Throwable rootFailure, InvalidLockOptionException cause) {
		if (MissingLockStoreFailureAnalyzer.handles(cause)
				|| findCause(rootFailure, LockAnnotationException.class) != null) {
			return null;
		}
		String option = cause.option();
		String requirement = requirement(cause.detail());
		if (!option.startsWith(PREFIX)) {
			return new FailureAnalysis("The lock option '" + option + "' is invalid: " + sentence(cause.detail()),
					"Change the '" + option + "' value where the application builds its lock options (" + requirement
							+ ").",
					cause);
		}
		StringBuilder description = new StringBuilder("The property '").append(option)
			.append("' is invalid: ")
			.append(sentence(cause.detail()));
		String origin = origin(option);
		if (origin != null) {
			description.append("\n\n    Origin: ").append(origin);
		}
		return new FailureAnalysis(description.toString(), "Change '" + option + "' in the application's configuration ("
				+ requirement + "), or remove it to use its default.", cause);
	}

	private static String sentence(String text) {
		return text.endsWith(".") ? text : text + ".";
	}

	// "must be positive, was PT-5S" -> "it must be positive": the action says what to write, the description what was.
	static String requirement(String detail) {
		int was = detail.lastIndexOf(", was ");
		String rule = (was > 0) ? detail.substring(0, was) : detail;
		return rule.startsWith("must ") ? "it " + rule : rule;
	}

	// Where the value came from, such as "class path resource [application.yml] - 3:12", as Boot's own reports say.
	private @Nullable String origin(String property) {
		if (environment == null || !ConfigurationPropertyName.isValid(property)) {
			return null;
		}
		ConfigurationPropertyName name = ConfigurationPropertyName.of(property);
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			ConfigurationProperty found = source.getConfigurationProperty(name);
			if (found != null) {
				if (found.getOrigin() != null) {
					return found.getOrigin().toString();
				}
				Object underlying = source.getUnderlyingSource();
				return "property source '"
						+ ((underlying instanceof PropertySource<?> named) ? named.getName() : underlying) + "'";
			}
		}
		return null;
	}

}
