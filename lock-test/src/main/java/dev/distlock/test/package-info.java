/**
 * Test support for applications that take locks: {@link dev.distlock.test.TestLockProvider}, an in-memory store
 * whose locks a test can expire or take away, {@link dev.distlock.test.LockAssertions} to prove that code runs under
 * a lock, and {@link dev.distlock.test.AutoConfigureTestDistributedLock} to put the test store into a
 * {@code @SpringBootTest}.
 */
@NullMarked
package dev.distlock.test;

import org.jspecify.annotations.NullMarked;
