/**
 * The reliability suite: multi-JVM fuzz with fencing checks, fault injection, leak checks and the bad-input catalogue.
 */
@NullMarked
package dev.distlock.reliability;

import org.jspecify.annotations.NullMarked;
