package dev.distlock.readme

import dev.distlock.spring.DistributedLock
import dev.distlock.spring.LockContext
import kotlinx.coroutines.flow.Flow
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
