/**
 * Failure analyzers: a startup failure caused by a lock property, a {@code @DistributedLock} declaration or a missing
 * lock store prints Spring Boot's "APPLICATION FAILED TO START" report, naming what is wrong and what to change.
 */
@NullMarked
package dev.distlock.autoconfigure.diagnostics;

import org.jspecify.annotations.NullMarked;
