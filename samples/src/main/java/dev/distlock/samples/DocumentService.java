package dev.distlock.samples;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.stereotype.Service;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockTemplate;

/**
 * Writes documents under a lock taken with {@link LockTemplate} and try-with-resources, passing the fencing token to a
 * store that refuses writes carrying a smaller token than it has seen: a holder whose lock expired mid-write (a long
 * GC pause) cannot overwrite a newer holder's data.
 */
@Service
public class DocumentService {

	private static final LockOptions options = LockOptions.builder().waitUpTo(Duration.ofSeconds(5)).build();

	private final LockTemplate locks;

	private final Map<String, Document> store = new ConcurrentHashMap<>();

	/**
	 * A service taking locks through the template.
	 */
	public DocumentService(LockTemplate locks) {
		this.locks = locks;
	}

	/**
	 * Writes the text under the document's lock.
	 */
	public Document write(String id, String text) {
		try (LockHandle lock = locks.acquire("document:" + id, options)) {
			return writeFenced(id, text, lock.fencingToken());
		}
	}

	/**
	 * The stored document, if any.
	 */
	public Optional<Document> read(String id) {
		return Optional.ofNullable(store.get(id));
	}

	/**
	 * What a write carrying the token does at the store: accepted only if no newer holder has written.
	 * @throws StaleTokenException if a write with a larger token came first
	 */
	public Document writeFenced(String id, String text, long fencingToken) {
		return store.compute(id, (key, current) -> {
			if (current != null && fencingToken < current.fencingToken()) {
				throw new StaleTokenException(
						"Refused: token " + fencingToken + " is older than " + current.fencingToken());
			}
			return new Document(id, text, fencingToken);
		});
	}

	/**
	 * A stored document.
	 * @param id the id
	 * @param text the text
	 * @param fencingToken the token of the write that stored it
	 */
	public record Document(String id, String text, long fencingToken) {
	}

	/**
	 * A write carried a token older than the store has seen.
	 */
	public static class StaleTokenException extends RuntimeException {

		StaleTokenException(String message) {
			super(message);
		}

	}

}
