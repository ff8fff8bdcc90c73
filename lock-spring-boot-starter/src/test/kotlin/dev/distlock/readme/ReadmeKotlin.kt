package dev.distlock.readme

import dev.distlock.core.FailureMode
import dev.distlock.spring.DistributedLock
import dev.distlock.spring.LockContext
import java.util.concurrent.atomic.AtomicInteger
import kotlinx.coroutines.flow.Flow
import org.springframework.scheduling.annotation.Scheduled
import org.springframework.stereotype.Component
import org.springframework.stereotype.Service

interface Stock {
    suspend fun take(sku: String, quantity: Int, fencingToken: Long): Int
    fun movements(sku: String): Flow<String>
}

@Service // open through the kotlin-spring compiler plugin, so Spring can proxy it
class Inventory(private val stock: Stock) {

    // Held until the coroutine completes; the wait blocks no thread of the caller.
    @DistributedLock(key = "'sku:' + #sku", retries = 100, delay = 50)
    suspend fun reserve(sku: String, quantity: Int): Int =
        stock.take(sku, quantity, LockContext.current().fencingToken())

    // Held from the start of the collection to its end.
    @DistributedLock(key = "'sku:' + #sku")
    fun movements(sku: String): Flow<String> = stock.movements(sku)
}

@Component
class Digest {
    private val sent = AtomicInteger()

    // Attributes are plain values: a period string, a FailureMode, a Boolean.
    @Scheduled(fixedDelayString = "PT5M")
    @DistributedLock(key = "'digest'", period = "1h")
    fun send() {
        sent.incrementAndGet()
    }

    @DistributedLock(key = "'digest:resend'", onFailure = FailureMode.SKIP, autoRenew = true)
    fun resend() {
        sent.incrementAndGet()
    }

    fun sent(): Int = sent.get()
}
