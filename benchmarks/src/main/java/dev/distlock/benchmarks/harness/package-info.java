/**
 * Workloads shared by every arm: uncontended cycles, contention across independent clients, memory per held lock.
 */
@NullMarked
package dev.distlock.benchmarks.harness;

import org.jspecify.annotations.NullMarked;
