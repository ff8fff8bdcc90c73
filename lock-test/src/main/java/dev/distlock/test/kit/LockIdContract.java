package dev.distlock.test.kit;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import dev.distlock.core.LockGroup;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockMode;
import dev.distlock.core.LockOperations;
import dev.distlock.core.LockOptions;
import dev.distlock.core.LockReleaseException;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.LockIdSupport;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRenewal;
import dev.distlock.core.spi.OperatorSupport;
import dev.distlock.core.spi.StatusQuery;

import static dev.distlock.test.kit.LockProviderContractTest.LONG;
import static dev.distlock.test.kit.LockProviderContractTest.MEDIUM;
import static dev.distlock.test.kit.LockProviderContractTest.PAST_MEDIUM;
import static dev.distlock.test.kit.LockProviderContractTest.PAST_SHORT;
import static dev.distlock.test.kit.LockProviderContractTest.SHORT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Lock IDs as square/mongo-lock has them: locks added to an ID over time, unlocked and renewed by ID from another
 * process, one shared lock per ID and key, locks without expiry, and the status filters. Part of
 * {@link LockProviderContractTest}; every test is skipped, naming {@link LockIdSupport}, on a provider without it.
 */
public interface LockIdContract {

	/** The template of the test, on the kit's prefix. */
	LockTemplate kitTemplate();

	/** The provider of the test. */
	LockProvider kitProvider();

	private List<LockInfo> kitStatus(StatusQuery query) {
		return new LockOperations(kitTemplate()).status(query);
	}

	/** The random key prefix of the test. */
	String kitPrefix();

	/** A template on a second provider instance on the same store: another process. */
	LockTemplate anotherProcess();

	/** Whether plain exclusive locks carry fencing tokens ({@link LockProviderContractTest#fencingTokens()}). */
	boolean fencingTokens();

	/** Skips the test, saying why, unless the provider has lock IDs. */
	default void assumeLockIds() {
		Assumptions.assumeTrue(kitProvider() instanceof LockIdSupport, () -> "provider '" + kitProvider().name()
				+ "' does not implement LockIdSupport (lock IDs, unlock and renew by ID, locks without expiry)");
	}

	private static LockOptions lease(Duration timeout) {
		return LockOptions.builder().timeout(timeout).build();
	}

	@Test
	default void aGroupAddsLocksToItsIdOverTimeAndAnotherProcessUnlocksThemNewestFirst() {
		assumeLockIds();
		String id = LockTemplate.newLockId();
		String prefix = kitPrefix();
		LockGroup group = kitTemplate().group(id);
		LockHandle exclusive = group.lock("r1", lease(LONG));
		LockHandle unlimited = group.lockShared("r2", LockOptions.UNLIMITED, lease(LONG));
		LockHandle shared = group.lock("r3", LockOptions.builder().timeout(LONG).shared(2).build());
		assertThat(group.handles()).containsExactly(exclusive, unlimited, shared);
		assertThat(group.handles()).extracting(LockHandle::groupId).containsOnly(id);

		LockTemplate other = anotherProcess();
		assertThat(other.tryAcquire("r1", lease(LONG))).isEmpty();
		LockHandle otherReader = other.acquire("r2", LockOptions.builder().timeout(LONG).shared(-1).build());
		assertThat(new LockOperations(other).status(StatusQuery.held().withKeyPrefix(prefix).withLockId(id)))
			.extracting(LockInfo::key, LockInfo::lockId)
			.containsExactly(org.assertj.core.groups.Tuple.tuple(prefix + "r1", id),
					org.assertj.core.groups.Tuple.tuple(prefix + "r2", id),
					org.assertj.core.groups.Tuple.tuple(prefix + "r3", id));

		List<LockInfo> released = other.unlock(id);
		assertThat(released).extracting(LockInfo::key).containsExactly(prefix + "r3", prefix + "r2", prefix + "r1");
		assertThat(released).extracting(LockInfo::mode)
			.containsExactly(LockMode.SHARED, LockMode.SHARED, LockMode.EXCLUSIVE);
		assertThat(released).extracting(LockInfo::lockId).containsOnly(id);
		assertThat(released).extracting(LockInfo::owner).containsOnly("contract-kit");
		assertThat(other.isLocked("r1") || other.isLocked("r3")).isFalse();
		assertThat(other.isLocked("r2")).as("the other process's own reader, without the ID, stays").isTrue();
		assertThat(otherReader.isHeld()).isTrue();

		// Safe to retry, from anywhere.
		assertThat(other.unlock(id)).isEmpty();
		assertThat(kitTemplate().unlock(id)).isEmpty();
		// The first process's handles find their locks gone.
		assertThatThrownBy(exclusive::release).isInstanceOf(LockReleaseException.class);
		assertThat(other.acquire("r1", lease(LONG)).isHeld()).isTrue();
	}

