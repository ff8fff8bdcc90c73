package dev.distlock.test.kit;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.distlock.core.LockMode;
import dev.distlock.core.OwnerDetails;
import dev.distlock.core.spi.Lease;
import dev.distlock.core.spi.LockIdSupport;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.core.spi.LockRenewal;
import dev.distlock.core.spi.LockRequest;
import dev.distlock.test.kit.StoreRecords.StoreRecord;

/**
 * A model-based test of the store protocol, below {@link dev.distlock.core.LockTemplate}: seeded random sequences of
 * SPI calls from several owners on two provider instances (exclusive and shared acquire, release, extend, unlock and
 * renew by lock ID, a replay of an earlier command with the same owner token, a call whose reply is discarded, time
 * passing through short leases), each checked against a reference model: the store grants what the model says must
 * be granted and refuses what must be refused, at most one exclusive holder or {@link #MAX_CONCURRENT} shared ones,
 * fencing tokens strictly increasing per key, a replay answering as the first call did, and after every step no
 * record immortal unless a live lock without expiry explains it ({@link StoreRecords}).
 * <p>Time never has to be quiet: a short lease (1 to 30 ms) is "maybe held" from its grant until its reply time plus
 * the lease plus {@link #EXPIRY_MARGIN}, where either answer is accepted; only after that is it "expired". Long
 * leases ({@link #LONG_LEASE}) cannot run out during a run. A failure names the seed (rerun with
 * {@code -Ddistlock.model.seed=<seed>}) and the steps that led to it.
 * <p>A store module extends this class with {@link #createProvider()} and {@link #storeRecords()}.
 */
