package dev.distlock.samples;

import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.stereotype.Service;

import dev.distlock.spring.DistributedLock;

/**
 * Reads a catalog under a shared lock that admits two readers at a time, and rebuilds it under the same key
 * exclusively: a rebuild waits for the readers and excludes them while it runs.
 */
@Service
public class CatalogService {

	private final AtomicInteger readers = new AtomicInteger();

	private final AtomicInteger mostReaders = new AtomicInteger();

	/**
	 * A slow read, at most two at once per catalog.
	 */
	@DistributedLock(key = "'catalog:' + #catalogId", shared = true, maxConcurrent = 2, retries = Integer.MAX_VALUE,
			delayString = "20ms", maxWaitString = "10s")
	public Read read(String catalogId) throws InterruptedException {
		int now = readers.incrementAndGet();
		mostReaders.accumulateAndGet(now, Math::max);
		try {
			Thread.sleep(1000);
			return new Read(catalogId, now, mostReaders.get());
		}
		finally {
			readers.decrementAndGet();
		}
	}

	/**
	 * A rebuild, alone: no reader runs meanwhile.
	 */
	@DistributedLock(key = "'catalog:' + #catalogId", retries = Integer.MAX_VALUE, delayString = "20ms",
			maxWaitString = "10s")
	public Read rebuild(String catalogId) throws InterruptedException {
		Thread.sleep(500);
		return new Read(catalogId, readers.get(), mostReaders.get());
	}

	/**
	 * What a reader saw.
	 * @param catalog the catalog
	 * @param readersNow readers inside when this one entered (for a rebuild: readers inside meanwhile, always 0)
	 * @param mostReaders the most readers ever inside at once
	 */
	public record Read(String catalog, int readersNow, int mostReaders) {
	}

}
