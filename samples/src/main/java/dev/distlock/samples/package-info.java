/**
 * A runnable web app showing distlock: annotated methods with SpEL keys, a scheduled job locked across instances,
 * fencing tokens, the cache-stampede helper and a shared lock.
 */
@NullMarked
package dev.distlock.samples;

import org.jspecify.annotations.NullMarked;
