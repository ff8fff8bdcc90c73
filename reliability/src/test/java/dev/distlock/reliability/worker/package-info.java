/**
 * The worker JVM: a tiny Spring Boot app whose @DistributedLock methods the reliability tests drive from other processes.
 */
@NullMarked
package dev.distlock.reliability.worker;

import org.jspecify.annotations.NullMarked;
