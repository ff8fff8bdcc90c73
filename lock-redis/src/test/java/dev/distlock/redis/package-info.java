/**
 * Tests of the Redis provider against a real redis-server.
 */
@NullMarked
package dev.distlock.redis;

import org.jspecify.annotations.NullMarked;
