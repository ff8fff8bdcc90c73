/**
 * The JVM-local provider, the embedded default: locks that exclude threads of one JVM only.
 */
@NullMarked
package dev.distlock.core.memory;

import org.jspecify.annotations.NullMarked;