	@Test
	default void unlockThroughTheOwningTemplateLeavesItsHandlesReleased() {
		assumeLockIds();
		String id = LockTemplate.newLockId();
		LockGroup group = kitTemplate().group(id);
		LockHandle first = group.lock("a", lease(LONG));
		LockHandle second = group.lockShared("b", 3, lease(LONG));

		assertThat(group.unlock()).extracting(LockInfo::key)
			.containsExactly(kitPrefix() + "b", kitPrefix() + "a");
		assertThat(first.isHeld()).isFalse();
		assertThat(second.isHeld()).isFalse();
		assertThat(new LockOperations(kitTemplate()).heldLocks()).isEmpty();
		group.close(); // already released by ID: not an error
		assertThat(kitTemplate().isLocked("a") || kitTemplate().isLocked("b")).isFalse();
	}

	@Test
	default void anotherProcessRenewsEveryLockOfTheIdPastItsLease() throws Exception {
		assumeLockIds();
		String id = LockTemplate.newLockId();
		LockTemplate other = anotherProcess(); // opened first: its connection does not eat into the lease
		LockGroup group = kitTemplate().group(id);
		group.lock("a", lease(MEDIUM));
		group.lockShared("b", 2, lease(MEDIUM));

		LockRenewal renewal = other.renew(id, LONG);
		assertThat(renewal.allRenewed()).isTrue();
		assertThat(renewal.expired()).isEmpty();
		assertThat(renewal.renewed()).extracting(LockInfo::key)
			.containsExactlyInAnyOrder(kitPrefix() + "a", kitPrefix() + "b");
		assertThat(renewal.renewed()).extracting(LockInfo::ttl).containsOnly(LONG);
		assertThat(renewal.renewed()).allSatisfy(info -> {
			assertThat(info.lockId()).isEqualTo(id);
			assertThat(info.renewedAt()).isNotNull();
			assertThat(info.remaining()).isGreaterThan(Duration.ofSeconds(20));
		});
		Thread.sleep(PAST_MEDIUM.toMillis());
		assertThat(kitTemplate().isLocked("a") && kitTemplate().isLocked("b")).isTrue();
		assertThat(other.tryAcquire("a", lease(LONG))).isEmpty();
		assertThat(group.unlock()).hasSize(2);
	}

	@Test
	default void renewSaysWhichLockOfTheIdHadAlreadyExpired() throws Exception {
		assumeLockIds();
		String id = LockTemplate.newLockId();
		LockGroup group = kitTemplate().group(id);
		group.lock("short", lease(SHORT));
		group.lock("long", lease(LONG));
		Thread.sleep(PAST_SHORT.toMillis());

		LockRenewal renewal = anotherProcess().renew(id, LONG);
		assertThat(renewal.allRenewed()).isFalse();
		assertThat(renewal.renewed()).extracting(LockInfo::key).containsExactly(kitPrefix() + "long");
		assertThat(renewal.expired()).extracting(LockInfo::key).containsExactly(kitPrefix() + "short");
		assertThat(renewal.missing(List.of(kitPrefix() + "short", kitPrefix() + "long")))
			.containsExactly(kitPrefix() + "short");
		assertThat(kitTemplate().isLocked("short")).isFalse();
		// Unlock releases what was held and clears the expired record: nothing is left to report.
		assertThat(anotherProcess().unlock(id)).extracting(LockInfo::key).containsExactly(kitPrefix() + "long");
		assertThat(kitTemplate().renew(id, LONG).renewed()).isEmpty();
		assertThat(kitTemplate().renew(id, LONG).expired()).isEmpty();
	}

