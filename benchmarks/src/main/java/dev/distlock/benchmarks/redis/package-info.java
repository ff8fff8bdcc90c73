/**
 * The Redis arms: the raw Lettuce floor, distlock, Redisson and Spring Integration, on a redis-server of our own.
 */
@NullMarked
package dev.distlock.benchmarks.redis;

import org.jspecify.annotations.NullMarked;
