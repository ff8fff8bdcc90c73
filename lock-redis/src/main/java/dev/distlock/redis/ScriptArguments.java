package dev.distlock.redis;

import java.nio.ByteBuffer;
import java.util.Arrays;

import io.lettuce.core.protocol.CommandArgs;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import org.jspecify.annotations.Nullable;

/**
 * The arguments of one script call on the lock-script connection ({@code EVALSHA} or {@code EVAL}: the SHA or the
 * script, the number of keys, {@code KEYS}, {@code ARGV}), written straight to the wire as Redis bulk strings, each
 * key as {@link ScriptCodec} writes it. Lettuce's own {@link CommandArgs} makes an object per argument, grows its list
 * past ten (a waiting caller's acquire sends 14, every exclusive release 15) and copies each UTF-8 string through a
 * buffer of its own; the bytes sent are the same. Cluster routing reads the first key
 * ({@link #getFirstEncodedKey()}), as it does Lettuce's.
 */
final class ScriptArguments extends CommandArgs<Object, String> {

	private static final byte[] CRLF = { '\r', '\n' };

	/** The SHA ({@code EVALSHA}) or the script's text ({@code EVAL}). */
	private final String script;

	private final Object[] keys;

	private final String[] values;

	ScriptArguments(String script, Object[] keys, String[] values) {
		super(ScriptCodec.INSTANCE);
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
			if (key instanceof RedisKeys.Derived derived) {
				byte[] suffix = derived.suffix().bytes();
				writeLength(target, '$', ByteBufUtil.utf8Bytes(derived.lock()) + suffix.length);
				ByteBufUtil.writeUtf8(target, derived.lock());
				target.writeBytes(suffix);
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
		return keys.length == 0 ? null : ScriptCodec.INSTANCE.encodeKey(keys[0]);
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
		return script + " " + keys.length + " " + Arrays.toString(keys) + " " + Arrays.toString(values);
	}

	@Override
	public String toString() {
		return "ScriptArguments [" + toCommandString() + "]";
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
