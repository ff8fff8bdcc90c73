package dev.distlock.core.memory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import dev.distlock.core.LockMode;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockRequest;

/**
 * One key's state in the in-memory store: its holders, and the exclusive waiters that keep new shared holders out.
 * Guarded by its own monitor; {@code removed} marks a slot dropped from the map, so a racing caller takes a fresh one.
 */
final class MemorySlot {

	final Map<String, Holder> holders = new LinkedHashMap<>();

	/** Exclusive acquisitions waiting for this key: while any is here, no new shared holder is let in. */
	final Set<MemoryAcquisition> writers = new HashSet<>();

	LockMode mode = LockMode.EXCLUSIVE;

	long lastFencing;

	boolean removed;

	/**
	 * Removes the holders whose lease ran out and returns them.
	 */
	List<Holder> prune(long now) {
		List<Holder> expired = new ArrayList<>();
		for (Iterator<Holder> it = holders.values().iterator(); it.hasNext();) {
			Holder holder = it.next();
			if (!holder.live(now)) {
				expired.add(holder);
				it.remove();
			}
		}
		return expired;
	}

	/**
	 * Three cases for an exclusive request: free, or held (by anyone, either mode). For a shared one: free or shared
	 * with room, no exclusive waiter queued (writer priority), and no live holder of the same lock ID.
	 */
	boolean grantable(LockRequest request) {
		if (!request.shared()) {
			return holders.isEmpty();
		}
		if (!writers.isEmpty()) {
			return false;
		}
		if (holders.isEmpty()) {
			return true;
		}
		return mode == LockMode.SHARED && holders.size() < request.maxConcurrent()
				&& (request.lockId() == null
						|| holders.values().stream().noneMatch(holder -> request.lockId().equals(holder.lockId)));
	}

	/** Whether nothing holds or waits for the key, so the slot can go. */
	boolean idle() {
		return holders.isEmpty() && writers.isEmpty();
	}

	/** The key as status shows it: its earliest holder's details, its latest lease end, its live holders. */
	LockInfo info(String key, long now) {
		Holder first = holders.values().iterator().next();
		boolean forever = holders.values().stream().anyMatch(holder -> holder.lease == null);
		long latest = holders.values().stream().mapToLong(holder -> holder.expiresAt).max().orElse(now);
		int live = (int) holders.values().stream().filter(holder -> holder.live(now)).count();
		return new LockInfo(key, mode, first.owner.owner(), first.owner.host(), lastFencing, first.acquiredAt,
				forever ? LockInfo.NO_EXPIRY : Duration.ofNanos(latest - now), live, first.lockId, first.renewedAt,
				first.lease);
	}

	/** One holder's lock as its lock ID sees it. */
	LockInfo info(String key, Holder holder, long now) {
		return new LockInfo(key, mode, holder.owner.owner(), holder.owner.host(), lastFencing, holder.acquiredAt,
				holder.remaining(now), holder.live(now) ? 1 : 0, holder.lockId, holder.renewedAt, holder.lease);
	}

	/**
	 * One holder: owner details, lock ID, times, and its lease on the provider's monotonic clock.
	 */
	static final class Holder {

		final OwnerDetails owner;

		final @Nullable String lockId;

		final Instant acquiredAt;

		/** The grant order across the provider: unlock by ID releases the newest first. */
		final long fencing;

		@Nullable Instant renewedAt;

		/** The lease set at the grant or the last renewal; null for no expiry. */
		@Nullable Duration lease;

		long expiresAt;

		Holder(LockRequest request, long fencing, long now) {
			this.owner = request.owner();
			this.lockId = request.lockId();
			this.acquiredAt = Instant.now();
			this.fencing = fencing;
			if (!request.noExpiry()) {
				setLease(request.lease(), now);
			}
		}

		boolean live(long now) {
			return lease == null || now - expiresAt < 0;
		}

		Duration remaining(long now) {
			return lease == null ? LockInfo.NO_EXPIRY : Duration.ofNanos(expiresAt - now);
		}

		void setLease(Duration lease, long now) {
			this.lease = lease;
			this.expiresAt = now + lease.toNanos();
		}

		void renew(Duration lease, long now) {
			setLease(lease, now);
			this.renewedAt = Instant.now();
		}

	}

}
