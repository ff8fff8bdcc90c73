/**
 * JMH benchmarks: the annotation and SpEL overhead over a direct LockTemplate call.
 */
@NullMarked
package dev.distlock.benchmarks.jmh;

import org.jspecify.annotations.NullMarked;
