package dev.distlock.readme

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration
import dev.distlock.core.LockTemplate
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.springframework.aop.support.AopUtils
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.test.context.runner.ApplicationContextRunner

/**
 * The README's Kotlin block ([ReadmeKotlin.kt], compared with the README by `ReadmeBlocksTest`) runs as printed: the
 * kotlin-spring plugin opens `@Service` classes, `#sku` names a suspend function's parameter, and both methods run
 * under the key's lock with its fencing token.
 */
class ReadmeKotlinTest {

	@Test
	fun theReadmeServiceRunsItsSuspendFunctionAndItsFlowUnderTheSkuLock() {
		ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration::class.java))
			.withPropertyValues("distributed-lock.provider=in-memory")
			.withBean(RecordingStock::class.java)
			.withBean(Inventory::class.java)
			.run { context ->
				val inventory = context.getBean(Inventory::class.java)
				val stock = context.getBean(RecordingStock::class.java)
				assertThat(AopUtils.isAopProxy(inventory)).isTrue()
				val left = runBlocking { inventory.reserve("A-1", 2) }
				val movements = runBlocking { inventory.movements("A-1").toList() }
				assertThat(left).isEqualTo(8)
				assertThat(stock.seen).containsExactly("take A-1 locked token>0", "movements A-1 locked")
				assertThat(movements).containsExactly("in 10", "out 2")
				assertThat(context.getBean(LockTemplate::class.java).isLocked("sku:A-1")).isFalse()
			}
	}

	@Test
	fun theReadmeDigestRunsOncePerPeriodAndTakesPlainAttributeValues() {
		ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration::class.java))
			.withPropertyValues("distributed-lock.provider=in-memory")
			.withBean(Digest::class.java)
			.run { context ->
				val digest = context.getBean(Digest::class.java)
				digest.send()
				digest.send() // the same hour of the store's clock: skipped
				digest.resend()
				assertThat(digest.sent()).isEqualTo(2)
			}
	}

	/** Records whether the lock was held when it was called. */
	class RecordingStock(private val locks: LockTemplate) : Stock {

		val seen = mutableListOf<String>()

		override suspend fun take(sku: String, quantity: Int, fencingToken: Long): Int {
			seen += "take $sku ${held(sku)} token>${if (fencingToken > 0) 0 else fencingToken}"
			return 10 - quantity
		}

		override fun movements(sku: String): Flow<String> = flow {
			seen += "movements $sku ${held(sku)}"
			emit("in 10")
			emit("out 2")
		}

		private fun held(sku: String) = if (locks.isLocked("sku:$sku")) "locked" else "free"

	}

}
