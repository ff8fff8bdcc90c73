package dev.distlock.mongo;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.distlock.core.InvalidLockOptionException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockMode;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockStoreException;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Where the Mongo provider meets the Java runtime (issue 11): durations that would overflow, the caller's interrupt
 * around releases, and the same owner token sent twice. Subclasses supply the server: mongo-java-server in-process,
 * or a real one named by {@code MONGODB_URI}. Every test asserts what the store holds afterwards.
 */
abstract class AbstractMongoProviderSeamsTest extends AbstractMongoServerTest {

	protected static final OwnerDetails OWNER = new OwnerDetails("seams-test", "test-host");

	protected static final Duration LONG = Duration.ofSeconds(30);

	private static final Duration[] HUGE = { Duration.ofMillis(Long.MAX_VALUE), Duration.ofSeconds(Long.MAX_VALUE),
			Duration.ofDays(366) };

	@Override
	protected OwnerDetails owner() {
		return OWNER;
	}

	@AfterEach
	void clearInterrupt() {
		Thread.interrupted(); // never leak a flag into the next test; runs before the base class closes everything
	}

	protected static LockRequest request(String key, String token, Duration lease, LockMode mode, int maxConcurrent) {
		return new LockRequest(key, token, lease, mode, maxConcurrent, OWNER);
	}

	protected static LockRequest exclusive(String key, String token, Duration lease) {
		return request(key, token, lease, LockMode.EXCLUSIVE, 1);
	}

	protected static String token() {
		return UUID.randomUUID().toString();
	}

	protected Document document(String key) {
		return server.template().getCollection(MongoLockSettings.DEFAULT_COLLECTION).find(new Document("_id", key))
			.first();
	}

	/** Whether anyone but the test's holder could take the key now. */
	protected boolean grantableToAnother(String key) {
		Optional<Lease> other = provider.tryAcquire(exclusive(key, token(), LONG));
		other.ifPresent(Lease::release);
		return other.isPresent();
	}

	// --- huge durations (issue 11, case 4) ---

	@Test
	void anExtendBeyond365DaysIsRejectedNamingTheLeaseBeforeAnythingIsSent() {
		String token = token();
		Lease lease = provider.tryAcquire(exclusive("huge", token, LONG)).orElseThrow();
		for (Duration huge : HUGE) {
			assertThatThrownBy(() -> lease.extend(huge)).as("extend by %s", huge)
				.isInstanceOfSatisfying(InvalidLockOptionException.class,
						ex -> assertThat(ex.option()).isEqualTo("lease"))
				.hasMessageContaining("365 days");
		}
		Document document = document("huge");
		assertThat(document.getString("token")).isEqualTo(token);
		assertThat(document.getLong("leaseMs")).isEqualTo(LONG.toMillis());
		assertThat(document.getLong("seq")).isOne();
		assertThat(grantableToAnother("huge")).isFalse();
		assertThat(provider.isLocked("huge")).isTrue();
		assertThat(lease.release()).isTrue();
	}

	@Test
	void anAcquireWithAHugeOrEmptyLeaseIsRejectedNamingTheTimeoutAndWritesNothing() {
		for (Duration bad : new Duration[] { Duration.ofMillis(Long.MAX_VALUE), Duration.ofDays(366), Duration.ZERO,
				Duration.ofSeconds(-1) }) {
			assertThatThrownBy(() -> provider.tryAcquire(exclusive("bad", token(), bad))).as("lease %s", bad)
				.isInstanceOfSatisfying(InvalidLockOptionException.class,
						ex -> assertThat(ex.option()).isEqualTo("timeout"));
		}
		assertThat(document("bad")).isNull();
	}

	@Test
	void aHandleExtendedByAHugeDurationStaysHeldByItsHolderAndNobodyElseIsGrantedIt() {
		LockHandle handle = template.acquire("huge-handle", LockOptions.builder().timeout(LONG).build());
		// The handle may wrap the provider's error (today: LockExtendException) or check first itself (core's bound).
		assertThatThrownBy(() -> handle.extend(Duration.ofMillis(Long.MAX_VALUE)))
			.satisfiesAnyOf(ex -> assertThat(ex).isInstanceOf(InvalidLockOptionException.class),
					ex -> assertThat(ex).hasCauseInstanceOf(InvalidLockOptionException.class));
		assertThat(handle.isHeld()).isTrue();
		assertThat(grantableToAnother("huge-handle")).isFalse();
		assertThat(LockTemplate.builder(provider).build().tryAcquire("huge-handle",
				LockOptions.builder().timeout(LONG).build())).isEmpty();
		assertThat(document("huge-handle").getString("token")).isEqualTo(handle.token());
		handle.release();
		assertThat(provider.isLocked("huge-handle")).isFalse();
	}

