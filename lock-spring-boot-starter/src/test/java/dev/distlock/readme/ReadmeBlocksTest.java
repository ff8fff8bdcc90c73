package dev.distlock.readme;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every code block of the README holds up when copied: each Java block compiles as printed (imports included) against
 * the starter's test class path, the Kotlin block is the source that {@code ReadmeKotlinTest} compiles and runs, each
 * JSON block parses, and each YAML block parses and names only real {@code distributed-lock.*} properties.
 */
class ReadmeBlocksTest {

	private static final Pattern PUBLIC_TYPE = Pattern
		.compile("(?m)^public\\s+(?:final\\s+|abstract\\s+)*(?:class|record|interface|enum)\\s+(\\w+)");

	@Test
	void everyJavaBlockCompilesAsPrinted(@TempDir Path dir) throws IOException {
		List<String> blocks = Readme.blocks("java");
		assertThat(blocks).hasSizeGreaterThanOrEqualTo(4);
		for (String block : blocks) {
			Matcher type = PUBLIC_TYPE.matcher(block);
			assertThat(type.find()).as("a public type in README block:%n%s", block).isTrue();
			Path source = dir.resolve(type.group(1) + ".java");
			assertThat(source).as("two README blocks declare %s", type.group(1)).doesNotExist();
			Files.writeString(source, block);
			assertThat(compile(source, dir.resolve("classes"))).as("compiling README block %s", type.group(1))
				.isEmpty();
		}
	}

	@Test
	void theKotlinBlockIsTheSourceTheKotlinTestsCompileAndRun() throws IOException {
		List<String> blocks = Readme.blocks("kotlin");
		assertThat(blocks).hasSize(1);
		String source = Files.readString(Path.of("src/test/kotlin/dev/distlock/readme/ReadmeKotlin.kt"));
		assertThat(source).isEqualTo("package dev.distlock.readme\n\n" + blocks.get(0));
	}

	@Test
	void everyJsonBlockParses() {
		List<String> blocks = Readme.blocks("json");
		assertThat(blocks).isNotEmpty();
		JsonMapper mapper = JsonMapper.builder().build();
		assertThat(blocks).allSatisfy(block -> assertThat(mapper.readTree(block).isObject()).isTrue());
	}

	@Test
	void everyYamlBlockParsesAndNamesOnlyRealProperties() {
		List<String> blocks = Readme.blocks("yaml");
		assertThat(blocks).isNotEmpty();
		List<String> named = new ArrayList<>();
		for (String block : blocks) {
			Map<String, Object> tree = new Yaml().load(block);
			flatten("", tree, named);
		}
		List<String> lockProperties = named.stream().filter(name -> name.startsWith("distributed-lock.")).toList();
		assertThat(lockProperties).isNotEmpty();
		assertThat(Readme.metadataProperties()).containsAll(lockProperties);
	}

	@SuppressWarnings("unchecked")
	private static void flatten(String prefix, Map<String, Object> tree, List<String> names) {
		tree.forEach((key, value) -> {
			String name = prefix + key;
			if (value instanceof Map<?, ?> map) {
				flatten(name + ".", (Map<String, Object>) map, names);
			}
			else {
				names.add(name);
			}
		});
	}

	// Compiled as a user would, with -parameters; the errors, each with its line, or none.
	private static List<String> compile(Path source, Path classes) throws IOException {
		Files.createDirectories(classes);
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
		// Surefire's own jar may stand for the whole class path, which it then names in this property.
		String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
		try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
			compiler.getTask(null, files, diagnostics,
					List.of("-proc:none", "-parameters", "-classpath", classPath, "-d", classes.toString()), null,
					files.getJavaFileObjects(source))
				.call();
		}
		Map<String, Diagnostic<?>> errors = new LinkedHashMap<>();
		for (Diagnostic<? extends JavaFileObject> diagnostic : diagnostics.getDiagnostics()) {
			if (diagnostic.getKind() == Diagnostic.Kind.ERROR) {
				errors.put("line " + diagnostic.getLineNumber() + ": " + diagnostic.getMessage(Locale.ROOT), diagnostic);
			}
		}
		return List.copyOf(errors.keySet());
	}

}
