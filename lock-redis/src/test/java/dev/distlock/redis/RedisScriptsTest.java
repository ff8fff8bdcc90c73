package dev.distlock.redis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class RedisScriptsTest {

	@Test
	void sharedFunctionsBecomeTheFirstLineOfTheScriptsThatCallThem() {
		String firstLine = RedisScripts.RELEASE_SHARED.text().lines().findFirst().orElseThrow();

		assertThat(firstLine).startsWith("local function expireWithLongestHolder(lock, holders) ").endsWith(" end");
		for (RedisScripts.LuaScript<?> script : new RedisScripts.LuaScript<?>[] { RedisScripts.ACQUIRE,
				RedisScripts.ACQUIRE_ALL, RedisScripts.RELEASE, RedisScripts.RELEASE_SHARED, RedisScripts.EXTEND,
				RedisScripts.EXTEND_SHARED, RedisScripts.ID_MEMBER }) {
			assertThat(script.text()).startsWith(firstLine + "\n");
			assertThat(script.text().lines().skip(1).findFirst().orElseThrow()).startsWith("--");
		}
	}

	@Test
	void scriptsThatCallNoSharedFunctionAreSentAsWritten() {
		for (RedisScripts.LuaScript<?> script : new RedisScripts.LuaScript<?>[] { RedisScripts.HELD,
				RedisScripts.FORCE_RELEASE, RedisScripts.INDEX, RedisScripts.INDEX_TRIM, RedisScripts.STATUS }) {
			assertThat(script.text()).startsWith("--").doesNotContain("expireWithLongestHolder");
		}
	}

	@Test
	void commentLinesAreDroppedAndCodeLinesJoined() {
		String joined = RedisScripts.sharedPrelude("""
				-- a comment
				local function f(x)
					-- inside
					return x + 1
				end
				""");

		assertThat(joined).isEqualTo("local function f(x) return x + 1 end\n");
	}

	@Test
	void aCommentAfterCodeIsRefusedAsItWouldSwallowTheJoinedLine() {
		assertThatIllegalStateException()
			.isThrownBy(() -> RedisScripts.sharedPrelude("local x = 1 -- one\nlocal y = 2\n"))
			.withMessageContaining("local x = 1 -- one");
	}

}
