/**
 * The README's code, compiled and run as printed.
 */
@NullMarked
package dev.distlock.readme;

import org.jspecify.annotations.NullMarked;
