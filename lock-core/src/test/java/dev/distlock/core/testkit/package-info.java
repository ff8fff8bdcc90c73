/**
 * The provider contract kit: abstract tests every provider module extends, shipped in lock-core's test-jar.
 */
@NullMarked
package dev.distlock.core.testkit;

import org.jspecify.annotations.NullMarked;
