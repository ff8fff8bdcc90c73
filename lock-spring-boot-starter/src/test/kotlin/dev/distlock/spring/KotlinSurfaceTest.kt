package dev.distlock.spring

import dev.distlock.core.FailureMode
import dev.distlock.core.LockHandle
import dev.distlock.core.LockOptions
import dev.distlock.core.LockTemplate
import dev.distlock.core.memory.InMemoryLockProvider
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import java.time.Duration
import java.util.Optional

/**
 * The API as a Kotlin caller sees it with JSpecify nullness enforced (`-Xjspecify-annotations=strict`): every line
 * here compiles only if the Java annotations say where null is allowed. The declared types below are the point; a
 * wrong annotation in the starter or in lock-core turns one of them into a compile error.
 */
class KotlinSurfaceTest {

	private val locks = LockTemplate(InMemoryLockProvider())

	@Test
	fun nullnessIsWhatTheJavaAnnotationsSay() {
		// A callback may return null, and execute may return null (a SKIP); tryExecute never does.
		val result: Int? = locks.execute("surface") { handle: LockHandle -> handle.fencingToken().toInt() }
		val skipped: Optional<String> = locks.tryExecute("surface", LockOptions.defaults()) { _ -> null }
		val handle: LockHandle = locks.acquire("surface", LockOptions.builder().timeout(Duration.ofSeconds(5)).build())
		val found: Optional<LockHandle> = LockContext.find()
		handle.release()
		// The starter's public constructors: the resolvers are nullable, the template supplier is not.
		val interceptor = DistributedLockInterceptor({ locks }, null, null)
		val postProcessor = DistributedLockBeanPostProcessor({ locks }, false)
		assertThat(result).isPositive()
		assertThat(skipped).isEmpty()
		assertThat(found).isEmpty()
		assertThat(interceptor).isNotNull()
		assertThat(postProcessor).isNotNull()
		assertThat(locks.isLocked("surface")).isFalse()
	}

	@Test
	fun annotationAttributesArePlainValues() {
		val annotation = Annotated::class.java.getMethod("run").getAnnotation(DistributedLock::class.java)
		val onFailure: FailureMode = annotation.onFailure
		val autoRenew: Boolean = annotation.autoRenew
		val period: String = Annotated::class.java.getMethod("hourly").getAnnotation(DistributedLock::class.java).period
		assertThat(onFailure).isEqualTo(FailureMode.SKIP)
		assertThat(autoRenew).isTrue()
		assertThat(period).isEqualTo("1h")
	}

	/** The annotation from Kotlin: plain values for onFailure and autoRenew, a duration string for period. */
	open class Annotated {

		@DistributedLock(key = "'surface'", onFailure = FailureMode.SKIP, autoRenew = true, timeoutString = "5s")
		open fun run() {
		}

		@DistributedLock(key = "'report'", period = "1h")
		open fun hourly() {
		}

	}

}
