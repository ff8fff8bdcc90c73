package dev.distlock.autoconfigure;

import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.jayway.jsonpath.JsonPath;
import com.mongodb.WriteConcern;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanWrapper;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.convert.TypeDescriptor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration processor ran (it is named in the compiler's processor path, as JDK 23+ requires), so the starter's
 * own metadata describes every {@code distributed-lock.*} property for IDEs, with the defaults the code really binds.
 */
class ConfigurationMetadataTest {

	private static final List<String> PROPERTIES = List.of("distributed-lock.enabled", "distributed-lock.provider",
			"distributed-lock.key-prefix", "distributed-lock.timeout", "distributed-lock.retries",
			"distributed-lock.delay", "distributed-lock.backoff-multiplier", "distributed-lock.max-delay",
			"distributed-lock.max-wait", "distributed-lock.auto-renew", "distributed-lock.on-failure",
			"distributed-lock.owner", "distributed-lock.shutdown-wait", "distributed-lock.redis.namespace",
			"distributed-lock.redis.pub-sub", "distributed-lock.redis.fence-retention",
			"distributed-lock.redis.replica-acks", "distributed-lock.redis.fencing",
			"distributed-lock.mongo.collection", "distributed-lock.mongo.write-concern",
			"distributed-lock.mongo.create-indexes", "distributed-lock.mongo.purge-interval",
			"distributed-lock.mongo.purge-grace", "distributed-lock.mongo.call-timeout",
			"distributed-lock.jdbc.table", "distributed-lock.jdbc.initialize-schema",
			"distributed-lock.jdbc.purge-interval", "distributed-lock.jdbc.purge-grace",
			"distributed-lock.jdbc.purge-batch", "distributed-lock.jdbc.call-timeout",
			"distributed-lock.jdbc.server-prepared-statements",
			"distributed-lock.spel.bean-references",
			"distributed-lock.aop.before-existing-advisors", "distributed-lock.aop.order",
			"distributed-lock.actuator.force-release-enabled", "distributed-lock.actuator.status-limit",
			"distributed-lock.actuator.health-timeout", "distributed-lock.web.problem-details.enabled");

	// Ordered.LOWEST_PRECEDENCE: a constant of another class, which the processor cannot read and the metadata has
	// never shown.
	private static final Set<String> NO_METADATA_DEFAULT = Set.of("distributed-lock.aop.order");

	private static final Pattern KEBAB = Pattern.compile("-([a-z])");

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
	void metadataShowsTheDefaults() throws Exception {
		String json = starterMetadata();
		assertThat(defaultOf(json, "distributed-lock.timeout")).isEqualTo("10s");
		assertThat(defaultOf(json, "distributed-lock.delay")).isEqualTo("50ms");
		assertThat(defaultOf(json, "distributed-lock.provider")).isEqualTo("auto");
		assertThat(defaultOf(json, "distributed-lock.enabled")).isEqualTo(true);
		assertThat(defaultOf(json, "distributed-lock.mongo.write-concern")).isEqualTo("majority");
		assertThat(defaultOf(json, "distributed-lock.web.problem-details.enabled")).isEqualTo(true);
		assertThat(defaultOf(json, "distributed-lock.aop.order")).isEqualTo(Integer.MAX_VALUE);
		assertThat(defaultOf(json, "management.health.locks.enabled")).isEqualTo(true);
		List<String> writeConcerns = JsonPath.read(json,
				"$.hints[?(@.name == 'distributed-lock.mongo.write-concern')].values[*].value");
		assertThat(writeConcerns).contains("majority", "w1", "journaled", "acknowledged");
		writeConcerns.forEach(value -> assertThat(WriteConcern.valueOf(value)).as(value).isNotNull());
	}

	/**
	 * Many defaults are read from the core and store classes ({@code LockOptions.defaults()},
	 * {@code RedisLockSettings.defaults()}, ...), which the configuration processor cannot do, so the metadata shows them
	 * from the hand-written additional metadata. Each metadata default, converted as Boot converts a property, must
	 * equal what binding an empty environment gives; and a property that binds a value has a metadata default.
	 */
	@Test
	void everyMetadataDefaultIsWhatTheCodeBindsWithNothingSet() throws Exception {
		String json = starterMetadata();
		List<Map<String, Object>> properties = JsonPath.read(json, "$.properties[*]");
		List<BeanWrapper> bound = boundWithNothingSet(json);
		List<String> checked = new ArrayList<>();
		SoftAssertions softly = new SoftAssertions();
		for (Map<String, Object> property : properties) {
			String name = (String) property.get("name");
			if (!name.startsWith("distributed-lock.")) {
				// management.endpoint.locks.*: written by the processor from the @Endpoint annotation, not by hand;
				// management.health.locks.enabled: read by Boot's health contributor condition, bound by no class here.
				assertThat(name).matches("management\\.endpoint\\.locks\\..*|management\\.health\\.locks\\.enabled");
				continue;
			}
			BeanWrapper owner = bound.stream()
				.filter(wrapper -> name.startsWith(prefixOf(wrapper) + "."))
				.max(Comparator.comparingInt(wrapper -> prefixOf(wrapper).length()))
				.orElseThrow(() -> new AssertionError("no properties class binds " + name));
			String path = camelCase(name.substring(prefixOf(owner).length() + 1));
			Object actual = owner.getPropertyValue(path);
			Object metadataDefault = property.get("defaultValue");
			if (metadataDefault == null) {
				if (!NO_METADATA_DEFAULT.contains(name)) {
					softly.assertThat(actual).as("%s binds a value, but the metadata shows no default", name).isNull();
				}
				continue;
			}
			Object expected = ApplicationConversionService.getSharedInstance()
				.convert(String.valueOf(metadataDefault), TypeDescriptor.valueOf(String.class),
						owner.getPropertyTypeDescriptor(path));
			softly.assertThat(actual).as("%s: bound with nothing set vs the metadata default '%s'", name, metadataDefault)
				.isEqualTo(expected);
			checked.add(name);
		}
		softly.assertAll();
		assertThat(checked).contains("distributed-lock.timeout", "distributed-lock.redis.fence-retention",
				"distributed-lock.mongo.write-concern", "distributed-lock.web.problem-details.enabled",
				"distributed-lock.actuator.health-timeout");
	}

	// One wrapper per @ConfigurationProperties class of the metadata's groups, bound from an empty environment.
	private static List<BeanWrapper> boundWithNothingSet(String json) throws ClassNotFoundException {
		List<Map<String, Object>> groups = JsonPath.read(json, "$.groups[*]");
		List<BeanWrapper> bound = new ArrayList<>();
		for (Map<String, Object> group : groups) {
			Class<?> properties = Class.forName((String) group.get("type"));
			if (properties.isAnnotationPresent(ConfigurationProperties.class)) {
				Object value = new Binder().bindOrCreate(prefixOf(properties), Bindable.of(properties));
				bound.add(new BeanWrapperImpl(value));
			}
		}
		assertThat(bound).hasSizeGreaterThanOrEqualTo(4);
		return bound;
	}

	private static String prefixOf(BeanWrapper wrapper) {
		return prefixOf(wrapper.getWrappedClass());
	}

	// prefix and value are aliases: only a merged view resolves them.
	private static String prefixOf(Class<?> properties) {
		return AnnotatedElementUtils.findMergedAnnotation(properties, ConfigurationProperties.class).prefix();
	}

	// web.problem-details.enabled -> web.problemDetails.enabled
	private static String camelCase(String kebab) {
		Matcher matcher = KEBAB.matcher(kebab);
		StringBuilder out = new StringBuilder();
		while (matcher.find()) {
			matcher.appendReplacement(out, matcher.group(1).toUpperCase(Locale.ROOT));
		}
		return matcher.appendTail(out).toString();
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
