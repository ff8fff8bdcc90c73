package dev.distlock.reliability.worker;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;

import dev.distlock.core.LockHandle;

/**
 * The worker JVM the reliability tests launch with {@code java -cp <test classpath>}. It locks only through
 * {@code @DistributedLock} and the starter's auto-configuration, and reports on stdout, one line per event, which the
 * test reads. Modes ({@code --worker.mode}): {@code fuzz} (prints READY, then waits for GO on stdin), {@code hold},
 * {@code acquire} and {@code stale}.
 */
@SpringBootApplication
public class WorkerApp {

	/**
	 * Runs one mode and exits 0 on success.
	 */
	public static void main(String[] args) throws Exception {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(WorkerApp.class)
			.web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.run(args);
		Environment env = context.getEnvironment();
		LockedOperations ops = context.getBean(LockedOperations.class);
		String key = env.getRequiredProperty("worker.key");
		int exit = switch (env.getRequiredProperty("worker.mode")) {
			case "fuzz" -> fuzz(ops, key, env);
			case "hold" -> hold(ops, key);
			case "acquire" -> acquire(ops, key);
			case "stale" -> stale(ops, key, new FencedFile(Path.of(env.getRequiredProperty("worker.fenced"))));
			default -> throw new IllegalArgumentException("Unknown worker.mode");
		};
		context.close();
		System.exit(exit);
	}

	private static int fuzz(LockedOperations ops, String key, Environment env) throws InterruptedException {
		int threads = env.getRequiredProperty("worker.threads", Integer.class);
		int iterations = env.getRequiredProperty("worker.iterations", Integer.class);
		UnguardedCounter counter = new UnguardedCounter(Path.of(env.getRequiredProperty("worker.counter")));
		IntervalLog log = new IntervalLog(env.getRequiredProperty("worker.id", Integer.class));
		AtomicInteger errors = new AtomicInteger();
		List<Thread> running = new ArrayList<>();
		// A start barrier: JVMs start seconds apart on a busy machine, and a worker that ran alone proves no contention.
		say("READY");
		awaitGo();
		for (int t = 0; t < threads; t++) {
			Thread thread = new Thread(() -> {
				for (int i = 0; i < iterations; i++) {
					try {
						ops.increment(key, counter, log);
					}
					catch (RuntimeException ex) {
						errors.incrementAndGet();
						say("ERROR " + ex);
					}
				}
			}, "fuzz-" + t);
			thread.start();
			running.add(thread);
		}
		for (Thread thread : running) {
			thread.join();
		}
		log.writeTo(Path.of(env.getRequiredProperty("worker.log")));
		say("DONE errors=" + errors.get());
		return errors.get() == 0 ? 0 : 1;
	}

	// Holds until killed: the kill -9 scenario.
	private static int hold(LockedOperations ops, String key) {
		ops.hold(key, handle -> {
			say("ACQUIRED " + handle.fencingToken() + " " + System.nanoTime());
			sleep(Duration.ofMinutes(5));
		});
		return 1;
	}

	// Waits for the key, reports when it got it, and leaves: the process that takes over.
	private static int acquire(LockedOperations ops, String key) {
		say("READY");
		ops.hold(key, handle -> say("ACQUIRED " + handle.fencingToken() + " " + System.nanoTime()));
		return 0;
	}

	// Holds, gets frozen by SIGSTOP past its lease, and on "GO" tries what a paused holder would do on waking.
	private static int stale(LockedOperations ops, String key, FencedFile fenced) {
		Consumer<LockHandle> body = handle -> {
			handle.onLost(() -> say("LOST " + System.nanoTime()));
			say("ACQUIRED " + handle.fencingToken() + " " + System.nanoTime());
			awaitGo();
			say("WRITE " + (fenced.write(handle.fencingToken(), "stale") ? "accepted" : "rejected"));
			say("HELD " + handle.isHeld());
			say("EXTEND " + outcome(() -> handle.extend(Duration.ofSeconds(5))));
			say("RELEASE " + outcome(handle::release));
		};
		say("EXIT " + outcome(() -> ops.hold(key, body)));
		return 0;
	}

	private static String outcome(Runnable action) {
		try {
			action.run();
			return "ok";
		}
		catch (RuntimeException ex) {
			return ex.getClass().getName();
		}
	}

	// Blocks until the test writes GO on stdin.
	private static void awaitGo() {
		try {
			BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
			String line;
			while ((line = in.readLine()) != null && !line.equals("GO")) {
				// Only GO moves on.
			}
		}
		catch (java.io.IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	// stdout is the channel to the test: one line per event, flushed at once.
	static synchronized void say(String line) {
		System.out.println(line);
		System.out.flush();
	}

}
