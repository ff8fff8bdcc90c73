/**
 * Lock errors as HTTP responses in Spring MVC and WebFlux applications: RFC 9457 problem details, with the
 * application's own exception handlers taking precedence.
 */
@NullMarked
package dev.distlock.autoconfigure.web;

import org.jspecify.annotations.NullMarked;
