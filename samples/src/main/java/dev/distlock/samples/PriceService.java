package dev.distlock.samples;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.stereotype.Service;

import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;

/**
 * A cache in front of a slow price computation. On a miss, {@link LockTemplate#computeIfMissing} lets one caller
 * compute while the others wait and then read its result: a burst of requests costs one computation, not one each.
 */
@Service
public class PriceService {

	private static final LockOptions options = LockOptions.builder().waitUpTo(Duration.ofSeconds(10)).build();

	private final LockTemplate locks;

	private final Map<String, Long> cache = new ConcurrentHashMap<>();

	private final AtomicInteger computations = new AtomicInteger();

	/**
	 * A service taking locks through the template.
	 */
	public PriceService(LockTemplate locks) {
		this.locks = locks;
	}

	/**
	 * The price, from the cache or computed once.
	 */
	public Price price(String sku) {
		long cents = locks.computeIfMissing("price:" + sku, () -> cache.get(sku), () -> compute(sku),
				value -> cache.put(sku, value), options);
		return new Price(sku, cents, computations.get());
	}

	/**
	 * Drops the cached price.
	 */
	public void evict(String sku) {
		cache.remove(sku);
	}

	private long compute(String sku) {
		computations.incrementAndGet();
		try {
			Thread.sleep(1000); // the expensive part
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return 100L + Math.abs(sku.hashCode() % 900);
	}

	/**
	 * A price.
	 * @param sku the product
	 * @param cents the price in cents
	 * @param computations how many times any price was computed so far
	 */
	public record Price(String sku, long cents, int computations) {
	}

}
