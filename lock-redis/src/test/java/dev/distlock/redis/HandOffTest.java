package dev.distlock.redis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A waiter's bookkeeping: which queued attempt a grant served decides where its lease is counted from.
 */
class HandOffTest {

	@Test
	void aGrantCountsTheLeaseFromTheSendTimeOfTheAttemptItServed() {
		HandOff handOff = new HandOff("t");
		assertThat(handOff.queuedAttempt(100)).isZero();
		assertThat(handOff.queuedAttempt(200)).isEqualTo(1);

		assertThat(handOff.granted(42, 0)).isTrue();

		HandOff.Grant grant = handOff.take();
		assertThat(grant).isEqualTo(new HandOff.Grant(42, 100));
		assertThat(handOff.take()).isNull(); // once
		assertThat(handOff.needsCancel()).isFalse();
	}

	@Test
	void aGrantNamingNoAttemptOfOursIsIgnored() {
		HandOff handOff = new HandOff("t");
		handOff.queuedAttempt(100);
		assertThat(handOff.granted(42, 1)).isFalse();
		assertThat(handOff.granted(42, -1)).isFalse();
		assertThat(handOff.take()).isNull();
		assertThat(handOff.needsCancel()).isTrue();
	}

	@Test
	void afterTheReplySaysTheLockIsOursALateGrantIsIgnoredAndNoCancelIsOwed() {
		HandOff handOff = new HandOff("t");
		handOff.queuedAttempt(100);
		handOff.queuedAttempt(300);
		assertThat(handOff.acquiredByReply()).isEqualTo(100); // the earliest queuing: a safe lease start
		assertThat(handOff.granted(42, 1)).isFalse();
		assertThat(handOff.needsCancel()).isFalse();
	}

	@Test
	void aWaiterThatNeverQueuedOwesNoCancel() {
		assertThat(new HandOff("t").needsCancel()).isFalse();
	}

	@Test
	void manyQueuedAttemptsKeepTheirSendTimes() {
		HandOff handOff = new HandOff("t");
		for (int i = 0; i < 100; i++) {
			assertThat(handOff.queuedAttempt(1_000 + i)).isEqualTo(i);
		}
		assertThat(handOff.granted(7, 73)).isTrue();
		assertThat(handOff.take()).isEqualTo(new HandOff.Grant(7, 1_073));
	}

}
