/**
 * Operations for distlock: the {@code locks} actuator endpoint, the {@code locks} health indicator, Micrometer meters
 * and observations, each auto-configured only when its library is present.
 */
@NullMarked
package dev.distlock.autoconfigure.actuate;

import org.jspecify.annotations.NullMarked;
