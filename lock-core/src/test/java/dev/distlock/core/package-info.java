/**
 * Tests of the template, options and keys.
 */
@NullMarked
package dev.distlock.core;

import org.jspecify.annotations.NullMarked;
