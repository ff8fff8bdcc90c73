package dev.distlock.samples;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The scheduled report job, seen over HTTP as the README's curl line shows it: it fires every 100 ms here, runs once,
 * and skips while its 20 s minimum hold keeps the lock, which stays in the store after the quick run returned.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
		"sample.report.initial-delay=0s", "sample.report.rate=100ms", "sample.report.hold-at-least=20s" })
class ReportJobTest {

	private final HttpClient client = HttpClient.newHttpClient();

	@Value("${local.server.port}")
	private int port;

	@Test
	void reportRunsOnceThenSkipsWhileTheMinimumHoldLasts() throws Exception {
		await().atMost(20, TimeUnit.SECONDS).until(() -> skips() >= 3);
		String report = get("/jobs/report");
		assertThat((Integer) JsonPath.read(report, "$.runs")).isEqualTo(1);
		assertThat((Integer) JsonPath.read(report, "$.last.number")).isEqualTo(1);
		assertThat(((Number) JsonPath.read(report, "$.last.fencingToken")).longValue()).isPositive();

		String locks = get("/actuator/locks?keyPrefix=sample:report:&state=held");
		List<Object> held = JsonPath.read(locks, "$.held");
		List<String> storeKeys = JsonPath.read(locks, "$.store.locks[*].key");
		assertThat(held).isEmpty();
		assertThat((Integer) JsonPath.read(locks, "$.store.count")).isEqualTo(1);
		assertThat(storeKeys).containsExactly("sample:report:hourly");
		assertThat(((Number) JsonPath.read(locks, "$.store.locks[0].fencingToken")).longValue())
			.isEqualTo(((Number) JsonPath.read(report, "$.last.fencingToken")).longValue());
	}

	private double skips() throws Exception {
		HttpResponse<String> metric = send(
				"/actuator/metrics/distlock.acquire?tag=outcome:skipped&tag=method:ReportJob.buildReport");
		if (metric.statusCode() == 404) {
			return 0; // no skip yet, so no such meter
		}
		List<Double> counts = JsonPath.read(metric.body(), "$.measurements[?(@.statistic == 'COUNT')].value");
		return counts.get(0);
	}

	private String get(String path) throws Exception {
		HttpResponse<String> response = send(path);
		assertThat(response.statusCode()).as(path).isEqualTo(200);
		return response.body();
	}

	private HttpResponse<String> send(String path) throws Exception {
		return client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

}
