package dev.distlock.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

/**
 * On a {@code @SpringBootTest} class: the application locks on a {@link TestLockProvider} instead of its store, even
 * when lock-redis, lock-mongo or lock-jdbc and their connections are configured, and whatever
 * {@code distributed-lock.provider} says. The provider is a bean: inject it to expire or lose locks and to read which
 * were taken. As Spring Boot's own {@code @AutoConfigure…} annotations do, it imports the auto-configuration listed in
 * {@code META-INF/spring/dev.distlock.test.AutoConfigureTestDistributedLock.imports}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
public @interface AutoConfigureTestDistributedLock {

}
