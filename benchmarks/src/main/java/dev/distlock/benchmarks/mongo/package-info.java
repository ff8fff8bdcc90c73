/**
 * The MongoDB arms: the raw driver floor, distlock and ShedLock, on the wire server or MONGODB_URI.
 */
@NullMarked
package dev.distlock.benchmarks.mongo;

import org.jspecify.annotations.NullMarked;
