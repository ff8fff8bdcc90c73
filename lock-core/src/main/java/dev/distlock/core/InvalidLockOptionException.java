package dev.distlock.core;

/**
 * An option or property had an invalid value. The message names the option.
 */
public class InvalidLockOptionException extends DistributedLockException {

	private final String option;

	private final String detail;

	/**
	 * Creates the error for the named option.
	 * @param detail what is wrong with the value, such as {@code must be positive, was PT-5S}
	 */
	public InvalidLockOptionException(String option, String detail) {
		super(null, "Invalid lock option '" + option + "': " + detail, null);
		this.option = option;
		this.detail = detail;
	}

	/**
	 * The option at fault, such as {@code timeout} or {@code maxConcurrent}.
	 */
	public String option() {
		return option;
	}

	/**
	 * What is wrong with the value, without the option's name.
	 */
	public String detail() {
		return detail;
	}

}