@Timeout(value = 240, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
public abstract class StoreProtocolModelTest {

	/** The shared limit of every shared request. */
	protected static final int MAX_CONCURRENT = 2;

	/** The seed the build's runs start from unless told otherwise (see {@link #randomProtocolRunsMatchTheModel}). */
	protected static final long PINNED_SEED = 20261125L;

	/** A lease no run outlives. */
	protected static final Duration LONG_LEASE = Duration.ofMinutes(10);

	/** How long after its reply plus its lease a short lease is taken as expired in the store. */
	protected static final Duration EXPIRY_MARGIN = Duration.ofMillis(150);

	private static final int OWNERS = 3;

	private static final int HISTORY_SHOWN = 60;

	private final List<LockProvider> providers = new ArrayList<>();

	private String marker = "";

	private List<String> keys = List.of();

	private List<String> lockIds = List.of();

	private final List<Holding> holdings = new ArrayList<>();

	private final Map<String, Long> lastFence = new HashMap<>();

	private final Map<String, Integer> versions = new HashMap<>();

	private final List<Call> calls = new ArrayList<>();

	private final Deque<Call> lostReplies = new ArrayDeque<>();

	private final Deque<String> history = new ArrayDeque<>();

	private Random random = new Random();

	private int step;

	/**
	 * A provider on the store under test; called twice per run, for two application instances.
	 */
	protected abstract LockProvider createProvider();

	/**
	 * Closes what {@link #createProvider()} opened.
	 */
	protected void destroyProvider(LockProvider provider) {
	}

	/**
	 * The store's raw records for the leftover check after every step.
	 */
	protected abstract StoreRecords storeRecords();

	/**
	 * Whether the store can receive one acquire twice (a client replaying a command after a reconnect). A store
	 * without a network never does and may refuse a second acquire with the same owner token; the model then replays
	 * only releases and extends there.
	 */
	protected boolean acquireReplays() {
		return true;
	}

	/**
	 * How long the store keeps a key's fencing records after its last grant, when the store under test was set up with
	 * a short one; each run then lets it pass once, halfway. Zero (the default) for a store without such records.
	 */
	protected Duration fenceRetention() {
		return Duration.ZERO;
	}

	/**
	 * Whether plain exclusive grants carry fencing tokens. A store set up without them (Redis with
	 * {@code distributed-lock.redis.fencing=false}) answers 0 for those grants, which the model then checks instead of
	 * their order; every other grant's token must still be above the key's last. Such a store keeps no record of a
	 * plain release either, so a replayed release of a lock whose lease has run out may answer either way.
	 */
	protected boolean fencingTokens() {
		return true;
	}

	/**
	 * Steps per run; three seeded runs per build.
	 */
	protected int steps() {
		return 700;
	}

	static IntStream runs() {
		return IntStream.range(0, 3);
	}

	@BeforeEach
	void createProviders() {
		providers.add(createProvider());
		providers.add(createProvider());
		marker = UUID.randomUUID().toString().substring(0, 8);
		keys = List.of("model:" + marker + ":a", "model:" + marker + ":b", "model:" + marker + ":c");
		lockIds = List.of("model-" + marker + "-x", "model-" + marker + "-y");
	}

	@AfterEach
	void closeProviders() {
		for (LockProvider provider : providers) {
			destroyProvider(provider);
		}
	}

	/**
	 * One seeded run of {@link #steps()} steps, then a clean-up that must leave every key free and nothing immortal.
	 */
	@ParameterizedTest(name = "run {0}")
	@MethodSource("runs")
	void randomProtocolRunsMatchTheModel(int run) {
		// The build replays pinned seeds, so a failure is the code's, not the draw's; -Ddistlock.model.random=true
		// explores fresh seeds, -Ddistlock.model.seed=<seed> replays one.
		long base = Long.getLong("distlock.model.seed", Boolean.getBoolean("distlock.model.random")
				? ThreadLocalRandom.current().nextLong() : PINNED_SEED);
		long seed = base + run;
		random = new Random(seed);
		System.out.println(getClass().getSimpleName() + " run " + run + ": seed " + seed);
		try {
			for (step = 0; step < steps(); step++) {
				if (step == steps() / 2 && !fenceRetention().isZero()) {
					note("the fence retention passes: %d ms", fenceRetention().plus(EXPIRY_MARGIN).toMillis());
					sleepNanos(fenceRetention().plus(EXPIRY_MARGIN).toNanos());
					// A replay after a reconnect comes within a command timeout; the record that answers it is kept
					// for the retention, so commands from before it are no longer replayed.
					calls.clear();
				}
				randomStep();
				checkInvariants();
			}
			cleanUp();
		}
		catch (AssertionError | RuntimeException ex) {
			throw new AssertionError("Model run failed at step " + step + " with seed " + seed
					+ " (rerun with -Ddistlock.model.seed=" + (seed - run) + "): " + ex.getMessage()
					+ "\nlast steps:\n" + String.join("\n", history), ex);
		}
	}

	// ---- the steps ----

	private void randomStep() {
		if (!lostReplies.isEmpty() && random.nextInt(3) == 0) {
			replay(lostReplies.poll());
			return;
		}
		int roll = random.nextInt(100);
		if (roll < 24) {
			acquire(LockMode.EXCLUSIVE, false);
		}
		else if (roll < 40) {
			acquire(LockMode.SHARED, false);
		}
		else if (roll < 56) {
			release(false);
		}
		else if (roll < 64) {
			extend(false);
		}
		else if (roll < 69 && ids() != null) {
			unlockById();
		}
		else if (roll < 74 && ids() != null) {
			renewById();
		}
		else if (roll < 86 && !calls.isEmpty()) {
			// mostly the latest command (a client's replay after a reconnect), sometimes any earlier one
			replay(random.nextInt(3) > 0 ? calls.get(calls.size() - 1) : calls.get(random.nextInt(calls.size())));
		}
		else if (roll < 96) {
			lostReply();
		}
		else {
			timePasses();
		}
	}

	private void acquire(LockMode mode, boolean lost) {
		int owner = random.nextInt(OWNERS);
		String key = keys.get(random.nextInt(keys.size()));
		Life life = randomLife();
		String lockId = ids() != null && random.nextBoolean()
				? lockIds.get(random.nextInt(lockIds.size())) : null;
		Duration lease = life == Life.SHORT ? Duration.ofMillis(1 + random.nextInt(30)) : LONG_LEASE;
		LockRequest request = new LockRequest(key, UUID.randomUUID().toString(), lease, mode,
				mode == LockMode.SHARED ? MAX_CONCURRENT : 1, new OwnerDetails("model-" + owner, "host-" + owner),
				lockId, life == Life.FOREVER);
		Call call = new Call(CallType.ACQUIRE, owner, request, null);
		sendAcquire(call, lost);
	}

	/** A plain exclusive lock: with a lease, no lock ID; the only kind a store without fencing tokens leaves at 0. */
	private static boolean isPlain(LockRequest request) {
		return request.mode() == LockMode.EXCLUSIVE && !request.noExpiry() && request.lockId() == null;
	}

	private void sendAcquire(Call call, boolean lost) {
		LockRequest request = call.request;
		String key = request.key();
		Holding same = holdingOf(request.token());
		Expectation expected = acquireExpectation(request, same);
		boolean replay = call.answered;
		note("%s%s o%d %s %s %s life=%s id=%s token=%s", replay ? "replay " : "", lost ? "lost-reply " : "",
				call.owner, request.mode(), key, request.noExpiry() ? "forever" : request.lease().toMillis() + "ms",
				lifeOf(request), request.lockId(), shortToken(request.token()));
		Optional<Lease> answer = provider(call.owner).tryAcquire(request);
		long replyNanos = System.nanoTime();
		answered(answer.map(lease -> "granted fence " + lease.fencingToken()).orElse("refused"));
		expected.check(answer.isPresent(), "acquire " + key + " answered");
		if (answer.isPresent()) {
			long fence = answer.get().fencingToken();
			boolean stillHeld = same != null && same.state() == State.HELD;
			if (stillHeld) {
				assertEquals(same.fence, fence, "a replayed acquire of a lock still held answers its fencing token");
			}
			else if (same != null && same.state() == State.MAYBE && fence == same.fence) {
				// the store still had it: the same grant, its lease restarted
			}
			else if (!fencingTokens() && isPlain(request)) {
				assertEquals(0L, fence, "a plain grant without fencing tokens answers 0");
			}
			else {
				long last = lastFence.getOrDefault(key, Long.MIN_VALUE);
				assertTrue(fence > last, "fencing token " + fence + " of " + (replay ? "a replayed acquire's grant"
						: "a new grant") + " on " + key + " not above the key's last " + last
						+ (same != null ? " (the token's own grant had " + same.fence + ")" : ""));
				lastFence.put(key, fence);
			}
			// every lease that was only maybe held and now conflicts with this grant has run out
			for (Holding other : liveHoldings(key)) {
				boolean sameSharedId = request.lockId() != null && request.shared() && other.mode() == LockMode.SHARED
						&& request.lockId().equals(other.request.lockId());
				if (other != same && other.state() == State.MAYBE
						&& (request.mode() == LockMode.EXCLUSIVE || other.mode() == LockMode.EXCLUSIVE
								|| sameSharedId)) {
					other.dead = true;
				}
			}
			Holding holding = same != null ? same : new Holding(call.owner, request, answer.get());
			holding.lease = answer.get();
			holding.fence = fence;
			holding.dead = false;
			holding.removedById = false;
			holding.restart(replyNanos);
			holding.orphan = lost;
			if (same == null) {
				holdings.add(holding);
			}
			bump(key);
		}
		call.answered = true;
		call.granted = answer.isPresent();
		call.fence = answer.map(Lease::fencingToken).orElse(0L);
		call.version = version(key);
		if (!replay) {
			calls.add(call);
		}
		if (lost) {
			lostReplies.add(call);
		}
	}

	private Expectation acquireExpectation(LockRequest request, @Nullable Holding same) {
		List<Holding> others = liveHoldings(request.key()).stream().filter(h -> h != same).toList();
		if (same != null && same.state() == State.HELD) {
			return Expectation.MUST; // a replay of a grant still held: "already yours"
		}
		if (request.mode() == LockMode.EXCLUSIVE) {
			if (others.stream().anyMatch(h -> h.state() == State.HELD)) {
				return Expectation.MUST_NOT;
			}
			return others.isEmpty() ? Expectation.MUST : Expectation.EITHER;
		}
		if (others.stream().anyMatch(h -> h.state() == State.HELD && h.mode() == LockMode.EXCLUSIVE)) {
			return Expectation.MUST_NOT;
		}
		List<Holding> shared = others.stream().filter(h -> h.mode() == LockMode.SHARED).toList();
		List<Holding> sameId = request.lockId() == null ? List.of()
				: shared.stream().filter(h -> request.lockId().equals(h.request.lockId())).toList();
		if (shared.stream().filter(h -> h.state() == State.HELD).count() >= MAX_CONCURRENT
				|| sameId.stream().anyMatch(h -> h.state() == State.HELD)) {
			return Expectation.MUST_NOT;
		}
		boolean exclusiveMaybe = others.stream().anyMatch(h -> h.mode() == LockMode.EXCLUSIVE);
		return !exclusiveMaybe && shared.size() < MAX_CONCURRENT && sameId.isEmpty() ? Expectation.MUST
				: Expectation.EITHER;
	}

	private void release(boolean lost) {
		Holding holding = pickHolding();
		if (holding == null) {
			acquire(LockMode.EXCLUSIVE, lost);
			return;
		}
		Call call = new Call(CallType.RELEASE, holding.owner, holding.request, holding);
		sendRelease(call, lost);
	}

	private void sendRelease(Call call, boolean lost) {
		Holding holding = call.holding;
		String key = holding.request.key();
		Expectation expected = leaseCallExpectation(holding);
		boolean replay = call.answered;
		if (replay && call.granted && !fencingTokens() && isPlain(holding.request) && holding.state() == State.GONE) {
			// without fencing tokens a plain release leaves no record: a replay that finds the key gone answers from
			// the lease as the client counts it, "released" while it runs and "lost" after (docs/REDIS.md)
			expected = Expectation.EITHER;
		}
		else if (replay && call.granted && call.version == version(key)) {
			expected = Expectation.MUST; // nothing happened on the key since: both runs answer true
		}
		else if (replay && !call.granted && call.version == version(key)) {
			expected = Expectation.MUST_NOT;
		}
		else if (replay && !call.granted && holding.releasedByAnyCall) {
			// a late acquire replay granted the token again and a later release of it answered true: this replay is
			// the same command as that one, so either answer is its answer
			expected = Expectation.EITHER;
		}
		else if (replay && call.granted && holding.state() == State.GONE) {
			// others took the key since: answering true again (as the first run did) or false are both safe, as
			// long as the holders since keep their lock, which the next steps check
			expected = Expectation.EITHER;
		}
		note("%s%s o%d release %s token=%s (%s)", replay ? "replay " : "", lost ? "lost-reply " : "", holding.owner,
				key, shortToken(holding.request.token()), holding.describe());
		boolean answer = holding.lease.release();
		answered(String.valueOf(answer));
		expected.check(answer, "release of " + key + (replay ? " (a replay)" : "") + " answered");
		holding.releasedByAnyCall |= answer;
		if (!replay || holding.state() != State.GONE) {
			holding.dead = true;
			holding.released = true;
			bump(key);
		}
		call.answered = true;
		call.granted = answer;
		call.version = version(key);
		if (!replay) {
			calls.add(call);
		}
		if (lost) {
			lostReplies.add(call);
		}
	}

	private void extend(boolean lost) {
		Holding holding = pickHolding();
		if (holding == null || holding.request.noExpiry()) {
			acquire(LockMode.SHARED, lost);
			return;
		}
		Duration lease = random.nextBoolean() ? LONG_LEASE : Duration.ofMillis(1 + random.nextInt(30));
		Call call = new Call(CallType.EXTEND, holding.owner, holding.request, holding);
		call.extension = lease;
		sendExtend(call, lost);
	}

	private void sendExtend(Call call, boolean lost) {
		Holding holding = call.holding;
		String key = holding.request.key();
		Expectation expected = leaseCallExpectation(holding);
		boolean replay = call.answered;
		if (replay && call.version == version(key) && call.granted && holding.state() == State.HELD) {
			expected = Expectation.MUST;
		}
		note("%s%s o%d extend %s by %d ms token=%s (%s)", replay ? "replay " : "", lost ? "lost-reply " : "",
				holding.owner, key, call.extension.toMillis(), shortToken(holding.request.token()),
				holding.describe());
		boolean answer = holding.lease.extend(call.extension);
		long replyNanos = System.nanoTime();
		answered(String.valueOf(answer));
		expected.check(answer, "extend of " + key + (replay ? " (a replay)" : "") + " answered");
		if (answer) {
			holding.extendedTo(call.extension, replyNanos);
		}
		else if (holding.state() == State.MAYBE) {
			holding.dead = true;
		}
		call.answered = true;
		call.granted = answer;
		call.version = version(key);
		if (!replay) {
			calls.add(call);
		}
		if (lost) {
			lostReplies.add(call);
		}
	}

	private Expectation leaseCallExpectation(Holding holding) {
		return switch (holding.state()) {
			case HELD -> Expectation.MUST;
			case MAYBE -> Expectation.EITHER;
			case GONE -> Expectation.MUST_NOT;
		};
	}

	private void unlockById() {
		String lockId = lockIds.get(random.nextInt(lockIds.size()));
		int via = random.nextInt(providers.size());
		List<Holding> members = holdingsOfId(lockId);
		note("unlock(%s) via instance %d, members %s", lockId, via, describe(members));
		List<LockInfo> released = ids(via).unlock(lockId);
		Set<String> keysReleased = released.stream().map(LockInfo::key).collect(Collectors.toSet());
		answered(keysReleased.toString());
		checkIdAnswer(members, keysReleased, "unlock(" + lockId + ")");
		for (Holding member : members) {
			member.dead = true;
			member.removedById = true;
			bump(member.request.key());
		}
	}

	private void renewById() {
		String lockId = lockIds.get(random.nextInt(lockIds.size()));
		int via = random.nextInt(providers.size());
		Duration lease = random.nextBoolean() ? LONG_LEASE : Duration.ofMillis(1 + random.nextInt(30));
		List<Holding> members = holdingsOfId(lockId);
		note("renew(%s, %d ms) via instance %d, members %s", lockId, lease.toMillis(), via, describe(members));
		LockRenewal renewal = ids(via).renew(lockId, lease);
		long replyNanos = System.nanoTime();
		Set<String> renewed = renewal.renewed().stream().map(LockInfo::key).collect(Collectors.toSet());
		answered("renewed " + renewed);
		checkIdAnswer(members, renewed, "renew(" + lockId + ")");
		for (Holding member : members) {
			if (renewed.contains(member.request.key())) {
				member.extendedTo(lease, replyNanos);
			}
			else {
				member.dead = true;
			}
		}
	}

	private void checkIdAnswer(List<Holding> members, Set<String> answered, String what) {
		Set<String> must = members.stream()
			.filter(h -> h.state() == State.HELD)
			.map(h -> h.request.key())
			.collect(Collectors.toSet());
		Set<String> may = members.stream().map(h -> h.request.key()).collect(Collectors.toSet());
		assertTrue(answered.containsAll(must), what + " left out locks of the ID still held: " + must
				+ " expected among " + answered);
		assertTrue(may.containsAll(answered), what + " answered keys the ID holds no lock on: " + answered
				+ ", the ID's live locks being on " + may);
	}

	private void replay(Call call) {
		if (call.type == CallType.ACQUIRE && !acquireReplays()) {
			Holding orphan = holdingOf(call.request.token());
			if (orphan != null) {
				orphan.orphan = false; // the reply reaches its owner after all
			}
			note("(no acquire replay on this store)");
			return;
		}
		switch (call.type) {
			case ACQUIRE -> {
				Holding holding = holdingOf(call.request.token());
				if (holding != null && holding.released && holding.state() == State.GONE) {
					// a replay of an acquire its owner has already released: only a grant must be safe
					note("(late replay of an acquire already released)");
				}
				sendAcquire(call, false);
				if (holding == null || holding.released) {
					Holding revived = holdingOf(call.request.token());
					if (revived != null && revived.state() != State.GONE) {
						revived.released = false;
					}
				}
			}
			case RELEASE -> sendRelease(call, false);
			case EXTEND -> sendExtend(call, false);
			default -> throw new IllegalStateException(call.type.name());
		}
	}

	private void lostReply() {
		int roll = random.nextInt(3);
		if (roll == 0) {
			acquire(random.nextBoolean() ? LockMode.EXCLUSIVE : LockMode.SHARED, true);
		}
		else if (roll == 1) {
			release(true);
		}
		else {
			extend(true);
		}
	}

	private void timePasses() {
		long until = holdings.stream()
			.filter(h -> h.state() == State.MAYBE)
			.mapToLong(h -> h.expiredAfterNanos)
			.max()
			.orElse(System.nanoTime());
		long wait = Math.max(0, until - System.nanoTime());
		note("time passes: %d ms", TimeUnit.NANOSECONDS.toMillis(wait));
		sleepNanos(wait + 1_000_000);
	}

	// ---- checks after every step ----

	private void checkInvariants() {
		for (String key : keys) {
			List<Holding> held = liveHoldings(key).stream().filter(h -> h.state() == State.HELD).toList();
			long exclusive = held.stream().filter(h -> h.mode() == LockMode.EXCLUSIVE).count();
			long shared = held.size() - exclusive;
			assertTrue(exclusive <= 1 && (exclusive == 0 || shared == 0) && shared <= MAX_CONCURRENT,
					"model: " + key + " has " + exclusive + " exclusive and " + shared + " shared holders");
			boolean locked = providers.get(step % providers.size()).isLocked(key);
			if (!held.isEmpty()) {
				assertTrue(locked, "isLocked(" + key + ") while held by " + describe(held));
			}
			else if (liveHoldings(key).isEmpty()) {
				assertTrue(!locked, "isLocked(" + key + ") with every holder gone");
			}
		}
		checkNothingImmortal();
	}

	private void checkNothingImmortal() {
		List<String> explaining = new ArrayList<>();
		for (Holding holding : holdings) {
			if (holding.forever && holding.state() != State.GONE) {
				explaining.add(holding.request.key());
				if (holding.request.lockId() != null) {
					explaining.add(holding.request.lockId());
				}
			}
		}
		List<StoreRecord> records = storeRecords().list(marker);
		List<StoreRecord> unexplained = records.stream()
			.filter(StoreRecord::immortal)
			.filter(record -> explaining.stream().noneMatch(record.name()::contains))
			.toList();
		assertTrue(unexplained.isEmpty(), "records kept forever with no live lock without expiry to explain them: "
				+ unexplained + " (locks without expiry live: " + explaining + ")");
	}

	private void cleanUp() {
		note("clean-up");
		while (!lostReplies.isEmpty()) {
			replay(lostReplies.poll());
		}
		for (Holding holding : List.copyOf(holdings)) {
			if (holding.state() != State.GONE && !holding.released) {
				Call call = new Call(CallType.RELEASE, holding.owner, holding.request, holding);
				sendRelease(call, false);
			}
		}
		if (ids() != null) {
			for (String lockId : lockIds) {
				ids(0).unlock(lockId);
			}
		}
		long until = System.nanoTime() + EXPIRY_MARGIN.plusMillis(30).toNanos();
		sleepNanos(Math.max(0, until - System.nanoTime()));
		for (String key : keys) {
			assertTrue(!providers.get(0).isLocked(key), "isLocked(" + key + ") after every holder released");
		}
		checkNothingImmortal();
	}

	// ---- the model ----

	private Life randomLife() {
		int roll = random.nextInt(10);
		if (roll < 2 && ids() != null) {
			return Life.FOREVER;
		}
		return roll < 6 ? Life.SHORT : Life.LONG;
	}

	private static String lifeOf(LockRequest request) {
		return request.noExpiry() ? "forever" : request.lease().compareTo(LONG_LEASE) >= 0 ? "long" : "short";
	}

	private @Nullable Holding pickHolding() {
		List<Holding> candidates = holdings.stream().filter(h -> !h.released && !h.orphan).toList();
		if (candidates.isEmpty()) {
			return null;
		}
		return candidates.get(random.nextInt(candidates.size()));
	}

	private @Nullable Holding holdingOf(String token) {
		for (Holding holding : holdings) {
			if (holding.request.token().equals(token)) {
				return holding;
			}
		}
		return null;
	}

	private List<Holding> liveHoldings(String key) {
		return holdings.stream()
			.filter(h -> h.request.key().equals(key) && h.state() != State.GONE)
			.toList();
	}

	private List<Holding> holdingsOfId(String lockId) {
		return holdings.stream()
			.filter(h -> lockId.equals(h.request.lockId()) && h.state() != State.GONE)
			.toList();
	}

	private int version(String key) {
		return versions.getOrDefault(key, 0);
	}

	private void bump(String key) {
		versions.merge(key, 1, Integer::sum);
	}

	private LockProvider provider(int owner) {
		return providers.get(owner % providers.size());
	}

	private @Nullable LockIdSupport ids() {
		return providers.get(0) instanceof LockIdSupport ids ? ids : null;
	}

	private LockIdSupport ids(int via) {
		return (LockIdSupport) providers.get(via);
	}

	private void note(String format, Object... args) {
		history.addLast("#" + step + " " + String.format(format, args));
		while (history.size() > HISTORY_SHOWN) {
			history.removeFirst();
		}
	}

	private void answered(String answer) {
		history.addLast(history.removeLast() + " -> " + answer);
	}

	private static String describe(List<Holding> holdings) {
		return holdings.stream().map(Holding::describe).toList().toString();
	}

	private static String shortToken(String token) {
		return token.substring(0, 6);
	}

	private static void sleepNanos(long nanos) {
		try {
			TimeUnit.NANOSECONDS.sleep(nanos);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while time passes", ex);
		}
	}

	private static void assertTrue(boolean condition, String message) {
		if (!condition) {
			throw new AssertionError(message);
		}
	}

	private static void assertEquals(long expected, long actual, String message) {
		if (expected != actual) {
			throw new AssertionError(message + ": expected " + expected + " but was " + actual);
		}
	}

	/** What the model allows as an answer. */
	private enum Expectation {

		MUST, MUST_NOT, EITHER;

		void check(boolean answer, String what) {
			if (this == MUST && !answer) {
				throw new AssertionError(what + " false where the model says it must be true");
			}
			if (this == MUST_NOT && answer) {
				throw new AssertionError(what + " true where the model says it must be false");
			}
		}

	}

	/** How long a grant lives in the store. */
	private enum Life {

		SHORT, LONG, FOREVER

	}

	/** Whether the store must, may or must not still hold a grant. */
	private enum State {

		HELD, MAYBE, GONE

	}

	private enum CallType {

		ACQUIRE, RELEASE, EXTEND

	}

	/** A command as sent, kept for replays. */
	private static final class Call {

		final CallType type;

		final int owner;

		final LockRequest request;

		final @Nullable Holding holding;

		Duration extension = LONG_LEASE;

		boolean answered;

		boolean granted;

		long fence;

		int version;

		Call(CallType type, int owner, LockRequest request, @Nullable Holding holding) {
			this.type = type;
			this.owner = owner;
			this.request = request;
			this.holding = holding;
		}

	}

	/** One grant as the model knows it. */
	private static final class Holding {

		final int owner;

		final LockRequest request;

		Lease lease;

		long fence;

		/** Whether the store keeps it until released (no expiry, not renewed or extended since). */
		boolean forever;

		/** For a short lease: from when the store has certainly dropped it. */
		long expiredAfterNanos = Long.MAX_VALUE;

		boolean shortLease;

		boolean dead;

		boolean released;

		/**
		 * Whether a release of this token answered true: a replay of an earlier release of the same token that answered
		 * false is the same command, which the store may answer as the latest one did.
		 */
		boolean releasedByAnyCall;

		boolean removedById;

		/** A grant whose reply was discarded: its owner does not know it holds it. */
		boolean orphan;

		Holding(int owner, LockRequest request, Lease lease) {
			this.owner = owner;
			this.request = request;
			this.lease = lease;
		}

		LockMode mode() {
			return request.mode();
		}

		void restart(long replyNanos) {
			forever = request.noExpiry();
			shortLease = !forever && request.lease().compareTo(LONG_LEASE) < 0;
			expiredAfterNanos = shortLease ? replyNanos + request.lease().plus(EXPIRY_MARGIN).toNanos()
					: Long.MAX_VALUE;
		}

		void extendedTo(Duration lease, long replyNanos) {
			forever = false;
			dead = false;
			shortLease = lease.compareTo(LONG_LEASE) < 0;
			expiredAfterNanos = shortLease ? replyNanos + lease.plus(EXPIRY_MARGIN).toNanos() : Long.MAX_VALUE;
		}

		State state() {
			if (dead) {
				return State.GONE;
			}
			if (!shortLease) {
				return State.HELD;
			}
			return System.nanoTime() - expiredAfterNanos > 0 ? State.GONE : State.MAYBE;
		}

		String describe() {
			return "o" + owner + " " + request.mode() + " " + request.key() + " token " + shortToken(request.token())
					+ " fence " + fence + " " + (forever ? "forever" : shortLease ? "short" : "long") + " "
					+ state() + (released ? " released" : "") + (removedById ? " unlocked-by-id" : "")
					+ (orphan ? " reply-lost" : "") + (request.lockId() != null ? " id " + request.lockId() : "");
		}

	}

}
