package dev.distlock.redis;

import java.nio.ByteBuffer;

import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.codec.ToByteBufEncoder;
import io.netty.buffer.ByteBuf;

/**
 * The lock-script connection's codec: UTF-8 strings, as {@link StringCodec#UTF8}, and keys that are either a
 * {@code String} or a {@link RedisKeys.Derived} key, written as its lock's name followed by its suffix without the
 * name ever being built as a string (the acquire and release scripts name five of them per call). The bytes sent are
 * exactly those of the joined name, so the keys, and their cluster slot, are the same either way.
 */
final class ScriptCodec implements RedisCodec<Object, String>, ToByteBufEncoder<Object, String> {

	static final ScriptCodec INSTANCE = new ScriptCodec();

	private static final StringCodec UTF8 = StringCodec.UTF8;

	private ScriptCodec() {
	}

	@Override
	public Object decodeKey(ByteBuffer bytes) {
		return UTF8.decodeKey(bytes);
	}

	@Override
	public String decodeValue(ByteBuffer bytes) {
		return UTF8.decodeValue(bytes);
	}

	@Override
	public ByteBuffer encodeKey(Object key) {
		return UTF8.encodeKey(key.toString());
	}

	@Override
	public ByteBuffer encodeValue(String value) {
		return UTF8.encodeValue(value);
	}

	@Override
	public void encodeKey(Object key, ByteBuf target) {
		if (key instanceof RedisKeys.Derived derived) {
			UTF8.encodeKey(derived.lock(), target);
			target.writeBytes(derived.suffix().bytes());
		}
		else {
			UTF8.encodeKey((String) key, target);
		}
	}

	@Override
	public void encodeValue(String value, ByteBuf target) {
		UTF8.encodeValue(value, target);
	}

	@Override
	public int estimateSize(Object keyOrValue) {
		if (keyOrValue instanceof RedisKeys.Derived derived) {
			return UTF8.estimateSize(derived.lock()) + derived.suffix().bytes().length;
		}
		return UTF8.estimateSize(keyOrValue);
	}

	@Override
	public boolean isEstimateExact() {
		return UTF8.isEstimateExact();
	}

}
