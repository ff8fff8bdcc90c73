/**
 * Tests of the locks endpoint, health indicator, meters and observations.
 */
@NullMarked
package dev.distlock.autoconfigure.actuate;

import org.jspecify.annotations.NullMarked;
