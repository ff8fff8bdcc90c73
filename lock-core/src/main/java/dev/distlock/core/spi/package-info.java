/**
 * The provider SPI: a store answers "try to acquire this key for this long", and the lease it returns releases and
 * extends itself. Waiting, retries, backoff, groups and renewal live once, in {@link dev.distlock.core.LockTemplate}.
 */
@NullMarked
package dev.distlock.core.spi;

import org.jspecify.annotations.NullMarked;
