/**
 * Benchmarks of distlock against its peers and the raw store limit.
 */
@NullMarked
package dev.distlock.benchmarks;

import org.jspecify.annotations.NullMarked;
