/**
 * Test support shipped in lock-mongo's test-jar: an in-process wire-protocol MongoDB, or a real one.
 */
@NullMarked
package dev.distlock.mongo.testsupport;

import org.jspecify.annotations.NullMarked;
