/**
 * Redis servers and clusters that tests start on free ports, reusable by other modules through the test-jar.
 */
@NullMarked
package dev.distlock.redis.testsupport;

import org.jspecify.annotations.NullMarked;
