package dev.distlock.spring;

import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.distlock.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.core.LockTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock's proxies follow {@code spring.aop.proxy-target-class} as Spring Boot's own advice does (issue 19, item
 * 12): class-based by default, interface-based when it is {@code false}, so that a final class behind an interface can
 * be locked. A final class without interfaces cannot be proxied either way, and startup says so naming the class.
 */
class ProxyTargetClassTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
		.withPropertyValues("distributed-lock.provider=in-memory");

	@Test
	void byDefaultAnInterfaceImplementingBeanGetsAClassBasedProxyAndIsLocked() {
		runner.withBean(OpenReservations.class).run(context -> {
			Reservations reservations = context.getBean(Reservations.class);
			assertThat(AopUtils.isCglibProxy(reservations)).isTrue();
			assertThat(reservations.lockedInside()).isTrue();
			assertThat(context.getBean(LockTemplate.class).isLocked("reservations")).isFalse();
		});
	}

	@Test
	void byDefaultAFinalClassBehindAnInterfaceFailsStartupNamingTheClass() {
		runner.withBean(FinalReservations.class).run(context -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause().hasMessageContaining(FinalReservations.class.getName());
			assertThat(messages(context.getStartupFailure())).contains("final class");
		});
	}

	@Test
	void withProxyTargetClassFalseAFinalClassBehindAnInterfaceGetsAnInterfaceProxyAndIsLocked() {
		runner.withPropertyValues("spring.aop.proxy-target-class=false")
			.withBean(FinalReservations.class)
			.run(context -> {
				assertThat(context).hasNotFailed();
				Reservations reservations = context.getBean(Reservations.class);
				assertThat(AopUtils.isJdkDynamicProxy(reservations)).isTrue();
				assertThat(context).doesNotHaveBean(FinalReservations.class);
				assertThat(reservations.lockedInside()).isTrue();
				assertThat(context.getBean(LockTemplate.class).isLocked("reservations")).isFalse();
			});
	}

	@Test
	void withProxyTargetClassFalseAnOpenClassBehindAnInterfaceGetsAnInterfaceProxy() {
		runner.withPropertyValues("spring.aop.proxy-target-class=false")
			.withBean(OpenReservations.class)
			.run(context -> {
				Reservations reservations = context.getBean(Reservations.class);
				assertThat(AopUtils.isJdkDynamicProxy(reservations)).isTrue();
				assertThat(reservations.lockedInside()).isTrue();
			});
	}

	@Test
	void withProxyTargetClassTrueAnInterfaceImplementingBeanGetsAClassBasedProxy() {
		runner.withPropertyValues("spring.aop.proxy-target-class=true")
			.withBean(OpenReservations.class)
			.run(context -> {
				assertThat(AopUtils.isCglibProxy(context.getBean(Reservations.class))).isTrue();
				assertThat(context.getBean(OpenReservations.class).lockedInside()).isTrue();
			});
	}

	@Test
	void withProxyTargetClassFalseABeanWithoutInterfacesStillGetsAClassBasedProxy() {
		runner.withPropertyValues("spring.aop.proxy-target-class=false")
			.withBean(NoInterface.class)
			.run(context -> {
				NoInterface bean = context.getBean(NoInterface.class);
				assertThat(AopUtils.isCglibProxy(bean)).isTrue();
				assertThat(bean.lockedInside()).isTrue();
			});
	}

	@Test
	void aFinalClassWithoutInterfacesFailsStartupNamingTheClassEvenWithProxyTargetClassFalse() {
		runner.withPropertyValues("spring.aop.proxy-target-class=false")
			.withBean(FinalNoInterface.class)
			.run(context -> {
				assertThat(context).hasFailed();
				assertThat(messages(context.getStartupFailure())).contains(FinalNoInterface.class.getName())
					.contains("final class");
			});
	}

	private static String messages(Throwable failure) {
		StringBuilder all = new StringBuilder();
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			all.append(cause.getMessage()).append('\n');
		}
		return all.toString();
	}

	/** What callers inject. */
	public interface Reservations {

		/** Whether the lock was held while the method ran. */
		boolean lockedInside();

	}

	/** Final, as a Kotlin class is unless opened: only an interface proxy can stand in for it. */
	static final class FinalReservations implements Reservations {

		private final LockTemplate locks;

		FinalReservations(LockTemplate locks) {
			this.locks = locks;
		}

		@Override
		@DistributedLock(key = "'reservations'")
		public boolean lockedInside() {
			return locks.isLocked("reservations");
		}

	}

	static class OpenReservations implements Reservations {

		private final LockTemplate locks;

		OpenReservations(LockTemplate locks) {
			this.locks = locks;
		}

		@Override
		@DistributedLock(key = "'reservations'")
		public boolean lockedInside() {
			return locks.isLocked("reservations");
		}

	}

	static class NoInterface {

		private final LockTemplate locks;

		NoInterface(LockTemplate locks) {
			this.locks = locks;
		}

		@DistributedLock(key = "'reservations'")
		public boolean lockedInside() {
			return locks.isLocked("reservations");
		}

	}

	static final class FinalNoInterface {

		@DistributedLock(key = "'reservations'")
		public void run() {
		}

	}

}
