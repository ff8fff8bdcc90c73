package dev.distlock.reliability;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import dev.distlock.reliability.worker.WorkerApp;

/**
 * One worker JVM ({@link WorkerApp}) launched on this JVM's classpath, with its stdout read line by line. Signals go
 * through {@code kill}; {@link #close()} always resumes a stopped process before killing it.
 */
final class WorkerProcess implements AutoCloseable {

	private final String name;

	private final Process process;

	private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

	private final List<String> transcript = new ArrayList<>();

	private final Writer stdin;

	private volatile boolean stopped;

	private WorkerProcess(String name, Process process, Path outFile) {
		this.name = name;
		this.process = process;
		this.stdin = new java.io.OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
		Thread pump = new Thread(() -> pump(outFile), "pump-" + name);
		pump.setDaemon(true);
		pump.start();
	}

	/**
	 * Starts a worker with the given Spring arguments ({@code --name=value}); its output also goes to
	 * {@code <reportDir>/<name>.out}.
	 */
	static WorkerProcess start(String name, List<String> args) {
		List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				// Small and quick to start: several of these share 2 cores with the test JVM and the stores.
				"-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k",
				"-cp", System.getProperty("java.class.path"), WorkerApp.class.getName()));
		command.addAll(args);
		command.add("--spring.main.banner-mode=off");
		command.add("--logging.level.root=WARN");
		command.add("--logging.level.dev.distlock=WARN");
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			return new WorkerProcess(name, process, Reports.dir().resolve(name + ".out"));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Waits for the next line starting with the prefix, skipping others.
	 * @throws AssertionError naming the worker and its output so far if none comes in time or it exits
	 */
	String awaitLine(String prefix, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		try {
			while (true) {
				long left = deadline - System.nanoTime();
				String line = left > 0 ? lines.poll(Math.min(left, 200_000_000L), TimeUnit.NANOSECONDS) : null;
				if (line != null && line.startsWith(prefix)) {
					return line;
				}
				if (line == null && (left <= 0 || (!process.isAlive() && lines.isEmpty()))) {
					throw new AssertionError("Worker " + name + " printed no '" + prefix + "' within " + timeout
							+ " (alive=" + process.isAlive() + "); output:\n" + String.join("\n", transcript()));
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new AssertionError("Interrupted waiting for " + name, ex);
		}
	}

	/**
	 * Sends one line to the worker's stdin.
	 */
	void send(String line) {
		try {
			stdin.write(line + "\n");
			stdin.flush();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Waits for the worker to exit and returns its exit code.
	 */
	int awaitExit(Duration timeout) {
		try {
			if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
				throw new AssertionError("Worker " + name + " did not exit within " + timeout + "; output:\n"
						+ String.join("\n", transcript()));
			}
			return process.exitValue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new AssertionError("Interrupted waiting for " + name, ex);
		}
	}

	/** kill -9: the process gets no chance to release anything. */
	void kill9() {
		signal("KILL");
		awaitExit(Duration.ofSeconds(10));
	}

	/** SIGSTOP: the process freezes, threads and timers included, as in a long GC pause. */
	void pause() {
		signal("STOP");
		stopped = true;
	}

	/** SIGCONT. */
	void resume() {
		signal("CONT");
		stopped = false;
	}

	long pid() {
		return process.pid();
	}

	synchronized List<String> transcript() {
		return List.copyOf(transcript);
	}

	private void signal(String signal) {
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
			if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void pump(Path outFile) {
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
				Writer out = Files.newBufferedWriter(outFile, StandardOpenOption.CREATE,
						StandardOpenOption.TRUNCATE_EXISTING)) {
			String line;
			while ((line = reader.readLine()) != null) {
				synchronized (this) {
					if (transcript.size() < 2000) {
						transcript.add(line);
					}
				}
				out.write(line + "\n");
				out.flush();
				lines.add(line);
			}
		}
		catch (IOException ex) {
			// The process went away; what was read stays in the transcript.
		}
	}

	/**
	 * Resumes the process if stopped, then kills it and waits, so no worker outlives its test.
	 */
	@Override
	public void close() {
		if (stopped) {
			resume();
		}
		process.destroyForcibly();
		try {
			process.waitFor(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Closes every worker, ignoring nulls.
	 */
	static void closeAll(List<@Nullable WorkerProcess> workers) {
		for (WorkerProcess worker : workers) {
			if (worker != null) {
				worker.close();
			}
		}
	}

}
