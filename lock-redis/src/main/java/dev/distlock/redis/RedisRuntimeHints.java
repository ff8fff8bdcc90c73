package dev.distlock.redis;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What a native image needs of this module: the Lua scripts, which {@link LuaSources} reads from the class path when
 * it is first loaded. Without them the first lock fails with "Lua script ... is missing from the class path".
 */
final class RedisRuntimeHints implements RuntimeHintsRegistrar {

	// A pattern, not a list of names, so a script added beside the others is covered without touching this file.
	static final String SCRIPTS = "dev/distlock/redis/*.lua";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern(SCRIPTS);
	}

}
