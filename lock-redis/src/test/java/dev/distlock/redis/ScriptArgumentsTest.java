package dev.distlock.redis;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A script call written by {@link ScriptArguments} is, byte for byte, the command Lettuce's own arguments write for
 * {@code EVALSHA} and {@code EVAL} with the keys' names built as strings (keys and values of any length and script, a
 * lock's other keys as its name and a suffix), and routes by the same first key, in the lock's cluster slot; a plain
 * command ({@code SET} of a lock without fencing tokens) likewise.
 */
class ScriptArgumentsTest {

	private final RedisKeys keys = new RedisKeys("ns");

	@Test
	void aScriptCallIsWrittenAsLettucesOwnArgumentsWriteItWithTheNamesBuilt() {
		String longValue = "v".repeat(300);
		for (String key : new String[] { "orders:42", "ключ-€-😀", "a}b", "k".repeat(1000) }) {
			RedisKeys.OfLock lock = keys.of(key);
			List<String> allNames = List.of(lock.lock(), lock.fence(), lock.waiting(), lock.queue(), lock.waiters(),
					lock.ids());
			for (int count : new int[] { 2, 5, 6 }) {
				Object[] scriptKeys = lock.scriptKeys(count);
				List<String> names = allNames.subList(0, count);
				assertThat(ScriptArguments.names(scriptKeys)).isEqualTo(names);
				String[] values = { "token", "10000", "", "owner\nhost-ü", longValue, "0", "1", "2", "3", "4", "5",
						"6", "7" };
				for (CommandType type : new CommandType[] { CommandType.EVALSHA, CommandType.EVAL }) {
					String script = type == CommandType.EVALSHA ? "0123456789abcdef0123456789abcdef01234567"
							: "return redis.call('GET', KEYS[1]) -- ü";
					CommandArgs<String, String> lettuce = new CommandArgs<>(StringCodec.UTF8).add(script)
						.add(names.size())
						.addKeys(names)
						.addValues(values);
					ScriptArguments ours = new ScriptArguments(script, scriptKeys, values);
					assertThat(written(type, ours)).isEqualTo(written(type, lettuce));
					assertThat(ours.count()).isEqualTo(lettuce.count());
					assertThat(bytes(ours.getFirstEncodedKey())).isEqualTo(bytes(lettuce.getFirstEncodedKey()))
						.isEqualTo(lock.lock().getBytes(StandardCharsets.UTF_8));
				}
				for (String name : names) {
					assertThat(SlotHash.getSlot(name)).isEqualTo(SlotHash.getSlot(lock.lock()));
				}
			}
		}
	}

	@Test
	void aCallWithoutKeysOrValuesIsWrittenAsLettucesToo() {
		ScriptArguments ours = new ScriptArguments("return 1", new Object[0], new String[0]);
		CommandArgs<String, String> lettuce = new CommandArgs<>(StringCodec.UTF8).add("return 1").add(0);
		assertThat(written(CommandType.EVAL, ours)).isEqualTo(written(CommandType.EVAL, lettuce));
		assertThat(ours.getFirstEncodedKey()).isNull();
	}

	@Test
	void aPlainCommandIsWrittenAsLettucesOwnArgumentsWriteIt() {
		for (String key : new String[] { "orders:42", "ключ-€-😀", "k".repeat(1000) }) {
			String lock = keys.lock(key);
			String[] values = { "token-ü", "NX", "GET", "PX", "10000" };
			CommandArgs<String, String> lettuce = new CommandArgs<>(StringCodec.UTF8).addKey(lock).addValues(values);
			ScriptArguments ours = ScriptArguments.command(lock, values);
			assertThat(written(CommandType.SET, ours)).isEqualTo(written(CommandType.SET, lettuce));
			assertThat(ours.count()).isEqualTo(lettuce.count());
			assertThat(bytes(ours.getFirstEncodedKey())).isEqualTo(bytes(lettuce.getFirstEncodedKey()));
		}
	}

	private static String written(CommandType type, CommandArgs<String, String> args) {
		Command<String, String, Long> command = new Command<>(type, new IntegerOutput<>(StringCodec.UTF8), args);
		ByteBuf target = Unpooled.buffer();
		command.encode(target);
		byte[] bytes = new byte[target.readableBytes()];
		target.readBytes(bytes);
		return new String(bytes, StandardCharsets.ISO_8859_1);
	}

	private static byte[] bytes(ByteBuffer buffer) {
		byte[] bytes = new byte[buffer.remaining()];
		buffer.duplicate().get(bytes);
		return bytes;
	}

}
