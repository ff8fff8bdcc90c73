/**
 * The provider contract kit and the seams suite: abstract tests every provider module extends, shipped in
 * lock-core's test-jar, with their helpers (the fuzz and section oracles, a TCP proxy that cuts and stalls connections).
 */
@NullMarked
package dev.distlock.core.testkit;

import org.jspecify.annotations.NullMarked;
