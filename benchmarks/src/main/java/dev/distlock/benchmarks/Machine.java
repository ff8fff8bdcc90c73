package dev.distlock.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The machine description printed above the table: cores, CPU model, JDK.
 */
final class Machine {

	private Machine() {
	}

	static String cpuModel() {
		try (Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
			return lines.filter(line -> line.startsWith("model name"))
				.map(line -> line.substring(line.indexOf(':') + 1).trim())
				.findFirst()
				.orElse("unknown");
		}
		catch (IOException | RuntimeException ex) {
			return "unknown (" + System.getProperty("os.arch") + ")";
		}
	}

	static int cores() {
		return Runtime.getRuntime().availableProcessors();
	}

	static String jdk() {
		return System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version") + " ("
				+ System.getProperty("java.vendor") + ")";
	}

	static String os() {
		return System.getProperty("os.name") + " " + System.getProperty("os.version");
	}

}
