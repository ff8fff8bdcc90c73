/**
 * Tests of the JDBC provider on real PostgreSQL and MariaDB servers.
 */
@NullMarked
package dev.distlock.jdbc;

import org.jspecify.annotations.NullMarked;
