/**
 * The JDBC arms: the raw single-statement floor, distlock, ShedLock and Spring Integration, on a PostgreSQL and a
 * MariaDB server of the benchmark's own.
 */
@NullMarked
package dev.distlock.benchmarks.jdbc;

import org.jspecify.annotations.NullMarked;
