package dev.distlock.spring;

import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.core.InvalidLockKeyException;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockOperations;
import dev.distlock.core.LockTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Keys are stable values: equal arguments give equal keys on every JVM, values without a stable text are refused, a
 * key expression that throws or reaches for reflection fails typed, and in none of these cases does the body run.
 */
class KeySeamsTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
		.withPropertyValues("distributed-lock.provider=in-memory")
		.withUserConfiguration(Services.class);

	@Test
	void arraysRenderElementByElementSoEqualArraysTakeOneLock() {
		runner.run(context -> {
			RenderedKeys keys = context.getBean(RenderedKeys.class);
			assertThat(keys.whole(new long[] { 1, 2, 3 })).isEqualTo("[1, 2, 3]");
			assertThat(keys.whole(new String[] { "a", "b" })).isEqualTo("[a, b]");
			assertThat(keys.whole(new Object[] { 1, "x", new long[] { 2 }, null })).isEqualTo("[1, x, [2], null]");
			assertThat(keys.whole(new int[][] { { 1, 2 }, { 3 } })).isEqualTo("[[1, 2], [3]]");
			assertThat(keys.concatenated(new long[] { 1, 2, 3 })).isEqualTo("ids:[1, 2, 3]");
			// Two callers with equal (not identical) arrays contend for one lock.
			try (LockHandle held = context.getBean(LockTemplate.class).acquire("ids:[7, 8]")) {
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> keys.concatenated(new long[] { 7, 8 }));
			}
		});
	}

	@Test
	void listsKeepTheirOrderAndSetsAndMapsAreSortedWhateverTheirIterationOrder() {
		runner.run(context -> {
			RenderedKeys keys = context.getBean(RenderedKeys.class);
			assertThat(keys.whole(List.of(3, 1, 2))).isEqualTo("[3, 1, 2]");
			assertThat(keys.whole(new ArrayDeque<>(List.of("b", "a")))).isEqualTo("[b, a]");
			assertThat(keys.whole(List.of(new long[] { 1 }, new long[] { 2 }))).isEqualTo("[[1], [2]]");
			assertThat(keys.whole(new LinkedHashSet<>(List.of("c", "a", "b")))).isEqualTo("[a, b, c]");
			assertThat(keys.whole(new LinkedHashSet<>(List.of("b", "c", "a")))).isEqualTo("[a, b, c]");
			assertThat(keys.whole(Set.of("c", "a", "b"))).isEqualTo("[a, b, c]");
			Map<String, Object> ab = new LinkedHashMap<>();
			ab.put("a", 1);
			ab.put("b", new int[] { 2, 3 });
			Map<String, Object> ba = new LinkedHashMap<>();
			ba.put("b", new int[] { 2, 3 });
			ba.put("a", 1);
			assertThat(keys.whole(ab)).isEqualTo("{a=1, b=[2, 3]}").isEqualTo(keys.whole(ba));
			assertThat(keys.whole(new TreeMap<>(Map.of("x", Set.of(2, 1))))).isEqualTo("{x=[1, 2]}");
			assertThat(keys.concatenated(Set.of("q", "p"))).isEqualTo("ids:[p, q]");
			assertThat(keys.whole(Optional.of(new long[] { 4 }))).isEqualTo("Optional[[4]]");
		});
	}

	@Test
	void recordsKeepTheirOwnTextUnlessTheyHoldValuesThatNeedRendering() {
		runner.run(context -> {
			RenderedKeys keys = context.getBean(RenderedKeys.class);
			assertThat(keys.whole(new Named("o-1"))).isEqualTo("named o-1");
			assertThat(keys.whole(new Batch("b", new long[] { 1, 2 }, Set.of("y", "x"))))
				.isEqualTo("Batch[name=b, ids=[1, 2], tags=[x, y]]");
		});
	}

	@Test
	void valuesWithOnlyAnIdentityToStringAreRefusedNamingTheMethodAndTheType() {
		runner.run(context -> {
			RenderedKeys keys = context.getBean(RenderedKeys.class);
			for (Object value : new Object[] { new Opaque(), List.of("a", new Opaque()), Map.of("k", new Opaque()),
					new Object[] { new Opaque() } }) {
				assertThatExceptionOfType(LockKeyEvaluationException.class).isThrownBy(() -> keys.whole(value))
					.withMessageContaining("RenderedKeys.whole(Object)")
					.withMessageContaining(Opaque.class.getName())
					.withMessageContaining("identity toString()");
			}
			assertThatExceptionOfType(LockKeyEvaluationException.class)
				.isThrownBy(() -> keys.concatenated(new Opaque()))
				.withMessageContaining("RenderedKeys.concatenated(Object)")
				.withMessageContaining(Opaque.class.getName());
			assertThat(keys.bodies()).isEqualTo(0);
			assertThat(new LockOperations(context.getBean(LockTemplate.class)).heldLocks()).isEmpty();
		});
	}

	@Test
	void aKeyExpressionThatThrowsFailsTypedNamingTheMethodAndTheBodyDoesNotRun() {
		runner.run(context -> {
			RenderedKeys keys = context.getBean(RenderedKeys.class);
			assertThatExceptionOfType(LockKeyEvaluationException.class).isThrownBy(() -> keys.cut("short"))
				.withMessageContaining("RenderedKeys.cut(String)")
				.withMessageContaining("#s.substring(100)")
				.withMessageContaining("StringIndexOutOfBoundsException")
				.withCauseInstanceOf(StringIndexOutOfBoundsException.class);
			assertThat(keys.bodies()).isZero();
		});
	}

	@Test
	void aKeyCuttingAnEmojiInTwoIsRefusedAsMalformed() {
		runner.run(context -> {
			RenderedKeys keys = context.getBean(RenderedKeys.class);
			assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> keys.firstThree("ab\uD83D\uDE00"))
				.withMessageContaining("lone surrogate")
				.withMessageContaining("RenderedKeys.firstThree(String)");
			assertThat(keys.firstThree("a\uD83D\uDE00")).isEqualTo("s:a\uD83D\uDE00");
			assertThat(keys.bodies()).isEqualTo(1);
		});
	}

	@Test
	void aNullParameterConcatenatedIntoAKeyIsRefusedNamingTheMethod() {
		runner.run(context -> {
			RenderedKeys keys = context.getBean(RenderedKeys.class);
			assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> keys.user(null))
				.withMessageContaining("RenderedKeys.user(String)")
				.withMessageContaining("#id is null");
			assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> keys.userByIndex(null))
				.withMessageContaining("#p0 is null");
			// A whole key that is null keeps its own message.
			assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> keys.whole(null))
				.withMessageContaining("must not be null");
			assertThat(keys.bodies()).isZero();
			// Where the expression handles null itself, null is fine.
			assertThat(keys.userOrAnonymous(null)).isEqualTo("anonymous");
			assertThat(keys.userOrAnonymous("7")).isEqualTo("user:7");
			assertThat(keys.userOrNone(null)).isEqualTo("user:none");
			assertThat(keys.user("7")).isEqualTo("user:7");
		});
	}

	@Test
	void keyExpressionsMayNotInvokeReflection() {
		runner.run(context -> assertReflectionRefused(context.getBean(RenderedKeys.class)));
	}

	@Test
	void keyExpressionsMayNotInvokeReflectionWhenBeanReferencesAreOn() {
		runner.withPropertyValues("distributed-lock.spel.bean-references=true")
			.run(context -> assertReflectionRefused(context.getBean(RenderedKeys.class)));
	}

	@Test
	void callingAMethodOnRootMethodFailsStartupNamingTheMethod() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
			.withPropertyValues("distributed-lock.provider=in-memory")
			.withBean(InvokesItself.class)
			.run(context -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).isInstanceOf(LockAnnotationException.class)
					.hasMessageContaining("InvokesItself.run(String)")
					.hasMessageContaining("may not invoke reflection");
			});
	}

	private static void assertReflectionRefused(RenderedKeys keys) {
		// Each of these would run the body unlocked, or reach any class, while the key is being built.
		assertThatExceptionOfType(LockKeyEvaluationException.class).isThrownBy(() -> keys.invokesViaIndexer("x"))
			.withMessageContaining("RenderedKeys.invokesViaIndexer(String)")
			.withMessageContaining("invoke()")
			.withMessageContaining("java.lang.reflect.Method");
		assertThatExceptionOfType(LockKeyEvaluationException.class).isThrownBy(() -> keys.listsMethods("x"))
			.withMessageContaining("RenderedKeys.listsMethods(String)");
		assertThatExceptionOfType(LockKeyEvaluationException.class).isThrownBy(() -> keys.readsDeclaringClass("x"))
			.withMessageContaining("declaringClass");
		assertThat(keys.bodies()).isZero();
		assertThat(keys.methodName("x")).isEqualTo("methodName:x");
	}

	/** A type with Object's identity toString(). */
	static final class Opaque {

	}

	/** A record with its own text. */
	record Named(String id) {

		@Override
		public String toString() {
			return "named " + id;
		}

	}

	/** A record holding values whose toString() is not stable. */
	record Batch(String name, long[] ids, Set<String> tags) {
	}

	/** Methods returning the key they were locked under. */
	static class RenderedKeys {

		private final AtomicInteger bodies = new AtomicInteger();

		/** How many bodies ran; read through the proxy. */
		public int bodies() {
			return bodies.get();
		}

		@DistributedLock(key = "#value")
		public String whole(@Nullable Object value) {
			return ran();
		}

		@DistributedLock(key = "'ids:' + #value")
		public String concatenated(Object value) {
			return ran();
		}

		@DistributedLock(key = "#s.substring(100)")
		public String cut(String s) {
			return ran();
		}

		@DistributedLock(key = "'s:' + #s.substring(0, 3)")
		public String firstThree(String s) {
			return ran();
		}

		@DistributedLock(key = "'user:' + #id")
		public String user(@Nullable String id) {
			return ran();
		}

		@DistributedLock(key = "'user:' + #p0")
		public String userByIndex(@Nullable String id) {
			return ran();
		}

		@DistributedLock(key = "#id == null ? 'anonymous' : 'user:' + #id")
		public String userOrAnonymous(@Nullable String id) {
			return LockContext.current().key();
		}

		@DistributedLock(key = "'user:' + (#id ?: 'none')")
		public String userOrNone(@Nullable String id) {
			return LockContext.current().key();
		}

		@DistributedLock(key = "#root['method'].invoke(#root.target, #root.args)")
		public String invokesViaIndexer(String id) {
			return ran();
		}

		@DistributedLock(key = "'m:' + #root.target.getClass().getMethods().length")
		public String listsMethods(String id) {
			return ran();
		}

		@DistributedLock(key = "'m:' + #root.method.declaringClass.methods.length")
		public String readsDeclaringClass(String id) {
			return ran();
		}

		@DistributedLock(key = "#root.method.name + ':' + #id")
		public String methodName(String id) {
			return LockContext.current().key();
		}

		private String ran() {
			bodies.incrementAndGet();
			return LockContext.current().key();
		}

	}

	/** Calls into reflection in a way visible before any call. */
	static class InvokesItself {

		@DistributedLock(key = "#root.method.invoke(#root.target, #root.args)")
		public String run(String id) {
			return id;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		RenderedKeys renderedKeys() {
			return new RenderedKeys();
		}

	}

}
