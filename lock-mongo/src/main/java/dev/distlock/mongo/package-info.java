/**
 * The MongoDB provider on Spring Data MongoDB.
 */
@NullMarked
package dev.distlock.mongo;

import org.jspecify.annotations.NullMarked;
