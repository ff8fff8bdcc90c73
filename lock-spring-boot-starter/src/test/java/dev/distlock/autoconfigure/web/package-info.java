/**
 * Tests of dev.distlock.autoconfigure.web.
 */
@NullMarked
package dev.distlock.autoconfigure.web;

import org.jspecify.annotations.NullMarked;
