package dev.distlock.redis;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import io.lettuce.core.cluster.SlotHash;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock-script connection writes a derived key (a lock's name and a suffix) as exactly the bytes of its joined
 * name, so scripts see the same keys, in the same cluster slot, as with names built as strings.
 */
class ScriptCodecTest {

	private final RedisKeys keys = new RedisKeys("ns");

	@Test
	void derivedKeysAreWrittenAsTheBytesOfTheirJoinedNamesInTheScriptsKeyOrder() {
		for (String key : new String[] { "orders:42", "ключ-€-😀", "a}b" }) {
			RedisKeys.OfLock lock = keys.of(key);
			Object[] scriptKeys = lock.scriptKeys(6);
			String[] names = { lock.lock(), lock.fence(), lock.waiting(), lock.queue(), lock.waiters(), lock.ids() };
			assertThat(scriptKeys).hasSize(6);
			for (int i = 0; i < names.length; i++) {
				byte[] expected = names[i].getBytes(StandardCharsets.UTF_8);
				assertThat(scriptKeys[i].toString()).isEqualTo(names[i]);
				ByteBuf target = Unpooled.buffer();
				ScriptCodec.INSTANCE.encodeKey(scriptKeys[i], target);
				assertThat(ByteBufBytes.of(target)).isEqualTo(expected);
				ByteBuffer buffer = ScriptCodec.INSTANCE.encodeKey(scriptKeys[i]);
				byte[] encoded = new byte[buffer.remaining()];
				buffer.get(encoded);
				assertThat(encoded).isEqualTo(expected);
				assertThat(ScriptCodec.INSTANCE.estimateSize(scriptKeys[i])).isGreaterThanOrEqualTo(expected.length);
				assertThat(SlotHash.getSlot(ScriptCodec.INSTANCE.encodeKey(scriptKeys[i])))
					.isEqualTo(SlotHash.getSlot(lock.lock()));
			}
		}
	}

	@Test
	void shorterLayoutsAreTheFirstKeysOfTheFullOne() {
		RedisKeys.OfLock lock = keys.of("k");
		assertThat(lock.scriptKeys(2)).extracting(Object::toString).containsExactly(lock.lock(), lock.fence());
		assertThat(lock.scriptKeys(5)).extracting(Object::toString)
			.containsExactly(lock.lock(), lock.fence(), lock.waiting(), lock.queue(), lock.waiters());
	}

	private static final class ByteBufBytes {

		static byte[] of(ByteBuf buf) {
			byte[] bytes = new byte[buf.readableBytes()];
			buf.readBytes(bytes);
			return bytes;
		}

	}

}