	@Test
	default void unlockAndRenewByIdLeaveAloneWhoeverHoldsAKeyAfterTheIdsLockThereEnded() throws Exception {
		assumeLockIds();
		String id = LockTemplate.newLockId();
		String prefix = kitPrefix();
		LockGroup group = kitTemplate().group(id);
		LockHandle released = group.lock("released", lease(LONG));
		LockHandle expired = group.lock("expired", lease(SHORT));
		LockHandle sharedReleased = group.lockShared("shared", 2, lease(LONG));
		group.lockShared("kept", 2, lease(LONG));
		group.lock("again", lease(LONG)).release();
		LockHandle again = group.lock("again", lease(LONG));
		released.release();
		sharedReleased.release();
		Thread.sleep(PAST_SHORT.toMillis());
		assertThat(expired.isHeld()).isFalse();

		// The keys change hands: without an ID, under another ID, and a reader without an ID. Their lease is shorter
		// than the renewal's below, so a renewal that reached them would show, and long enough to outlast the test.
		LockTemplate other = anotherProcess();
		Duration next = LONG.dividedBy(2);
		LockHandle plainNext = other.acquire("released", lease(next));
		LockHandle otherIdNext = other.group(LockTemplate.newLockId()).lock("expired", lease(next));
		LockHandle readerNext = other.acquire("shared", LockOptions.builder().timeout(next).shared(2).build());

		// Renewing the ID reaches only the locks it still holds; the next holders keep their own lease.
		LockRenewal renewal = other.renew(id, LONG);
		assertThat(renewal.renewed()).extracting(LockInfo::key)
			.containsExactlyInAnyOrder(prefix + "kept", prefix + "again");
		StatusQuery held = StatusQuery.held().withKeyPrefix(prefix);
		List<LockInfo> nextHolders = kitStatus(held).stream().filter(info -> !id.equals(info.lockId())).toList();
		assertThat(nextHolders).extracting(LockInfo::key)
			.containsExactlyInAnyOrder(prefix + "expired", prefix + "released", prefix + "shared");
		assertThat(nextHolders).allSatisfy(info -> assertThat(info.remaining()).isLessThanOrEqualTo(next));

		// Unlocking it releases those two, each once, and nothing of the next holders.
		assertThat(other.unlock(id)).extracting(LockInfo::key)
			.containsExactlyInAnyOrder(prefix + "kept", prefix + "again");
		assertThat(kitTemplate().isLocked("again") || kitTemplate().isLocked("kept")).isFalse();
		assertThatThrownBy(again::release).isInstanceOf(LockReleaseException.class);
		assertThat(List.of(plainNext, otherIdNext, readerNext)).allMatch(LockHandle::isHeld);
		assertThat(kitTemplate().tryAcquire("released", lease(LONG))).isEmpty();
		assertThat(kitTemplate().tryAcquire("expired", lease(LONG))).isEmpty();
		assertThat(kitTemplate().tryAcquire("shared", lease(LONG))).isEmpty();
		assertThat(kitStatus(held.withLockId(id))).isEmpty();
		assertThat(other.unlock(id)).isEmpty();
		plainNext.release();
		otherIdNext.release();
		readerNext.release();
		assertThat(kitStatus(held)).isEmpty();
	}

	@Test
	default void aKeyCannotHoldTwoSharedLocksOfOneId() {
		assumeLockIds();
		String id = LockTemplate.newLockId();
		LockOptions shared = LockOptions.builder().timeout(LONG).shared(5).build();
		LockHandle first = kitTemplate().group(id).lock("s", shared);
		assertThat(kitTemplate().group(id).tryLock("s", shared)).isEmpty();
		assertThat(anotherProcess().group(id).tryLock("s", shared)).isEmpty();
		// Another ID, or no ID, shares the key as usual; the same ID on another key is fine.
		assertThat(anotherProcess().group(LockTemplate.newLockId()).tryLock("s", shared)).isPresent();
		assertThat(kitTemplate().tryAcquire("s", shared)).isPresent();
		assertThat(kitTemplate().group(id).tryLock("t", shared)).isPresent();
		first.release();
		assertThat(kitTemplate().group(id).tryLock("s", shared)).isPresent();
	}

	@Test
	default void aLockWithoutExpiryOutlivesAnyLeaseShowsNoTtlAndEndsByIdHandleOrForce() throws Exception {
		assumeLockIds();
		String id = LockTemplate.newLockId();
		LockOptions forever = LockOptions.builder().timeout(SHORT).noExpiry().build();
		LockHandle byId = kitTemplate().group(id).lock("n1", forever);
		LockHandle byHandle = kitTemplate().acquire("n2", forever);
		LockHandle byForce = anotherProcess().acquire("n3", forever);
		Thread.sleep(PAST_SHORT.toMillis());

		assertThat(List.of(byId, byHandle, byForce)).allMatch(LockHandle::isHeld);
		assertThat(byId.remaining()).isEqualTo(LockInfo.NO_EXPIRY);
		assertThat(anotherProcess().tryAcquire("n1", lease(LONG))).isEmpty();
		List<LockInfo> infos = kitStatus(StatusQuery.held().withKeyPrefix(kitPrefix()));
		assertThat(infos).extracting(LockInfo::key).containsExactly(kitPrefix() + "n1", kitPrefix() + "n2",
				kitPrefix() + "n3");
		assertThat(infos).allSatisfy(info -> {
			assertThat(info.expires()).isFalse();
			assertThat(info.ttl()).isNull();
			assertThat(info.ttlText()).isEqualTo("none");
			assertThat(info.remaining()).isEqualTo(LockInfo.NO_EXPIRY);
			assertThat(info.toString()).contains("ttl=none");
		});
		assertThat(kitStatus(StatusQuery.held().withKeyPrefix(kitPrefix()).withTtlBelow(LONG))).isEmpty();
		assertThat(kitStatus(StatusQuery.held().withKeyPrefix(kitPrefix()).withTtlAtLeast(LONG)))
			.hasSize(3);

		long before = byId.fencingToken();
		assertThat(anotherProcess().unlock(id)).extracting(LockInfo::key).containsExactly(kitPrefix() + "n1");
		byHandle.release();
		assertThat(((OperatorSupport) kitProvider()).forceRelease(kitPrefix() + "n3")).isTrue();
		assertThat(kitTemplate().isLocked("n1") || kitTemplate().isLocked("n2") || kitTemplate().isLocked("n3"))
			.isFalse();
		long after = anotherProcess().acquire("n1", lease(LONG)).fencingToken();
		if (fencingTokens()) {
			assertThat(after).isGreaterThan(before);
		}
		else {
			assertThat(after).as("a plain lock of a store without fencing tokens").isZero();
		}
	}

