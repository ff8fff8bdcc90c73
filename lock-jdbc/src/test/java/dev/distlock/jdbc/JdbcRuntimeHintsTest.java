package dev.distlock.jdbc;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hints a native image gets from this module, registered as Spring's AOT processing finds them: through
 * {@code META-INF/spring/aot.factories}.
 */
class JdbcRuntimeHintsTest {

	@Test
	void everyDialectsSchemaIsANativeImageResource() {
		RuntimeHints hints = new RuntimeHints();
		List<RuntimeHintsRegistrar> registrars = SpringFactoriesLoader
			.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class);
		assertThat(registrars).hasAtLeastOneElementOfType(JdbcRuntimeHints.class);
		registrars.forEach(registrar -> registrar.registerHints(hints, getClass().getClassLoader()));

		for (JdbcDialect dialect : JdbcDialect.values()) {
			String schema = dialect.schemaResource();
			assertThat(getClass().getClassLoader().getResource(schema)).as("%s on the class path", schema).isNotNull();
			assertThat(RuntimeHintsPredicates.resource().forResource(schema)).as(schema).accepts(hints);
		}
		assertThat(RuntimeHintsPredicates.resource().forResource("dev/distlock/jdbc/JdbcMaintenance.class"))
			.rejects(hints);
	}

	@Test
	void connectorJsConnectionTypeIsReflectableSoServerSidePreparesWorkInANativeImage() {
		RuntimeHints hints = new RuntimeHints();
		new JdbcRuntimeHints().registerHints(hints, getClass().getClassLoader());
		assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of("org.mariadb.jdbc.Connection")))
			.accepts(hints);
	}

}
