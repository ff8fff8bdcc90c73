package dev.distlock.reliability.worker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A sample fenced resource shared by processes: a file that accepts a write only when its fencing token is at least
 * the highest token it has seen. An OS file lock makes the check-and-write atomic across JVMs, as a database's
 * conditional update would; this is the pattern docs/RELIABILITY.md recommends for correctness locks.
 */
public final class FencedFile {

	private final Path path;

	/**
	 * A fenced resource stored at the path.
	 */
	public FencedFile(Path path) {
		this.path = path;
	}

	/**
	 * Writes the value if the token is not below the highest seen.
	 * @return whether the write was accepted
	 */
	public boolean write(long token, String value) {
		try (FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
				StandardOpenOption.WRITE); FileLock lock = channel.lock()) {
			State current = read(channel);
			if (token < current.highestToken()) {
				return false;
			}
			byte[] bytes = (token + "\n" + value).getBytes(StandardCharsets.UTF_8);
			channel.truncate(0);
			channel.write(ByteBuffer.wrap(bytes), 0);
			channel.force(false);
			return true;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * The highest token accepted and the value written with it.
	 */
	public State read() {
		try (FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
				StandardOpenOption.WRITE); FileLock lock = channel.lock()) {
			return read(channel);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static State read(FileChannel channel) throws IOException {
		ByteBuffer buffer = ByteBuffer.allocate((int) channel.size());
		channel.read(buffer, 0);
		String text = new String(buffer.array(), StandardCharsets.UTF_8);
		if (text.isEmpty()) {
			return new State(Long.MIN_VALUE, "");
		}
		int newline = text.indexOf('\n');
		return new State(Long.parseLong(text.substring(0, newline)), text.substring(newline + 1));
	}

	/**
	 * The fenced resource's content.
	 * @param highestToken the highest token accepted so far
	 * @param value the value written with it
	 */
	public record State(long highestToken, String value) {
	}

	/**
	 * The file's path, so another process can open the same resource.
	 */
	@Override
	public String toString() {
		return path.toString();
	}

}
