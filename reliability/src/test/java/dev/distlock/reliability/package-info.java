/**
 * The reliability suite: multi-process mutual exclusion, fault injection, leaks and bad input.
 */
@NullMarked
package dev.distlock.reliability;

import org.jspecify.annotations.NullMarked;
