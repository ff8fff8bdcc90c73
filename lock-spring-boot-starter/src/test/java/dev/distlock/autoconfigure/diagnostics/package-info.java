/**
 * Tests of dev.distlock.autoconfigure.diagnostics.
 */
@NullMarked
package dev.distlock.autoconfigure.diagnostics;

import org.jspecify.annotations.NullMarked;
