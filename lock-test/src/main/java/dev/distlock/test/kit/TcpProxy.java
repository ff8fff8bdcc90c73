package dev.distlock.test.kit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

/**
 * A loopback TCP proxy for tests: forwards every client connection to one target port and can be told to cut all
 * connections, to let a command through but drop its reply and then cut (the server ran it, the client never heard
 * back, so a reconnecting client may replay it), or to stall forwarding for a while (a paused store). Plain sockets,
 * two daemon threads per connection.
 */
public final class TcpProxy implements AutoCloseable {

	private static final AtomicInteger ids = new AtomicInteger();

	private final int targetPort;

	private final ServerSocket listener;

	private final Set<Pair> pairs = ConcurrentHashMap.newKeySet();

	private final AtomicReference<@Nullable Drop> armed = new AtomicReference<>();

	private final AtomicInteger accepted = new AtomicInteger();

	private volatile long stalledUntilNanos;

	private volatile boolean stalled;

	private volatile boolean closed;

	private TcpProxy(int targetPort) {
		this.targetPort = targetPort;
		try {
			this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Thread acceptor = new Thread(this::acceptLoop, "tcp-proxy-" + ids.incrementAndGet() + "-accept");
		acceptor.setDaemon(true);
		acceptor.start();
	}

	/**
	 * Starts a proxy on a free loopback port forwarding to the target port on loopback.
	 */
	public static TcpProxy start(int targetPort) {
		return new TcpProxy(targetPort);
	}

	/**
	 * The port clients connect to.
	 */
	public int port() {
		return listener.getLocalPort();
	}

	/**
	 * How many client connections the proxy has accepted so far (reconnects included).
	 */
	public int acceptedConnections() {
		return accepted.get();
	}

	/**
	 * Cuts every open connection now, both ways; new connections are still accepted.
	 */
	public void cutAll() {
		for (Pair pair : pairs) {
			pair.close();
		}
	}

	/**
	 * Arms a one-shot fault: the next client-to-server bytes containing {@code marker} (UTF-8) are forwarded, so the
	 * server runs the command, but every byte the server sends back on that connection afterwards is dropped, and the
	 * connection is cut as soon as the first reply bytes arrive. Other connections are untouched.
	 * @return a latch counted down once the reply was dropped and the connection cut
	 */
	public CountDownLatch dropNextReplyAndCut(String marker) {
		Drop drop = new Drop(marker.getBytes(StandardCharsets.UTF_8));
		armed.set(drop);
		return drop.cut;
	}

	/**
	 * Disarms a fault armed by {@link #dropNextReplyAndCut(String)} that has not fired.
	 */
	public void disarm() {
		armed.set(null);
	}

	/**
	 * Stops forwarding in both directions for the duration, from now; bytes wait in the proxy and the socket buffers
	 * and flow on afterwards, as with a paused server. Returns at once.
	 */
	public void stall(Duration duration) {
		stalledUntilNanos = System.nanoTime() + duration.toNanos();
		stalled = true;
	}

	/**
	 * Ends a stall early.
	 */
	public void resume() {
		stalled = false;
	}

	/**
	 * Whether a stall is in force now.
	 */
	public boolean isStalled() {
		return stalled && System.nanoTime() - stalledUntilNanos < 0;
	}

	/**
	 * Stops accepting and cuts every connection.
	 */
	@Override
	public void close() {
		closed = true;
		try {
			listener.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
		cutAll();
	}

	private void acceptLoop() {
		while (!closed) {
			Socket client;
			try {
				client = listener.accept();
			}
			catch (IOException ex) {
				return; // closed
			}
			accepted.incrementAndGet();
			Socket server = new Socket();
			try {
				client.setTcpNoDelay(true);
				server.setTcpNoDelay(true);
				server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 5_000);
			}
			catch (IOException ex) {
				closeQuietly(client);
				closeQuietly(server);
				continue;
			}
			Pair pair = new Pair(client, server);
			pairs.add(pair);
			pair.start();
		}
	}

	private void awaitUnstalled() throws InterruptedException {
		while (isStalled()) {
			Thread.sleep(5);
		}
	}

	private static boolean contains(byte[] data, int length, byte[] marker) {
		outer: for (int i = 0; i + marker.length <= length; i++) {
			for (int j = 0; j < marker.length; j++) {
				if (data[i + j] != marker[j]) {
					continue outer;
				}
			}
			return true;
		}
		return false;
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// already gone
		}
	}

	/** A one-shot "drop the reply and cut" fault. */
	private static final class Drop {

		final byte[] marker;

		final CountDownLatch cut = new CountDownLatch(1);

		Drop(byte[] marker) {
			this.marker = marker;
		}

	}

	/** One proxied connection: a client socket, its server socket and the two pumps between them. */
	private final class Pair {

		private final Socket client;

		private final Socket server;

		private volatile @Nullable Drop dropping;

		Pair(Socket client, Socket server) {
			this.client = client;
			this.server = server;
		}

		void start() {
			int id = ids.incrementAndGet();
			Thread up = new Thread(() -> pump(client, server, true), "tcp-proxy-" + id + "-up");
			Thread down = new Thread(() -> pump(server, client, false), "tcp-proxy-" + id + "-down");
			up.setDaemon(true);
			down.setDaemon(true);
			up.start();
			down.start();
		}

		private void pump(Socket from, Socket to, boolean clientToServer) {
			byte[] buffer = new byte[64 * 1024];
			try {
				InputStream in = from.getInputStream();
				OutputStream out = to.getOutputStream();
				while (true) {
					int read = in.read(buffer);
					if (read < 0) {
						break;
					}
					awaitUnstalled();
					if (clientToServer) {
						Drop drop = armed.get();
						if (drop != null && contains(buffer, read, drop.marker) && armed.compareAndSet(drop, null)) {
							dropping = drop; // set before forwarding, so the reply cannot slip through
						}
					}
					else {
						Drop drop = dropping;
						if (drop != null) {
							close(); // the server answered: drop the answer and cut
							drop.cut.countDown();
							return;
						}
					}
					out.write(buffer, 0, read);
					out.flush();
				}
			}
			catch (IOException | InterruptedException ex) {
				// the pair is being cut or a peer went away
			}
			close();
		}

		void close() {
			pairs.remove(this);
			closeQuietly(client);
			closeQuietly(server);
		}

	}

}
