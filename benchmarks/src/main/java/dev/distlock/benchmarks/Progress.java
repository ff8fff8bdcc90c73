package dev.distlock.benchmarks;

/**
 * Progress lines on standard error, so standard output carries only the table.
 */
final class Progress {

	private Progress() {
	}

	static void say(String line) {
		System.err.println(line);
	}

}
