package dev.distlock.redis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class LuaSourcesTest {

	@Test
	void sharedFunctionsBecomeTheFirstLineOfTheScriptsThatCallThem() {
		String firstLine = LuaSources.RELEASE_SHARED.text().lines().findFirst().orElseThrow();

		assertThat(firstLine).startsWith("local function expireWithLongestHolder(lock, holders) ").endsWith(" end");
		for (LuaSources.Script<?> script : new LuaSources.Script<?>[] {
				LuaSources.ACQUIRE_ALL, LuaSources.RELEASE, LuaSources.RELEASE_SHARED, LuaSources.EXTEND,
				LuaSources.EXTEND_SHARED, LuaSources.ID_MEMBER }) {
			assertThat(script.text()).startsWith(firstLine + "\n");
			assertThat(script.text().lines().skip(1).findFirst().orElseThrow()).startsWith("--");
		}
	}

	@Test
	void scriptsThatCallNoSharedFunctionAreSentAsWritten() {
		// acquire.lua among them: a grant defines no function at all.
		for (LuaSources.Script<?> script : new LuaSources.Script<?>[] { LuaSources.ACQUIRE, LuaSources.HELD,
				LuaSources.FORCE_RELEASE, LuaSources.INDEX, LuaSources.INDEX_TRIM, LuaSources.STATUS }) {
			assertThat(script.text()).startsWith("--").doesNotContain("expireWithLongestHolder");
		}
	}

	@Test
	void commentLinesAreDroppedAndCodeLinesJoined() {
		String joined = LuaSources.sharedPrelude("""
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
			.isThrownBy(() -> LuaSources.sharedPrelude("local x = 1 -- one\nlocal y = 2\n"))
			.withMessageContaining("local x = 1 -- one");
	}

}
