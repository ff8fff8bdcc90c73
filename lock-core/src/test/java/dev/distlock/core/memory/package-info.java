/**
 * Tests of the in-memory provider.
 */
@NullMarked
package dev.distlock.core.memory;

import org.jspecify.annotations.NullMarked;
