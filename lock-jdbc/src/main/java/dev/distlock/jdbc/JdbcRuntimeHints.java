package dev.distlock.jdbc;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

/**
 * What a native image needs of this module: the DDL per dialect, which {@link JdbcMaintenance} reads from the class
 * path when it creates the table ({@code distributed-lock.jdbc.initialize-schema}). Without it a native application
 * that creates its lock table fails at startup naming the missing resource. And Connector/J's connection type, which
 * {@link LockDatabase} looks up by name and inspects before it prepares statements on the server (without it a native
 * application on MariaDB sends them as text).
 */
final class JdbcRuntimeHints implements RuntimeHintsRegistrar {

	// A pattern, not a list of names, so a dialect added beside the others is covered without touching this file.
	static final String SCHEMAS = "dev/distlock/jdbc/schema-*.sql";

	static final TypeReference CONNECTOR_J = TypeReference.of("org.mariadb.jdbc.Connection");

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern(SCHEMAS);
		hints.reflection().registerType(CONNECTOR_J);
	}

}
