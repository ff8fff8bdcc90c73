package dev.distlock.redis;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hints a native image gets from this module, registered as Spring's AOT processing finds them: through
 * {@code META-INF/spring/aot.factories}.
 */
class RedisRuntimeHintsTest {

	@Test
	void everyLuaScriptOnTheClassPathIsANativeImageResource() throws IOException {
		RuntimeHints hints = hintsFromAotFactories();
		List<String> scripts = luaScriptsOnTheClassPath();

		// Listed, not named: a script added later is checked without editing this test.
		assertThat(scripts).contains("acquire.lua", "release.lua", "shared.lua", "status.lua").hasSizeGreaterThan(10);
		for (String script : scripts) {
			assertThat(RuntimeHintsPredicates.resource().forResource("dev/distlock/redis/" + script))
				.as(script)
				.accepts(hints);
		}
	}

	@Test
	void theScriptsAreCoveredAsTheClassReadsThemRelativeToItself() {
		RuntimeHints hints = hintsFromAotFactories();

		assertThat(RuntimeHintsPredicates.resource().forResource(org.springframework.aot.hint.TypeReference.of(
				LuaSources.class), "acquire-all.lua")).accepts(hints);
		assertThat(RuntimeHintsPredicates.resource().forResource("dev/distlock/redis/LuaSources.class"))
			.rejects(hints);
	}

	private static RuntimeHints hintsFromAotFactories() {
		RuntimeHints hints = new RuntimeHints();
		List<RuntimeHintsRegistrar> registrars = SpringFactoriesLoader
			.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class);
		assertThat(registrars).hasAtLeastOneElementOfType(RedisRuntimeHints.class);
		registrars.forEach(registrar -> registrar.registerHints(hints, RedisRuntimeHintsTest.class.getClassLoader()));
		return hints;
	}

	private static List<String> luaScriptsOnTheClassPath() throws IOException {
		Resource[] resources = new PathMatchingResourcePatternResolver()
			.getResources("classpath*:dev/distlock/redis/*.lua");
		return Arrays.stream(resources).map(Resource::getFilename).toList();
	}

}
