package dev.distlock.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;

import io.lettuce.core.ScriptOutputType;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The sources of the Lua scripts, each read once from its {@code .lua} resource beside this class into a String, so its
 * SHA is computed once and EVALSHA is used; {@link LockScripts} (and {@link RedisLockStatus} for {@code status.lua})
 * runs them. Not on the call path: the constants are built when the class loads. Every script that changes a lock
 * compares the owner token; each file's header says what it guarantees. Redis scripts cannot call one another, so the
 * functions several scripts need live in {@code shared.lua}, which is put in front of each script that calls one of
 * them, as its first line (Redis then reports that script's line N as line N + 1); the others, the exclusive acquire
 * among them (a grant defines no function), are sent as written.
 */
final class LuaSources {

	/**
	 * SET NX PX + fencing token max(counter + 1, server TIME in us) + holder details; a waiting caller joins the FIFO
	 * waiter queue; {1, fence}, {2, fence} (already handed over) or {0, PTTL}.
	 */
	static final Script<List<?>> ACQUIRE = load("acquire.lua", List.class);

	/** All-or-nothing shared/exclusive acquire of one or more same-slot locks; {1, fences...} or {0, PTTL}. */
	static final Script<List<?>> ACQUIRE_ALL = load("acquire-all.lua", List.class);

	/** Compare-and-delete of an exclusive lock, or a hand-off to the oldest live waiter; replay-safe; 1/0. */
	static final Script<Long> RELEASE = load("release.lua", Long.class);

	/**
	 * Makes grants without expiry lasting once their caller has the reply (they were granted with a provisional lease,
	 * so a grant whose reply nobody got ends by itself); per lock 1 if it still held the lock under its token, else 0.
	 */
	static final Script<List<?>> LASTING = load("lasting.lua", List.class);

	/** Whether a token holds a lock now, exclusive or shared, changing nothing; 1 or 0. */
	static final Script<Long> HELD = load("held.lua", Long.class);

	/** Compare-and-pexpire of an exclusive lock; 1 or 0. */
	static final Script<Long> EXTEND = load("extend.lua", Long.class);

	/** Removes one live shared place, publishing the release; 1 or 0. */
	static final Script<Long> RELEASE_SHARED = load("release-shared.lua", Long.class);

	/** Moves one live shared place's lease end; 1 or 0. */
	static final Script<Long> EXTEND_SHARED = load("extend-shared.lua", Long.class);

	/** Deletes a lock whoever holds it, keeping its fencing counter, and publishes the release; {1 or 0, token, lock ID...}. */
	static final Script<List<?>> FORCE_RELEASE = load("force-release.lua", List.class);

	/** Adds members to a lock ID's index, scored by server time; the count added. */
	static final Script<Long> INDEX = load("index.lua", Long.class);

	/** Drops the entries of a lock ID's index that no lock can still be granted under; the number removed. */
	static final Script<Long> INDEX_TRIM = load("index-trim.lua", Long.class);

	/** Reads, renews or drops one member of a lock ID by its owner token and ID; its details, as text. */
	static final Script<List<?>> ID_MEMBER = load("id-member.lua", List.class);

	/** A read-only snapshot of a page of locks and their fence hashes and ids hashes (same slot in a cluster), 11 fields each. */
	static final Script<List<?>> STATUS = load("status.lua", List.class);

	private LuaSources() {
	}

	/**
	 * {@code shared.lua} as one line: comment lines dropped, the others trimmed and joined by spaces, which Lua reads
	 * as the same statements. An end-of-line comment would swallow the rest of the line, so one is refused.
	 */
	static String sharedPrelude(String source) {
		StringBuilder line = new StringBuilder();
		for (String each : source.split("\n")) {
			String code = each.strip();
			if (code.isEmpty() || code.startsWith("--")) {
				continue;
			}
			if (code.contains("--")) {
				throw new IllegalStateException("shared.lua: a comment after code cannot be joined into one line: "
						+ code);
			}
			line.append(line.isEmpty() ? "" : " ").append(code);
		}
		return line.append('\n').toString();
	}

	/**
	 * One script: Spring's form for template calls, and its SHA, text and Lettuce reply type, kept as plain fields so
	 * the hot path takes no lock ({@code DefaultRedisScript.getSha1()} synchronises on every call).
	 */
	record Script<T>(RedisScript<T> spring, String sha, String text, ScriptOutputType output) {
	}

	/**
	 * Reads the resource now, so a packaging mistake fails at class load, not at the first lock. A script built from a
	 * String has a static source: Spring's resource-backed scripts re-check the resource on every call, under a lock
	 * shared by all threads.
	 */
	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static <T> Script<T> load(String name, Class type) {
		String body = read(name);
		RedisScript<T> script = RedisScript.of(Prelude.usedBy(body) ? Prelude.TEXT + body : body, type);
		return new Script<>(script, script.getSha1(), script.getScriptAsString(),
				List.class.isAssignableFrom(type) ? ScriptOutputType.MULTI : ScriptOutputType.INTEGER);
	}

	private static String read(String name) {
		try (InputStream in = LuaSources.class.getResourceAsStream(name)) {
			if (in == null) {
				throw new IllegalStateException("Lua script " + name + " is missing from the class path");
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read Lua script " + name, ex);
		}
	}

	/**
	 * The one-line {@code shared.lua} and the names of its functions, read before the first script is built (a holder
	 * class, as the script fields above are initialised in order).
	 */
	private static final class Prelude {

		static final String TEXT = sharedPrelude(read("shared.lua"));

		private static final List<String> CALLS = Pattern.compile("local function (\\w+)\\(")
			.matcher(TEXT)
			.results()
			.map(match -> match.group(1) + "(")
			.toList();

		static boolean usedBy(String script) {
			return CALLS.stream().anyMatch(script::contains);
		}

	}

}
