package dev.distlock.mongo;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;

import com.mongodb.client.MongoClient;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;

import dev.distlock.core.LockMode;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.mongo.testsupport.MongoTestServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Counts the commands each operation sends, so the round-trip figures in docs/MONGO.md are measured, not claimed.
 */
class MongoLockRoundTripTest {

	private static final OwnerDetails OWNER = new OwnerDetails("round-trips", "host");

	private final List<String> commands = new CopyOnWriteArrayList<>();

	private MongoTestServer server;

	private MongoClient client;

	private MongoLockProvider provider;

	@BeforeEach
	void start() {
		server = MongoTestServer.startInProcess();
		client = server.newClient(builder -> builder.addCommandListener(new CommandListener() {
			@Override
			public void commandStarted(CommandStartedEvent event) {
				commands.add(event.getCommandName());
			}
		}));
		provider = new MongoLockProvider(new MongoTemplate(client, "round_trips"), MongoLockSettings.defaults());
	}

	@AfterEach
	void stop() {
		provider.close();
		client.close();
		server.close();
	}

	private List<String> during(Runnable operation) {
		commands.clear();
		operation.run();
		return List.copyOf(commands);
	}

	private static LockRequest request(String token, LockMode mode) {
		return new LockRequest("k", token, Duration.ofSeconds(30), mode, mode == LockMode.SHARED ? 3 : 1, OWNER);
	}

	@Test
	void commonPathIsOneCommandPerAcquireReleaseAndExtend() {
		assertThat(during(() -> provider.tryAcquire(request("first", LockMode.EXCLUSIVE)).orElseThrow().release()))
			.as("first acquisition of a new key: update, insert; then release")
			.containsExactly("findAndModify", "findAndModify", "update");

		Lease[] lease = new Lease[1];
		assertThat(during(() -> lease[0] = provider.tryAcquire(request("second", LockMode.EXCLUSIVE)).orElseThrow()))
			.containsExactly("findAndModify");
		assertThat(during(() -> lease[0].extend(Duration.ofSeconds(30)))).containsExactly("update");
		assertThat(during(() -> provider.tryAcquire(request("third", LockMode.EXCLUSIVE)))).as("refused")
			.containsExactly("findAndModify", "findAndModify");
		assertThat(during(lease[0]::release)).containsExactly("update");
	}

	@Test
	void purgeReadsTheServersNowThenDeletesAndStopsAtTheReadOnAnEmptyCollection() {
		assertThat(during(() -> assertThat(provider.purge()).isZero())).as("empty collection")
			.containsExactly("aggregate");
		provider.tryAcquire(request("held", LockMode.EXCLUSIVE)).orElseThrow();
		assertThat(during(() -> assertThat(provider.purge()).isZero())).containsExactly("aggregate", "delete");
	}

	@Test
	void sharedGrantsAreOneCommandUnlessExpiredHoldersArePruned() {
		provider.tryAcquire(request("s1", LockMode.SHARED)).orElseThrow();
		Lease[] second = new Lease[1];
		assertThat(during(() -> second[0] = provider.tryAcquire(request("s2", LockMode.SHARED)).orElseThrow()))
			.containsExactly("findAndModify");
		assertThat(during(second[0]::release)).containsExactly("update");
	}

}
