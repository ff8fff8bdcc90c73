package dev.distlock.benchmarks.redis;

import java.util.Map;
import java.util.TreeMap;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The server's own counters, on an admin connection of their own: {@code INFO commandstats} and {@code used_memory}.
 */
public final class RedisStats implements AutoCloseable {

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private final RedisCommands<String, String> commands;

	/**
	 * Connects to the server.
	 */
	public RedisStats(String uri) {
		this.client = RedisClient.create(uri);
		this.connection = client.connect();
		this.commands = connection.sync();
	}

	/**
	 * Calls per command name since the server started, without the INFO calls this class makes.
	 */
	public Map<String, Long> commandCalls() {
		Map<String, Long> calls = new TreeMap<>();
		for (String line : commands.info("commandstats").split("\r?\n")) {
			if (!line.startsWith("cmdstat_")) {
				continue;
			}
			String name = line.substring("cmdstat_".length(), line.indexOf(':'));
			int from = line.indexOf("calls=") + "calls=".length();
			int to = line.indexOf(',', from);
			if (!name.equals("info")) {
				calls.put(name, Long.parseLong(line.substring(from, to)));
			}
		}
		return calls;
	}

	/**
	 * Microseconds of server time per command name since the server started ({@code usec} of
	 * {@code INFO commandstats}; a script's own figure includes the commands it runs, which are also counted under
	 * their own names), without INFO.
	 */
	public Map<String, Long> commandMicros() {
		Map<String, Long> micros = new TreeMap<>();
		for (String line : commands.info("commandstats").split("\r?\n")) {
			if (!line.startsWith("cmdstat_")) {
				continue;
			}
			String name = line.substring("cmdstat_".length(), line.indexOf(':'));
			int from = line.indexOf("usec=") + "usec=".length();
			int to = line.indexOf(',', from);
			if (!name.equals("info")) {
				micros.put(name, Long.parseLong(line.substring(from, to)));
			}
		}
		return micros;
	}

	/**
	 * Per-command differences between two {@link #commandCalls()} snapshots, without zeros.
	 */
	public static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
		Map<String, Long> delta = new TreeMap<>();
		after.forEach((name, calls) -> {
			long diff = calls - before.getOrDefault(name, 0L);
			if (diff != 0) {
				delta.put(name, diff);
			}
		});
		return delta;
	}

	/**
	 * The server's {@code used_memory}, in bytes.
	 */
	public long usedMemory() {
		for (String line : commands.info("memory").split("\r?\n")) {
			if (line.startsWith("used_memory:")) {
				return Long.parseLong(line.substring("used_memory:".length()).trim());
			}
		}
		throw new IllegalStateException("INFO memory has no used_memory");
	}

	/**
	 * The server's version, for the machine description.
	 */
	public String version() {
		for (String line : commands.info("server").split("\r?\n")) {
			if (line.startsWith("redis_version:")) {
				return line.substring("redis_version:".length()).trim();
			}
		}
		return "unknown";
	}

	/**
	 * The number of keys in the database.
	 */
	public long dbSize() {
		return commands.dbsize();
	}

	/**
	 * Empties the server between arms, so one arm's keys do not weigh on the next one's figures.
	 */
	public void flushAll() {
		commands.flushall();
	}

	@Override
	public void close() {
		connection.close();
		client.shutdown();
	}

}
