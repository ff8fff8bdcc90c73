package dev.distlock.benchmarks.redis;

import java.util.concurrent.ThreadLocalRandom;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import dev.distlock.benchmarks.harness.LockArm;
import dev.distlock.benchmarks.harness.LockClient;

/**
 * The floor: raw Lettuce, {@code SET key token NX PX} to acquire and an EVALSHA compare-and-delete to release. Waiting
 * is a tight retry loop, the least a client can do; nothing sits between the caller and the wire.
 */
public final class LettuceFloorArm implements LockArm {

	/** Deletes the key only if it still holds our token, so a late release cannot free the next holder's lock. */
	static final String COMPARE_AND_DELETE = "if redis.call('get', KEYS[1]) == ARGV[1] then "
			+ "return redis.call('del', KEYS[1]) else return 0 end";

	private static final SetArgs NX_PX = SetArgs.Builder.nx().px(10_000);

	private final String uri;

	/**
	 * An arm on the server at the URI.
	 */
	public LettuceFloorArm(String uri) {
		this.uri = uri;
	}

	@Override
	public String name() {
		return "floor: Lettuce SET NX PX + EVALSHA";
	}

	@Override
	public boolean renewing() {
		return false;
	}

	@Override
	public LockClient newClient() {
		return new Client(uri);
	}

	private record Held(String key, String token) {
	}

	private static final class Client implements LockClient {

		private final RedisClient client;

		private final StatefulRedisConnection<String, String> connection;

		private final RedisCommands<String, String> commands;

		private final String release;

		Client(String uri) {
			this.client = RedisClient.create(uri);
			this.connection = client.connect();
			this.commands = connection.sync();
			this.release = commands.scriptLoad(COMPARE_AND_DELETE);
		}

		@Override
		public Object lock(String key) {
			ThreadLocalRandom random = ThreadLocalRandom.current();
			String token = Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong());
			while (commands.set(key, token, NX_PX) == null) {
				Thread.onSpinWait();
			}
			return new Held(key, token);
		}

		@Override
		public void unlock(Object held) {
			Held lock = (Held) held;
			commands.evalsha(release, ScriptOutputType.INTEGER, new String[] { lock.key() }, lock.token());
		}

		@Override
		public void close() {
			connection.close();
			client.shutdown();
		}

	}

}
