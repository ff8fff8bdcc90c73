package dev.distlock.redis;

import java.util.List;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The Lua scripts, each loaded once from its {@code .lua} resource beside this class, so its SHA is computed once
 * and EVALSHA is used. Every script that changes a lock compares the owner token; each file's header says what it
 * guarantees.
 */
final class RedisScripts {

	/** SET NX PX + fencing HINCRBY + holder details; {1, fence} or {0, PTTL}. */
	@SuppressWarnings("rawtypes")
	static final RedisScript<List> ACQUIRE = load("acquire.lua", List.class);

	/** All-or-nothing shared/exclusive acquire of one or more same-slot locks; {1, fences...} or {0, PTTL}. */
	@SuppressWarnings("rawtypes")
	static final RedisScript<List> ACQUIRE_ALL = load("acquire-all.lua", List.class);

	/** Compare-and-delete of an exclusive lock, publishing the release; 1 or 0. */
	static final RedisScript<Long> RELEASE = load("release.lua", Long.class);

	/** Compare-and-pexpire of an exclusive lock; 1 or 0. */
	static final RedisScript<Long> EXTEND = load("extend.lua", Long.class);

	/** Removes one live shared place, publishing the release; 1 or 0. */
	static final RedisScript<Long> RELEASE_SHARED = load("release-shared.lua", Long.class);

	/** Moves one live shared place's expiry; 1 or 0. */
	static final RedisScript<Long> EXTEND_SHARED = load("extend-shared.lua", Long.class);

	/** Deletes a lock whoever holds it, keeping its fencing counter, and publishes the release; 1 or 0. */
	static final RedisScript<Long> FORCE_RELEASE = load("force-release.lua", Long.class);

	/** A read-only snapshot of one lock and its fence hash. */
	@SuppressWarnings("rawtypes")
	static final RedisScript<List> STATUS = load("status.lua", List.class);

	private RedisScripts() {
	}

	private static <T> RedisScript<T> load(String name, Class<T> type) {
		RedisScript<T> script = RedisScript.of(new ClassPathResource(name, RedisScripts.class), type);
		script.getSha1(); // read the resource now, so a packaging mistake fails at class load, not at first lock
		return script;
	}

}
