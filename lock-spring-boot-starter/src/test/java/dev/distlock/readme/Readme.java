package dev.distlock.readme;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.jayway.jsonpath.JsonPath;

import dev.distlock.autoconfigure.DistributedLockProperties;

/**
 * The repository's README.md, its fenced code blocks, and the starter's generated configuration metadata.
 */
final class Readme {

	private static final Pattern BLOCK = Pattern.compile("(?m)^```(\\w*)\\n(.*?)^```$", Pattern.DOTALL);

	private Readme() {
	}

	/** The README's text; tests run in the starter's directory, the README sits one above. */
	static String text() {
		Path dir = Path.of("").toAbsolutePath();
		while (dir != null && !Files.isRegularFile(dir.resolve("README.md"))) {
			dir = dir.getParent();
		}
		if (dir == null) {
			throw new IllegalStateException("README.md not found above " + Path.of("").toAbsolutePath());
		}
		try {
			return Files.readString(dir.resolve("README.md"));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** The contents of every fenced block in the given language, such as {@code java}, in README order. */
	static List<String> blocks(String language) {
		List<String> blocks = new ArrayList<>();
		Matcher matcher = BLOCK.matcher(text());
		while (matcher.find()) {
			if (matcher.group(1).equals(language)) {
				blocks.add(matcher.group(2));
			}
		}
		return blocks;
	}

	/** Every {@code distributed-lock.*} property in the starter's generated metadata. */
	static Set<String> metadataProperties() {
		List<String> names = JsonPath.read(metadata(), "$.properties[?(@.name =~ /distributed-lock\\..*/)].name");
		return new TreeSet<>(names);
	}

	// The starter's own file, not another jar's: it sits next to the starter's classes.
	private static String metadata() {
		try {
			var classes = DistributedLockProperties.class.getProtectionDomain().getCodeSource().getLocation().toURI();
			try (InputStream in = classes.resolve("META-INF/spring-configuration-metadata.json").toURL().openStream()) {
				return new String(in.readAllBytes(), StandardCharsets.UTF_8);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (URISyntaxException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
