package dev.distlock.core;

/**
 * An option or property had an invalid value. The message names the option.
 */
public class InvalidLockOptionException extends DistributedLockException {

	private final String option;

	/**
	 * Creates the error for the named option.
	 */
	public InvalidLockOptionException(String option, String message) {
		super(null, "Invalid lock option '" + option + "': " + message, null);
		this.option = option;
	}

	/**
	 * The option at fault, such as {@code timeout} or {@code maxConcurrent}.
	 */
	public String option() {
		return option;
	}

}
