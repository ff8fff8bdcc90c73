/**
 * Tests of the sample app.
 */
@NullMarked
package dev.distlock.samples;

import org.jspecify.annotations.NullMarked;
