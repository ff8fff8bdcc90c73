package dev.distlock.core.memory;

import java.time.Duration;

import dev.distlock.core.memory.MemorySlot.Holder;
import dev.distlock.core.spi.Lease;

/**
 * One grant of the in-memory provider: it extends or releases its own holder of the key's slot, found by owner token,
 * so a lease whose lock expired and was taken by someone else changes nothing.
 */
final class MemoryLease implements Lease {

	private final InMemoryLockProvider provider;

	private final String key;

	private final String token;

	private final long fencingToken;

	/** Set once this lease released its lock, so a second release answers as the first did. */
	private volatile boolean released;

	MemoryLease(InMemoryLockProvider provider, String key, String token, long fencingToken) {
		this.provider = provider;
		this.key = key;
		this.token = token;
		this.fencingToken = fencingToken;
	}

	@Override
	public long fencingToken() {
		return fencingToken;
	}

	@Override
	public boolean extend(Duration lease) {
		MemorySlot slot = provider.slot(key);
		if (slot == null) {
			return false;
		}
		synchronized (slot) {
			long now = provider.now();
			provider.prune(key, slot, now);
			Holder holder = slot.removed ? null : slot.holders.get(token);
			if (holder == null) {
				return false;
			}
			holder.renew(lease, now);
			return true;
		}
	}

	@Override
	public boolean isHeld() {
		MemorySlot slot = provider.slot(key);
		if (slot == null) {
			return false;
		}
		synchronized (slot) {
			provider.prune(key, slot, provider.now());
			return !slot.removed && slot.holders.containsKey(token);
		}
	}

	@Override
	public boolean release() {
		if (released) {
			return true;
		}
		MemorySlot slot = provider.slot(key);
		if (slot == null) {
			return false;
		}
		synchronized (slot) {
			provider.prune(key, slot, provider.now());
			if (slot.removed || slot.holders.remove(token) == null) {
				return false;
			}
			provider.removeIfIdle(key, slot);
			released = true;
		}
		provider.signalRelease(key);
		return true;
	}

}
