package dev.distlock.jdbc;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The local side of a wake-up: one naming a waiter wakes only the waiter of the key with that owner token, one naming
 * nobody wakes every waiter of the key, a waiter knows whether the last wake-up named it, and a notification's payload reads as a named waiter only when it holds the
 * separator no key may contain.
 */
class WakeupsTest {

	@Test
	void aNamedWakeUpWakesOnlyTheNamedWaiterOfTheKey() throws Exception {
		try (Wakeups wakeups = new Wakeups(null, "locks");
				Wakeups.Waiter first = wakeups.register("key", "first");
				Wakeups.Waiter second = wakeups.register("key", "second");
				Wakeups.Waiter elsewhere = wakeups.register("other key", "second")) {
			wakeups.wake("key", "second");

			assertThat(second.await(Duration.ZERO)).isTrue();
			assertThat(first.await(Duration.ZERO)).isFalse();
			assertThat(elsewhere.await(Duration.ZERO)).as("the same token on another key").isFalse();
		}
	}

	@Test
	void aWakeUpNamingNobodyWakesEveryWaiterOfTheKeyAndOneNamingAWaiterNotHereWakesNobody() throws Exception {
		try (Wakeups wakeups = new Wakeups(null, "locks");
				Wakeups.Waiter first = wakeups.register("key", "first");
				Wakeups.Waiter second = wakeups.register("key", "second")) {
			wakeups.wake("key", "in another JVM");
			assertThat(first.await(Duration.ZERO)).isFalse();
			assertThat(second.await(Duration.ZERO)).isFalse();

			wakeups.wake("key", null);
			assertThat(first.await(Duration.ZERO)).isTrue();
			assertThat(second.await(Duration.ZERO)).isTrue();
		}
	}

	@Test
	void aPayloadNamesAWaiterOnlyWhenItHoldsTheSeparator() {
		PostgresNotifications.Notification key = PostgresNotifications.Notification.of("locks", "orders:42 \u00FC");
		assertThat(key.key()).isEqualTo("orders:42 \u00FC");
		assertThat(key.token()).isNull();

		PostgresNotifications.Notification named = PostgresNotifications.Notification.of("locks",
				"tok-en_1" + PostgresNotifications.NAMED + "orders:42 \u00FC");
		assertThat(named.key()).isEqualTo("orders:42 \u00FC");
		assertThat(named.token()).isEqualTo("tok-en_1");
	}

}
