/**
 * Machinery behind {@link dev.distlock.core.LockTemplate}: handles, the wait loop, the renewal watchdog. Not API.
 */
@NullMarked
package dev.distlock.core.internal;

import org.jspecify.annotations.NullMarked;
