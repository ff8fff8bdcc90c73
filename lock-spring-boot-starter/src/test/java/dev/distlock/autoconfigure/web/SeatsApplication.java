package dev.distlock.autoconfigure.web;

import java.util.Optional;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import dev.distlock.core.memory.InMemoryLockProvider;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.spring.DistributedLock;

import reactor.core.publisher.Mono;

/**
 * A whole Boot web application, servlet or reactive by {@code spring.main.web-application-type}, with locked
 * endpoints on a lock store that can be switched off.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(excludeName = { "org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration",
		"org.springframework.boot.mongodb.autoconfigure.MongoReactiveAutoConfiguration",
		"org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration",
		"org.springframework.boot.data.mongodb.autoconfigure.DataMongoReactiveAutoConfiguration",
		"org.springframework.boot.data.mongodb.autoconfigure.DataMongoRepositoriesAutoConfiguration",
		"org.springframework.boot.data.mongodb.autoconfigure.DataMongoReactiveRepositoriesAutoConfiguration",
		"org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
		"org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration",
		"org.springframework.boot.data.redis.autoconfigure.DataRedisRepositoriesAutoConfiguration" })
@Import(SeatsApplication.Seats.class)
class SeatsApplication {

	@Bean
	SwitchableStore lockProvider() {
		return new SwitchableStore();
	}

	@RestController
	static class Seats {

		@PostMapping("/seats/{id}")
		@DistributedLock(key = "'seat:' + #id")
		public String reserve(@PathVariable String id) {
			return "reserved " + id;
		}

		@PostMapping("/seats/{id}/hold")
		@DistributedLock(key = "'seat:' + #id")
		public Mono<String> hold(@PathVariable String id) {
			return Mono.just("held " + id);
		}

		// A typo in the key expression: String has length(), not lenght(). Startup cannot see it.
		@GetMapping("/orders/{sku}")
		@DistributedLock(key = "'order:' + #sku.lenght()")
		public String order(@PathVariable String sku) {
			return "ordered " + sku;
		}

		@GetMapping("/notes")
		@DistributedLock(key = "'note:' + #name")
		public String note(@RequestParam(required = false) @Nullable String name) {
			return "note " + name;
		}

	}

	/** The in-memory store, which fails every call while it is down, as an unreachable Redis would. */
	static final class SwitchableStore implements LockProvider {

		private final InMemoryLockProvider store = new InMemoryLockProvider();

		volatile boolean down;

		@Override
		public Optional<Lease> tryAcquire(LockRequest request) {
			if (down) {
				throw new IllegalStateException("Unable to connect to 10.0.0.5:6379");
			}
			return store.tryAcquire(request);
		}

		@Override
		public boolean isLocked(String key) {
			return store.isLocked(key);
		}

		@Override
		public String name() {
			return "switchable";
		}

	}

}
