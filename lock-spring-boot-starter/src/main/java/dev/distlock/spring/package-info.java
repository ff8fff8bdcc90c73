/**
 * The {@code @DistributedLock} annotation, the {@link dev.distlock.spring.LockContext} holder and the Spring AOP
 * interceptor that serves them.
 */
@NullMarked
package dev.distlock.spring;

import org.jspecify.annotations.NullMarked;
