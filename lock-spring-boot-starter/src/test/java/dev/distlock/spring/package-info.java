/**
 * Tests of dev.distlock.spring.
 */
@NullMarked
package dev.distlock.spring;

import org.jspecify.annotations.NullMarked;
