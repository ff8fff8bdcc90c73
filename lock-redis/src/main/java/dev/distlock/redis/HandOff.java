package dev.distlock.redis;

import java.util.Arrays;

import org.jspecify.annotations.Nullable;

/**
 * One waiting acquisition's place in a key's waiter queue (see {@code acquire.lua} and {@code release.lua}): the send
 * time of each queued attempt, and the grant when a release hands the lock over. The grant names the attempt whose
 * queue entry it used; that attempt was sent before the grant was made, so its send time is a safe start for the
 * lease. Written by the waiting thread and the pub/sub listener, hence synchronised.
 */
final class HandOff {

	private final String token;

	private long[] sentNanos = new long[8];

	private int attempts;

	private @Nullable Grant grant;

	private boolean taken;

	HandOff(String token) {
		this.token = token;
	}

	String token() {
		return token;
	}

	/**
	 * Records that a queued attempt is being sent now.
	 * @return the attempt's number, stored in the queue entry and echoed by a grant
	 */
	synchronized int queuedAttempt(long nowNanos) {
		if (attempts == sentNanos.length) {
			sentNanos = Arrays.copyOf(sentNanos, attempts * 2);
		}
		sentNanos[attempts] = nowNanos;
		return attempts++;
	}

	/**
	 * Records a grant published by a release; false when it names no attempt of ours or came after we were done.
	 */
	synchronized boolean granted(long fencingToken, int attempt) {
		if (taken || attempt < 0 || attempt >= attempts) {
			return false;
		}
		grant = new Grant(fencingToken, sentNanos[attempt]);
		return true;
	}

	/**
	 * Takes a grant that arrived, once.
	 */
	synchronized @Nullable Grant take() {
		if (taken || grant == null) {
			return null;
		}
		taken = true;
		return grant;
	}

	/**
	 * Marks the lock as ours by an attempt's own reply ({@code acquire.lua} returned 1 or 2), so a late grant message is
	 * ignored and closing needs no cancel.
	 * @return when the first queued attempt was sent: a safe lease start when the reply says the lock was handed over
	 * but not which attempt's entry was used
	 */
	synchronized long acquiredByReply() {
		taken = true;
		return attempts > 0 ? sentNanos[0] : Long.MAX_VALUE;
	}

	/**
	 * Whether closing must withdraw a queue entry (and release a grant nobody took): some attempt was queued and the
	 * lock was not taken.
	 */
	synchronized boolean needsCancel() {
		return attempts > 0 && !taken;
	}

	/**
	 * A hand-off: the fencing token the release issued, and the send time of the queued attempt it served.
	 */
	record Grant(long fencingToken, long leaseStartNanos) {
	}

}
