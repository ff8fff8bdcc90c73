/**
 * The provider contract kit and the seams suite: abstract JUnit 5 tests that every provider module, ours or a third
 * party's, extends to prove its store, with their helpers (the fuzz and section oracles, the store-record reader, a
 * TCP proxy that cuts and stalls connections).
 */
@NullMarked
package dev.distlock.test.kit;

import org.jspecify.annotations.NullMarked;
