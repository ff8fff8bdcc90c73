package dev.distlock.autoconfigure.web;

import java.time.Duration;
import java.util.Optional;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import dev.distlock.core.DistributedLockException;
import dev.distlock.core.InvalidLockKeyException;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.LockOperations;
import dev.distlock.core.LockTemplate;
import dev.distlock.spring.LockKeyEvaluationException;

/**
 * Turns lock errors into RFC 9457 problem details for Spring MVC and WebFlux: a lock not acquired is 409 Conflict (with
 * the key, attempts and wait), an unreachable lock store 503, an invalid key 400, a key expression that failed 500
 * naming the method. Every body names the key as the store holds it, the template's prefix included. Ordered last, so
 * the application's own {@code @ExceptionHandler} methods and advice win.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class LockExceptionHandler {

	private static final Log logger = LogFactory.getLog(LockExceptionHandler.class);

	private final LockOperations operations;

	/**
	 * A handler that finds a remaining lease for {@code Retry-After} among the template's held locks.
	 * @param template the application's template
	 */
	public LockExceptionHandler(LockTemplate template) {
		this.operations = new LockOperations(template);
	}

	/**
	 * 409 Conflict: the lock stayed held through every attempt. Contention is normal, so it is logged at debug.
	 * @param ex the error, naming the key
	 * @return the problem, with {@code Retry-After} when the lease left on the key is known
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> lockNotAcquired(LockAcquisitionException ex) {
		if (logger.isDebugEnabled()) {
			logger.debug("Answering 409 Conflict: " + ex.getMessage());
		}
		ProblemDetail problem = problem(HttpStatus.CONFLICT, String.valueOf(ex.getMessage()), ex);
		problem.setProperty("attempts", ex.attempts());
		problem.setProperty("waited", ex.waited().toString());
		ResponseEntity.BodyBuilder response = ResponseEntity.status(HttpStatus.CONFLICT);
		remainingLease(ex.key())
			.ifPresent(remaining -> response.header(HttpHeaders.RETRY_AFTER, Long.toString(seconds(remaining))));
		return response.body(problem);
	}

	/**
	 * 503 Service Unavailable: the lock store could not be asked. Logged at warn with its cause, which the response
	 * leaves out (it may name hosts and ports).
	 * @param ex the error, naming the store, the operation and the key
	 * @return the problem
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> lockStoreUnavailable(LockStoreException ex) {
		logger.warn("Answering 503 Service Unavailable: " + ex.getMessage(), ex.getCause());
		ProblemDetail problem = problem(HttpStatus.SERVICE_UNAVAILABLE, "The lock store could not be reached", ex);
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body(problem);
	}

	/**
	 * 400 Bad Request: the lock key built from the request was null, blank, too long or held control characters. The
	 * error's message, which may name the method and its key expression, is logged at debug and left out of the
	 * response, as Spring Boot leaves exception messages out of its error responses.
	 * @param ex the error, naming what is wrong with the key
	 * @return the problem
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> invalidLockKey(InvalidLockKeyException ex) {
		if (logger.isDebugEnabled()) {
			logger.debug("Answering 400 Bad Request: " + ex.getMessage());
		}
		ProblemDetail problem = problem(HttpStatus.BAD_REQUEST, "The lock key built from the request is not valid", ex);
		return ResponseEntity.status(HttpStatus.BAD_REQUEST).body(problem);
	}

	/**
	 * 500 Internal Server Error: a key expression failed for this call (a method missing on the argument, such as a
	 * typo, or one that threw). It is a fault in the application, not in the request, so it is logged at error with its
	 * cause; the body names the method and the expression, which are code, and leaves the cause out.
	 * @param ex the error, naming the method and the expression
	 * @return the problem
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> keyExpressionFailed(LockKeyEvaluationException ex) {
		logger.error("Answering 500 Internal Server Error: " + ex.getMessage(), ex.getCause());
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.INTERNAL_SERVER_ERROR,
				"The lock key expression of " + ex.method() + " failed");
		problem.setProperty("method", ex.method());
		problem.setProperty("expression", ex.expression());
		return ResponseEntity.status(HttpStatus.INTERNAL_SERVER_ERROR).body(problem);
	}

	private ProblemDetail problem(HttpStatus status, String detail, DistributedLockException ex) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
		if (ex.key() != null) {
			problem.setProperty("key", storeKey(ex));
		}
		return problem;
	}

	// One form in every body: the key as the store holds it. Errors from the store side carry it already; a key refused
	// before it was prefixed (built from the request, checked before the prefix went on) gets the prefix here.
	private String storeKey(DistributedLockException ex) {
		String key = String.valueOf(ex.key());
		String prefix = operations.template().keyPrefix();
		return (ex instanceof InvalidLockKeyException && !key.startsWith(prefix)) ? prefix + key : key;
	}

	// The store does not say how long the holder has left when it refuses a lock, so the lease is known only when the
	// holder is this instance: then the latest end among its holds on the key, after which they have all run out.
	private Optional<Duration> remainingLease(@Nullable String key) {
		if (key == null) {
			return Optional.empty();
		}
		return operations.heldLocks()
			.stream()
			.filter(handle -> handle.key().equals(key))
			.map(LockHandle::remaining)
			.filter(remaining -> !remaining.isZero() && !remaining.isNegative())
			.max(Duration::compareTo);
	}

	// Retry-After takes whole seconds: round up, so a client that waits that long does not come back early.
	private static long seconds(Duration remaining) {
		long seconds = remaining.toSeconds();
		return (remaining.equals(Duration.ofSeconds(seconds))) ? Math.max(1, seconds) : seconds + 1;
	}

}
