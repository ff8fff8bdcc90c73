/**
 * The benchmark runner: one command runs every arm and prints the table.
 */
@NullMarked
package dev.distlock.benchmarks;

import org.jspecify.annotations.NullMarked;
