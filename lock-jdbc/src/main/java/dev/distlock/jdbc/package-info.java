/**
 * The relational provider on a JDBC {@link javax.sql.DataSource}: PostgreSQL, and MySQL/MariaDB.
 */
@NullMarked
package dev.distlock.jdbc;

import org.jspecify.annotations.NullMarked;
