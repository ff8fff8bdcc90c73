/**
 * The programmatic API: {@link dev.distlock.core.LockTemplate}, {@link dev.distlock.core.LockHandle},
 * {@link dev.distlock.core.LockOptions} and the {@link dev.distlock.core.DistributedLockException} hierarchy.
 */
@NullMarked
package dev.distlock.core;

import org.jspecify.annotations.NullMarked;
