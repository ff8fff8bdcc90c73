/**
 * Auto-configuration of distlock: the {@code distributed-lock.*} properties, the {@code LockTemplate}, the
 * {@code @DistributedLock} post-processor and the Redis, MongoDB and in-memory providers.
 */
@NullMarked
package dev.distlock.autoconfigure;

import org.jspecify.annotations.NullMarked;