	@Test
	void aSubMillisecondExtensionIsRoundedUpToOneMillisecondNotToNone() {
		Lease lease = provider.tryAcquire(exclusive("tiny", token(), LONG)).orElseThrow();
		assertThat(lease.extend(Duration.ofNanos(300_000))).isTrue();
		assertThat(document("tiny").getLong("leaseMs")).isOne();
	}

	// --- interrupts around releases (issue 11, cases 5 and 7) ---

	@Test
	void aReleaseWithTheInterruptFlagSetStillFreesTheLockAndLeavesTheFlagSet() {
		Lease lease = provider.tryAcquire(exclusive("intr", token(), LONG)).orElseThrow();
		boolean released;
		boolean flagAfter;
		Thread.currentThread().interrupt();
		try {
			released = lease.release();
		}
		finally {
			flagAfter = Thread.interrupted();
		}
		assertThat(released).isTrue();
		assertThat(flagAfter).as("interrupt flag restored").isTrue();
		assertThat(document("intr").containsKey("token")).isFalse();
		assertThat(provider.isLocked("intr")).isFalse();
	}

	@Test
	void aHandleReleasedFromAnInterruptedThreadFreesTheLockAndLeavesTheFlagSet() {
		LockHandle handle = template.acquire("intr-handle", LockOptions.builder().timeout(LONG).build());
		boolean flagAfter;
		Thread.currentThread().interrupt();
		try {
			handle.release();
		}
		finally {
			flagAfter = Thread.interrupted();
		}
		assertThat(flagAfter).isTrue();
		assertThat(provider.isLocked("intr-handle")).isFalse();
		assertThat(template.tryAcquire("intr-handle", LockOptions.builder().timeout(LONG).build())).isPresent();
	}

	@Test
	void aReleaseWithAMinimumHoldFromAnInterruptedThreadShortensTheLeaseAndLeavesTheFlagSet() {
		// A release before the minimum hold is an extend to the rest of that hold: it must not be defeated either.
		LockHandle handle = template.acquire("intr-hold",
				LockOptions.builder().timeout(LONG).holdAtLeast(Duration.ofSeconds(5)).build());
		boolean flagAfter;
		Thread.currentThread().interrupt();
		try {
			handle.release();
		}
		finally {
			flagAfter = Thread.interrupted();
		}
		assertThat(flagAfter).isTrue();
		assertThat(document("intr-hold").getLong("leaseMs")).isLessThanOrEqualTo(5_000L);
	}

	@Test
	void anAcquireWithTheInterruptFlagSetFailsTypedLeavesNothingHeldAndKeepsTheFlag() {
		Optional<Lease> lease;
		Throwable error = null;
		boolean flagAfter;
		Thread.currentThread().interrupt();
		try {
			lease = provider.tryAcquire(exclusive("intr-acquire", token(), LONG));
		}
		catch (LockStoreException ex) {
			lease = Optional.empty();
			error = ex;
		}
		finally {
			flagAfter = Thread.interrupted();
		}
		assertThat(flagAfter).isTrue();
		if (lease.isPresent()) {
			assertThat(lease.get().release()).isTrue(); // granted and told: the caller holds it, nothing stranded
		}
		else {
			assertThat(error).isInstanceOf(LockStoreException.class).hasMessageContaining("'intr-acquire'");
		}
		assertThat(provider.isLocked("intr-acquire")).isFalse();
	}

	// --- the same owner token sent twice (issue 11, case 9) ---

	@Test
	void anAcquireRepeatedWithTheSameTokenWhileHeldAnswersTheSameFencingTokenAndIssuesNone() {
		String token = token();
		Lease first = provider.tryAcquire(exclusive("again", token, LONG)).orElseThrow();
		Optional<Lease> again = provider.tryAcquire(exclusive("again", token, LONG));
		assertThat(again).as("held by me, not by someone else").isPresent();
		assertThat(again.get().fencingToken()).as("a replay answers as the first call did")
			.isEqualTo(first.fencingToken());
		Optional<Lease> third = provider.tryAcquire(exclusive("again", token, LONG));
		assertThat(third.orElseThrow().fencingToken()).isEqualTo(first.fencingToken());
		Document document = document("again");
		assertThat(document.getString("token")).isEqualTo(token);
		assertThat(document.getLong("seq")).as("no grant issued by the replays").isOne();
		assertThat(grantableToAnother("again")).isFalse();
		assertThat(again.get().release()).isTrue();
		assertThat(provider.isLocked("again")).isFalse();
		Lease next = provider.tryAcquire(exclusive("again", token(), LONG)).orElseThrow();
		assertThat(next.fencingToken()).as("the next grant's token").isEqualTo(first.fencingToken() + 1);
		next.release();
	}