	@Test
	default void renewGivesALockWithoutExpiryALease() throws Exception {
		assumeLockIds();
		String id = LockTemplate.newLockId();
		LockHandle handle = kitTemplate().group(id).lock("n", LockOptions.noExpiry());
		// Through the holder's own template, so its handle counts the new lease too (another process's renewal
		// could not tell it).
		LockRenewal renewal = kitTemplate().renew(id, SHORT);
		assertThat(renewal.renewed()).extracting(LockInfo::ttl).containsExactly(SHORT);
		assertThat(handle.remaining()).isLessThanOrEqualTo(SHORT);
		Thread.sleep(PAST_SHORT.toMillis());
		assertThat(kitTemplate().isLocked("n")).isFalse();
		assertThat(handle.isHeld()).isFalse();
	}

	@Test
	default void statusFiltersByLockIdCreationTimeAndTtl() throws Exception {
		assumeLockIds();
		String first = LockTemplate.newLockId();
		String second = LockTemplate.newLockId();
		String prefix = kitPrefix();
		LockTemplate other = anotherProcess();
		kitTemplate().group(first).lock("f1", lease(LONG));
		Thread.sleep(50); // distinct creation times on the store's clock
		other.group(second).lock("f2", lease(Duration.ofSeconds(10)));
		StatusQuery mine = StatusQuery.held().withKeyPrefix(prefix);
		List<LockInfo> both = kitStatus(mine);
		assertThat(both).extracting(LockInfo::key).containsExactly(prefix + "f1", prefix + "f2");
		Instant created1 = both.get(0).createdAt();
		Instant created2 = both.get(1).createdAt();
		assertThat(created1).isNotNull().isBefore(created2);
		assertThat(both.get(1).owner()).isEqualTo("other-process");

		assertThat(kitStatus(mine.withLockId(first))).extracting(LockInfo::key).containsExactly(prefix + "f1");
		assertThat(kitStatus(mine.withLockId(LockTemplate.newLockId()))).isEmpty();
		assertThat(kitStatus(mine.withCreatedBefore(created2))).extracting(LockInfo::key)
			.containsExactly(prefix + "f1");
		assertThat(kitStatus(mine.withCreatedAfter(created1))).extracting(LockInfo::key)
			.containsExactly(prefix + "f2");
		assertThat(kitStatus(mine.withTtlAtLeast(Duration.ofSeconds(20)))).extracting(LockInfo::key)
			.containsExactly(prefix + "f1");
		assertThat(kitStatus(mine.withTtlBelow(Duration.ofSeconds(20)))).extracting(LockInfo::key)
			.containsExactly(prefix + "f2");
		assertThat(kitStatus(mine.withLockId(second).withCreatedBefore(created2))).isEmpty();
	}

	@Test
	default void aGroupTakenAtOnceIsStoredUnderItsIdAndCanGrow() {
		assumeLockIds();
		LockGroup group = kitTemplate().acquireAll(List.of("y", "x"), lease(LONG));
		group.lock("z", lease(LONG));
		assertThat(group.handles()).extracting(LockHandle::key)
			.containsExactly(kitPrefix() + "x", kitPrefix() + "y", kitPrefix() + "z");
		assertThat(anotherProcess().unlock(group.id())).extracting(LockInfo::key)
			.containsExactly(kitPrefix() + "z", kitPrefix() + "y", kitPrefix() + "x");
		assertThat(kitTemplate().isLocked("x") || kitTemplate().isLocked("y") || kitTemplate().isLocked("z")).isFalse();
	}

}
