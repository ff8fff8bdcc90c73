package dev.distlock.mongo.testsupport;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

/**
 * A TCP proxy in front of a MongoDB server that reads the wire protocol's message frames, for the faults a test
 * cannot cause on the server itself: {@link #pause()} holds every message in both directions (a server stopped
 * with SIGSTOP, or a network that went silent) until {@link #resume()}, and {@link #dropReplyToNext(String)} lets
 * the next request of one command reach the server but swallows its reply (the server ran it; the client never
 * hears), and {@link #delayNext(String, Duration)} holds the next request of one command before it reaches the server
 * (a request that lands after the client gave up on it). Loopback only; the threads are daemons and end with {@link #close()}.
 */
public final class TcpProxy implements AutoCloseable {

	private static final int OP_MSG = 2013;

	private final InetSocketAddress target;

	private final ServerSocket listener;

	private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

	private final Object pauseLock = new Object();

	private boolean paused;

	private final AtomicReference<@Nullable String> dropReplyTo = new AtomicReference<>();

	private final AtomicInteger droppedReplies = new AtomicInteger();

	private final AtomicReference<@Nullable String> delay = new AtomicReference<>();

	private volatile Duration delayBy = Duration.ZERO;

	private final AtomicInteger delivered = new AtomicInteger();

	private volatile boolean closed;

	private TcpProxy(InetSocketAddress target) throws IOException {
		this.target = target;
		this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		daemon("distlock-tcp-proxy-accept", this::acceptLoop).start();
	}

	/**
	 * Starts a proxy on a free loopback port forwarding to {@code host:port}.
	 */
	public static TcpProxy start(String host, int port) {
		try {
			return new TcpProxy(new InetSocketAddress(host, port));
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot start the TCP proxy", ex);
		}
	}

	/**
	 * A connection string to the proxy, with a direct connection so the driver never goes around it.
	 */
	public String connectionString() {
		return "mongodb://127.0.0.1:" + listener.getLocalPort() + "/?directConnection=true";
	}

	/**
	 * Holds every message, in both directions, from now until {@link #resume()}.
	 */
	public void pause() {
		synchronized (pauseLock) {
			paused = true;
		}
	}

	/**
	 * Forwards again, held messages first.
	 */
	public void resume() {
		synchronized (pauseLock) {
			paused = false;
			pauseLock.notifyAll();
		}
	}

	/**
	 * Lets the next request whose command is {@code command} (such as {@code findAndModify}) reach the server, and
	 * drops the server's reply to it. Once only.
	 */
	public void dropReplyToNext(String command) {
		dropReplyTo.set(command);
	}

	/**
	 * Holds the next request whose command is {@code command} for {@code by} before it reaches the server, whatever
	 * the client does meanwhile (it may time out and close its connection: the request still arrives). Once only.
	 */
	public void delayNext(String command, Duration by) {
		this.delayBy = by;
		delay.set(command);
	}

	/**
	 * How many requests {@link #delayNext(String, Duration)} has held and then delivered to the server.
	 */
	public int delayedDelivered() {
		return delivered.get();
	}

	/**
	 * How many replies {@link #dropReplyToNext(String)} has dropped.
	 */
	public int droppedReplies() {
		return droppedReplies.get();
	}

	/**
	 * Stops accepting, closes every connection and releases paused threads.
	 */
	@Override
	public void close() {
		closed = true;
		resume();
		closeQuietly(listener);
		for (Socket socket : sockets) {
			closeQuietly(socket);
		}
	}

	private void acceptLoop() {
		while (!closed) {
			try {
				Socket client = listener.accept();
				Socket server;
				try {
					server = new Socket(target.getAddress(), target.getPort());
				}
				catch (IOException ex) {
					closeQuietly(client); // as a refused connection
					continue;
				}
				sockets.add(client);
				sockets.add(server);
				Set<Integer> swallow = ConcurrentHashMap.newKeySet();
				daemon("distlock-tcp-proxy-up", () -> pump(client, server, swallow, true)).start();
				daemon("distlock-tcp-proxy-down", () -> pump(server, client, swallow, false)).start();
			}
			catch (IOException ex) {
				if (!closed) {
					continue;
				}
				return;
			}
		}
	}

	/**
	 * Copies whole messages from one socket to the other. Upstream, marks the request to swallow the reply of;
	 * downstream, drops that reply.
	 */
	private void pump(Socket from, Socket to, Set<Integer> swallow, boolean upstream) {
		try {
			DataInputStream in = new DataInputStream(from.getInputStream());
			OutputStream out = to.getOutputStream();
			while (!closed) {
				byte[] frame = readFrame(in);
				ByteBuffer header = ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN);
				if (upstream) {
					String command = dropReplyTo.get();
					if (command != null && command.equals(commandName(frame))
							&& dropReplyTo.compareAndSet(command, null)) {
						swallow.add(header.getInt(4));
					}
				}
				boolean delayed = false;
				if (upstream) {
					String command = delay.get();
					if (command != null && command.equals(commandName(frame)) && delay.compareAndSet(command, null)) {
						Thread.sleep(delayBy.toMillis());
						delayed = true;
					}
				}
				awaitNotPaused();
				if (delayed) {
					out.write(frame);
					out.flush();
					delivered.incrementAndGet();
					continue;
				}
				if (!upstream && swallow.remove(header.getInt(8))) {
					droppedReplies.incrementAndGet();
					continue;
				}
				out.write(frame);
				out.flush();
			}
		}
		catch (IOException | InterruptedException ex) {
			// A side closed: close the other, as a real network peer would see it.
		}
		finally {
			closeQuietly(from);
			closeQuietly(to);
		}
	}

	private void awaitNotPaused() throws InterruptedException {
		synchronized (pauseLock) {
			while (paused && !closed) {
				pauseLock.wait();
			}
		}
	}

	private static byte[] readFrame(DataInputStream in) throws IOException {
		byte[] length = new byte[4];
		in.readFully(length);
		int size = ByteBuffer.wrap(length).order(ByteOrder.LITTLE_ENDIAN).getInt();
		if (size < 16) {
			throw new EOFException("bad message length " + size);
		}
		byte[] frame = new byte[size];
		System.arraycopy(length, 0, frame, 0, 4);
		in.readFully(frame, 4, size - 4);
		return frame;
	}

	/**
	 * The command of an OP_MSG request: the first field name of its body section (kind 0), or null.
	 */
	private static @Nullable String commandName(byte[] frame) {
		ByteBuffer buffer = ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN);
		if (buffer.getInt(12) != OP_MSG || frame.length < 27 || frame[20] != 0) {
			return null;
		}
		int start = 26; // 16 header + 4 flags + 1 section kind + 4 document length + 1 element type
		int end = start;
		while (end < frame.length && frame[end] != 0) {
			end++;
		}
		return new String(frame, start, end - start, StandardCharsets.UTF_8);
	}

	private static Thread daemon(String name, Runnable body) {
		Thread thread = new Thread(body, name);
		thread.setDaemon(true);
		return thread;
	}

	private static void closeQuietly(AutoCloseable closeable) {
		try {
			closeable.close();
		}
		catch (Exception ignored) {
			// closing is best effort
		}
	}

}