	@Test
	void aSharedAcquireRepeatedWithTheSameTokenTakesNoSecondSlot() {
		String token = token();
		provider.tryAcquire(request("shared-again", token, LONG, LockMode.SHARED, 1)).orElseThrow();
		assertThat(provider.tryAcquire(request("shared-again", token, LONG, LockMode.SHARED, 1))).isPresent();
		assertThat(document("shared-again").get("shared", Document.class)).hasSize(1);
		assertThat(provider.tryAcquire(request("shared-again", token(), LONG, LockMode.SHARED, 1))).isEmpty();
		assertThat(grantableToAnother("shared-again")).isFalse();
	}

	@Test
	void aSharedAcquireRepeatedWithTheSameTokenAnswersItsOwnFencingTokenNotAnotherReaders() {
		String r1 = token();
		String r2 = token();
		Lease first = provider.tryAcquire(request("shared-fence", r1, LONG, LockMode.SHARED, 3)).orElseThrow();
		Lease second = provider.tryAcquire(request("shared-fence", r2, LONG, LockMode.SHARED, 3)).orElseThrow();
		assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
		Lease replay = provider.tryAcquire(request("shared-fence", r1, LONG, LockMode.SHARED, 3)).orElseThrow();
		assertThat(replay.fencingToken()).as("the first reader's own token, not the key's newest")
			.isEqualTo(first.fencingToken());
		assertThat(provider.tryAcquire(request("shared-fence", r2, LONG, LockMode.SHARED, 3)).orElseThrow()
			.fencingToken()).isEqualTo(second.fencingToken());
		Document document = document("shared-fence");
		assertThat(document.getLong("seq")).as("no grant issued by the replays").isEqualTo(2L);
		assertThat(document.get("shared", Document.class)).hasSize(2);
		assertThat(first.release()).isTrue();
		assertThat(second.release()).isTrue();
		assertThat(provider.isLocked("shared-fence")).isFalse();
	}

	@Test
	void aGrantToATokenWhoseEarlierGrantWasReleasedReadsAsLostOnceTakenAwayNotAsReleased() {
		String token = token();
		Lease first = provider.tryAcquire(exclusive("regranted", token, LONG)).orElseThrow();
		assertThat(first.release()).isTrue();
		// the same acquire arriving again after its release (a late replay): a new grant, with a new fencing token
		Lease again = provider.tryAcquire(exclusive("regranted", token, LONG)).orElseThrow();
		assertThat(again.fencingToken()).isGreaterThan(first.fencingToken());
		assertThat(provider.forceRelease("regranted")).isTrue();
		Lease other = provider.tryAcquire(exclusive("regranted", token(), LONG)).orElseThrow();
		assertThat(again.release()).as("that grant was taken away: lost, whatever its token released before")
			.isFalse();
		assertThat(document("regranted").getString("token")).as("the new holder keeps it").isNotEqualTo(token);
		assertThat(other.release()).isTrue();
	}

	@Test
	void anExtendRepeatedWithTheSameTokenIsIdempotent() {
		String token = token();
		Lease lease = provider.tryAcquire(exclusive("ext-again", token, LONG)).orElseThrow();
		assertThat(lease.extend(Duration.ofSeconds(20))).isTrue();
		assertThat(lease.extend(Duration.ofSeconds(20))).isTrue();
		Document document = document("ext-again");
		assertThat(document.getLong("leaseMs")).isEqualTo(20_000L);
		assertThat(document.getString("token")).isEqualTo(token);
		assertThat(document.getLong("seq")).isOne();
		assertThat(grantableToAnother("ext-again")).isFalse();
	}

	@Test
	void aReleaseRepeatedAfterAnotherHolderWasGrantedLeavesThatHolder() {
		Lease first = provider.tryAcquire(exclusive("rel-taken", token(), LONG)).orElseThrow();
		assertThat(first.release()).isTrue();
		String next = token();
		Lease second = provider.tryAcquire(exclusive("rel-taken", next, LONG)).orElseThrow();
		first.release(); // answers as its first run did (idempotent per token) and touches nothing
		assertThat(document("rel-taken").getString("token")).isEqualTo(next);
		assertThat(grantableToAnother("rel-taken")).isFalse();
		assertThat(second.release()).isTrue();
	}

}
