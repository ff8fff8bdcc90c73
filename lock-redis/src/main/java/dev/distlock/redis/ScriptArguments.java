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
 * script, the number of keys, {@code KEYS}, {@code ARGV}), written straight to the wire as Redis bulk strings in
 * UTF-8. A key is a name, or a {@link RedisKeys.Suffix} standing for the first key's name followed by it
 * ({@link RedisKeys.OfLock#scriptKeys(int)}), written as the bytes of the joined name without that name ever being
 * built. Lettuce's own {@link CommandArgs} makes an object per argument, grows its list past ten (a waiting caller's
 * acquire sends 13, every exclusive release 12 or more) and copies each UTF-8 string through a buffer of its own; the
 * bytes sent are the same. Cluster routing reads the first key ({@link #getFirstEncodedKey()}), as it does
 * Lettuce's.
 */
final class ScriptArguments extends CommandArgs<String, String> {

	private static final byte[] CRLF = { '\r', '\n' };

	/** The SHA ({@code EVALSHA}) or the script's text ({@code EVAL}). */
	private final String script;

	private final Object[] keys;

	private final String[] values;

	ScriptArguments(String script, Object[] keys, String[] values) {
		super(StringCodec.UTF8);
		this.script = script;
		this.keys = keys;
		this.values = values;
	}

	@Override
	public int count() {
		return 2 + keys.length + values.length;
	}

	@Override
	public void encode(ByteBuf target) {
		writeString(target, script);
		writeLength(target, '$', stringSize(keys.length));
		writeNumber(target, keys.length);
		target.writeBytes(CRLF);
		for (Object key : keys) {
			if (key instanceof RedisKeys.Suffix suffix) {
				String lock = (String) keys[0];
				writeLength(target, '$', ByteBufUtil.utf8Bytes(lock) + suffix.bytes().length);
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
	public String getFirstString() {
		return script;
	}

	@Override
	public Long getFirstInteger() {
		return (long) keys.length;
	}

	@Override
	public String toCommandString() {
		return script + " " + keys.length + " " + names(keys) + " " + Arrays.toString(values);
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
