package dev.distlock.redis;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import org.jspecify.annotations.Nullable;

/**
 * The arguments of one script call on the lock-script connection ({@code EVALSHA} or {@code EVAL}: the SHA or the
 * script, the number of keys, {@code KEYS}, {@code ARGV}), or of one plain command on it ({@link #command}: its key and
 * arguments; the acquire of a lock without fencing tokens, {@code SET}), written straight to the wire as Redis bulk
 * strings in UTF-8. A key is a name, or a {@link RedisKeys.Suffix} standing for the first key's name followed by it
 * ({@link RedisKeys.OfLock#scriptKeys(int)}), written as the bytes of the joined name without that name ever being
 * built. Lettuce's own {@link CommandArgs} makes an object per argument, grows its list past ten (a waiting caller's
 * acquire sends 13, every exclusive release 12 or more) and copies each UTF-8 string through a buffer of its own; the
 * bytes sent are the same. Cluster routing reads the first key ({@link #getFirstEncodedKey()}), as it does
 * Lettuce's.
 */
final class ScriptArguments extends CommandArgs<String, String> {

	private static final byte[] CRLF = { '\r', '\n' };

	/** The SHA ({@code EVALSHA}) or the script's text ({@code EVAL}); null for a plain command. */
	private final @Nullable String script;

	private final Object[] keys;

	private final String[] values;

	/**
	 * @param script the SHA or the script's text, or null for a plain command ({@link #command})
	 */
	ScriptArguments(@Nullable String script, Object[] keys, String[] values) {
		super(StringCodec.UTF8);
		this.script = script;
		this.keys = keys;
		this.values = values;
	}

	/**
	 * The arguments of a plain command on one key: the key's name, then the values.
	 */
	static ScriptArguments command(String key, String... values) {
		return new ScriptArguments(null, new Object[] { key }, values);
	}

	@Override
	public int count() {
		return (script == null ? 0 : 2) + keys.length + values.length;
	}

	@Override
	public void encode(ByteBuf target) {
		if (script != null) {
			writeString(target, script);
			writeLength(target, '$', stringSize(keys.length));
			writeNumber(target, keys.length);
			target.writeBytes(CRLF);
		}
		int lockBytes = -1; // the UTF-8 length of the first key's name, counted once for every suffix after it
		for (Object key : keys) {
			if (key instanceof RedisKeys.Suffix suffix) {
				String lock = (String) keys[0];
				if (lockBytes < 0) {
					lockBytes = ByteBufUtil.utf8Bytes(lock);
				}
				writeLength(target, '$', lockBytes + suffix.bytes().length);
				ByteBufUtil.writeUtf8(target, lock);
				target.writeBytes(suffix.bytes());
				target.writeBytes(CRLF);
			}
			else {
				writeString(target, (String) key);
			}
		}
		for (String value : values) {
			writeString(target, value);
		}
	}

	@Override
	public @Nullable ByteBuffer getFirstEncodedKey() {
		return keys.length == 0 ? null : StringCodec.UTF8.encodeKey((String) keys[0]);
	}

	@Override
	public @Nullable String getFirstString() {
		return script != null ? script : (String) keys[0];
	}

	@Override
	public @Nullable Long getFirstInteger() {
		return script != null ? (long) keys.length : null;
	}

	@Override
	public String toCommandString() {
		return script == null ? keys[0] + " " + Arrays.toString(values)
				: script + " " + keys.length + " " + names(keys) + " " + Arrays.toString(values);
	}

	@Override
	public String toString() {
		return "ScriptArguments [" + toCommandString() + "]";
	}

	/**
	 * The names of a script's keys, each suffix joined to the first key's name: for a connection that takes names.
	 */
	static List<String> names(Object[] keys) {
		List<String> names = new ArrayList<>(keys.length);
		for (Object key : keys) {
			names.add(key instanceof RedisKeys.Suffix suffix ? keys[0] + suffix.text() : (String) key);
		}
		return names;
	}

	/** A bulk string: {@code $<UTF-8 length>\r\n<UTF-8 bytes>\r\n}, as {@code StringCodec.UTF8} writes the text. */
	private static void writeString(ByteBuf target, String text) {
		writeLength(target, '$', ByteBufUtil.utf8Bytes(text));
		ByteBufUtil.writeUtf8(target, text);
		target.writeBytes(CRLF);
	}

	private static void writeLength(ByteBuf target, char type, int length) {
		target.writeByte(type);
		writeNumber(target, length);
		target.writeBytes(CRLF);
	}

	/** The decimal digits of a number of 0 or more, without making a string of them. */
	private static void writeNumber(ByteBuf target, int number) {
		int digits = stringSize(number);
		int at = target.writerIndex() + digits;
		target.ensureWritable(digits);
		int rest = number;
		for (int i = 1; i <= digits; i++) {
			target.setByte(at - i, '0' + rest % 10);
			rest /= 10;
		}
		target.writerIndex(at);
	}

	private static int stringSize(int number) {
		int digits = 1;
		for (int rest = number / 10; rest > 0; rest /= 10) {
			digits++;
		}
		return digits;
	}

}
