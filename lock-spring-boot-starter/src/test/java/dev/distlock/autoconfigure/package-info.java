/**
 * Tests of dev.distlock.autoconfigure.
 */
@NullMarked
package dev.distlock.autoconfigure;

import org.jspecify.annotations.NullMarked;
