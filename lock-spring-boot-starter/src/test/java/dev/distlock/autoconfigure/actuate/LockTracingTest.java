package dev.distlock.autoconfigure.actuate;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.exporter.FinishedSpan;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.core.FailureMode;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.memory.InMemoryLockProvider;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.spring.DistributedLock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The spans a tracer records for locked work: request, then acquire and hold as its children, then the body's own
 * spans under the hold.
 */
class LockTracingTest {

	private static final LockOptions ONE_TRY = LockOptions.builder().timeout(Duration.ofSeconds(10)).build();

	private final SimpleTracer tracer = new SimpleTracer();

	private final ObservationRegistry observations = traced(tracer);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class,
				DistributedLockActuatorAutoConfiguration.class))
		.withPropertyValues("distributed-lock.provider=in-memory", "distributed-lock.key-prefix=app:")
		.withBean(ObservationRegistry.class, () -> observations)
		.withBean(Tickets.class, () -> new Tickets(observations));

	@Test
	void anAnnotatedMethodTracesRequestThenAcquireAndHoldThenTheBodysSpanUnderTheHold() {
		runner.run(context -> {
			Tickets tickets = context.getBean(Tickets.class);
			Observation.createNotStarted("request", observations).observe(() -> tickets.book("t-9"));
			FinishedSpan request = span("request");
			FinishedSpan acquire = span("acquire Tickets.book");
			FinishedSpan hold = span("lock Tickets.book");
			FinishedSpan body = span("book seat");
			assertThat(acquire.getParentId()).isEqualTo(request.getSpanId());
			assertThat(hold.getParentId()).isEqualTo(request.getSpanId());
			assertThat(body.getParentId()).isEqualTo(hold.getSpanId());
			assertThat(List.of(acquire.getTraceId(), hold.getTraceId(), body.getTraceId()))
				.containsOnly(request.getTraceId());
			assertThat(acquire.getTags()).containsAllEntriesOf(Map.of("provider", "in-memory", "mode", "exclusive",
					"method", "Tickets.book", "key.prefix", "none", "outcome", "acquired", "distlock.key", "app:t-9",
					"distlock.attempts", "1"));
			assertThat(hold.getTags()).containsAllEntriesOf(Map.of("method", "Tickets.book", "key.prefix", "none",
					"distlock.key", "app:t-9"));
			// The body runs inside the hold.
			assertThat(body.getStartTimestamp()).isAfterOrEqualTo(hold.getStartTimestamp());
			assertThat(body.getEndTimestamp()).isBeforeOrEqualTo(hold.getEndTimestamp());
			assertThat(tracer.currentSpan()).isNull();
		});
	}

	@Test
	void aTemplateCallbackRunsUnderTheHoldSpan() {
		runner.run(context -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			Observation.createNotStarted("request", observations)
				.observe(() -> template.execute("orders:1", ONE_TRY,
						handle -> Observation.createNotStarted("write order", observations).observe(() -> "done")));
			FinishedSpan request = span("request");
			FinishedSpan acquire = span("acquire orders");
			FinishedSpan hold = span("lock orders");
			assertThat(acquire.getParentId()).isEqualTo(request.getSpanId());
			assertThat(hold.getParentId()).isEqualTo(request.getSpanId());
			assertThat(span("write order").getParentId()).isEqualTo(hold.getSpanId());
			assertThat(acquire.getTags()).containsEntry("key.prefix", "orders").containsEntry("method", "none");
		});
	}

	@Test
	void aFailedAcquisitionIsAnAcquireSpanWithItsOutcomeAndNoHoldSpan() {
		runner.run(context -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			Tickets tickets = context.getBean(Tickets.class);
			try (LockHandle held = template.acquire("t-1", ONE_TRY)) {
				Observation.createNotStarted("request", observations).observe(() -> {
					assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> tickets.book("t-1"));
					assertThat(tickets.bookIfFree("t-1")).isNull();
				});
			}
			FinishedSpan request = span("request");
			List<FinishedSpan> acquires = tracer.getSpans()
				.stream()
				.filter(span -> span.getName().startsWith("acquire Tickets."))
				.map(FinishedSpan.class::cast)
				.toList();
			assertThat(acquires).extracting(FinishedSpan::getParentId).containsOnly(request.getSpanId());
			assertThat(acquires).extracting(span -> span.getTags().get("outcome"))
				.containsExactlyInAnyOrder("timed-out", "skipped");
			assertThat(tracer.getSpans()).extracting(FinishedSpan::getName)
				.noneMatch(name -> name.startsWith("lock Tickets."))
				.noneMatch(name -> name.equals("book seat"));
		});
	}

	@Test
	void storeCallsMadeWhileWaitingNestUnderTheAcquireSpan() {
		InMemoryLockProvider memory = new InMemoryLockProvider();
		LockProvider observedStore = new LockProvider() {
			@Override
			public Optional<Lease> tryAcquire(LockRequest request) {
				return Observation.createNotStarted("store call", observations).observe(() -> memory.tryAcquire(request));
			}

			@Override
			public boolean isLocked(String key) {
				return memory.isLocked(key);
			}

			@Override
			public String name() {
				return "observed";
			}
		};
		runner.withBean(LockProvider.class, () -> observedStore).run(context -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			Observation.createNotStarted("request", observations)
				.observe(() -> template.execute("orders:1", ONE_TRY, handle -> null));
			FinishedSpan acquire = span("acquire orders");
			assertThat(span("store call").getParentId()).isEqualTo(acquire.getSpanId());
			assertThat(span("lock orders").getParentId()).isEqualTo(span("request").getSpanId());
		});
	}

	@Test
	void theSynchronousPartOfAFutureMethodRunsUnderTheHoldSpan() {
		runner.run(context -> {
			Tickets tickets = context.getBean(Tickets.class);
			Observation.createNotStarted("request", observations)
				.observe(() -> assertThat(tickets.bookLater("t-3").join()).isEqualTo("t-3"));
			assertThat(span("book seat").getParentId()).isEqualTo(span("lock Tickets.bookLater").getSpanId());
			assertThat(span("lock Tickets.bookLater").getParentId()).isEqualTo(span("request").getSpanId());
		});
	}

	private FinishedSpan span(String name) {
		List<FinishedSpan> named = tracer.getSpans()
			.stream()
			.filter(span -> span.getName().equals(name))
			.map(FinishedSpan.class::cast)
			.toList();
		assertThat(named).as("spans named '%s' among %s", name,
				tracer.getSpans().stream().map(FinishedSpan::getName).toList()).hasSize(1);
		return named.get(0);
	}

	private static ObservationRegistry traced(SimpleTracer tracer) {
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(new DefaultTracingObservationHandler(tracer));
		return registry;
	}

	/** A locked method whose body opens a span of its own. */
	static class Tickets {

		private final ObservationRegistry observations;

		Tickets(ObservationRegistry observations) {
			this.observations = observations;
		}

		@DistributedLock(key = "#id")
		public void book(String id) {
			Observation.createNotStarted("book seat", observations).observe(() -> {
			});
		}

		@DistributedLock(key = "#id")
		public CompletableFuture<String> bookLater(String id) {
			Observation.createNotStarted("book seat", observations).observe(() -> {
			});
			return CompletableFuture.completedFuture(id);
		}

		@DistributedLock(key = "#id", onFailure = FailureMode.SKIP)
		public @Nullable String bookIfFree(String id) {
			book(id);
			return id;
		}

	}

}
