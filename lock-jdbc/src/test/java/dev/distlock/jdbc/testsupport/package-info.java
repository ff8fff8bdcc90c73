/**
 * Real database servers for tests: a PostgreSQL and a MariaDB each started on a free port in a temporary directory,
 * one per test JVM, stopped at exit.
 */
@NullMarked
package dev.distlock.jdbc.testsupport;

import org.jspecify.annotations.NullMarked;
