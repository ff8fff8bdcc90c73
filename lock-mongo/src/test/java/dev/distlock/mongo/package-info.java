/**
 * Tests of the MongoDB provider: the contract kit, failures, purger, indexes and status.
 */
@NullMarked
package dev.distlock.mongo;

import org.jspecify.annotations.NullMarked;
