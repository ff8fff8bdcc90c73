package dev.distlock.autoconfigure;

import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration processor ran (it is named in the compiler's processor path, as JDK 23+ requires), so the starter's
 * own metadata describes every {@code distributed-lock.*} property for IDEs.
 */
class ConfigurationMetadataTest {

	private static final List<String> PROPERTIES = List.of("distributed-lock.enabled", "distributed-lock.provider",
			"distributed-lock.key-prefix", "distributed-lock.timeout", "distributed-lock.retries",
			"distributed-lock.delay", "distributed-lock.backoff-multiplier", "distributed-lock.max-delay",
			"distributed-lock.max-wait", "distributed-lock.auto-renew", "distributed-lock.on-failure",
			"distributed-lock.owner", "distributed-lock.shutdown-wait", "distributed-lock.redis.namespace",
			"distributed-lock.redis.pub-sub", "distributed-lock.redis.fence-retention",
			"distributed-lock.redis.replica-acks",
			"distributed-lock.mongo.collection", "distributed-lock.mongo.write-concern",
			"distributed-lock.mongo.create-indexes", "distributed-lock.mongo.purge-interval",
			"distributed-lock.mongo.purge-grace", "distributed-lock.mongo.call-timeout",
			"distributed-lock.spel.bean-references",
			"distributed-lock.aop.before-existing-advisors", "distributed-lock.aop.order",
			"distributed-lock.actuator.force-release-enabled", "distributed-lock.actuator.status-limit",
			"distributed-lock.actuator.health-timeout", "distributed-lock.web.problem-details.enabled");

	@Test
	void everyPropertyIsListedWithADescription() throws Exception {
		String json = starterMetadata();
		List<String> names = JsonPath.read(json, "$.properties[?(@.name =~ /distributed-lock\\..*/)].name");
		assertThat(names).containsExactlyInAnyOrderElementsOf(PROPERTIES);
		List<Map<String, Object>> properties = JsonPath.read(json,
				"$.properties[?(@.name =~ /distributed-lock\\..*/)]");
		assertThat(properties).allSatisfy(property -> assertThat(property.get("description")).as(property.get("name")
			.toString()).asString().isNotBlank());
	}

	@Test
	void defaultsComeFromTheFieldInitialisers() throws Exception {
		String json = starterMetadata();
		assertThat(defaultOf(json, "distributed-lock.timeout")).isEqualTo("10s");
		assertThat(defaultOf(json, "distributed-lock.delay")).isEqualTo("50ms");
		assertThat(defaultOf(json, "distributed-lock.provider")).isEqualTo("auto");
		assertThat(defaultOf(json, "distributed-lock.enabled")).isEqualTo(true);
		assertThat(defaultOf(json, "distributed-lock.mongo.write-concern")).isEqualTo("majority");
		assertThat(defaultOf(json, "distributed-lock.web.problem-details.enabled")).isEqualTo(true);
	}

	// The starter's own file, not another jar's: it sits next to the starter's classes.
	private static String starterMetadata() throws Exception {
		URI classes = DistributedLockProperties.class.getProtectionDomain().getCodeSource().getLocation().toURI();
		try (InputStream in = classes.resolve("META-INF/spring-configuration-metadata.json").toURL().openStream()) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
	}

	private static Object defaultOf(String json, String name) {
		List<Object> values = JsonPath.read(json, "$.properties[?(@.name == '" + name + "')].defaultValue");
		assertThat(values).as(name).hasSize(1);
		return values.get(0);
	}

}
