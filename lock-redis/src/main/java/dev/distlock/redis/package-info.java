/**
 * The Redis provider on Spring Data Redis.
 */
@NullMarked
package dev.distlock.redis;

import org.jspecify.annotations.NullMarked;
