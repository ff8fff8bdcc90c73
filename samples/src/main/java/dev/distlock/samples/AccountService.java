package dev.distlock.samples;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.stereotype.Service;

import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.LockContext;

/**
 * Debits accounts with a deliberately unguarded read, slow work, write. The lock keyed by account id makes concurrent
 * debits of one account take turns; debits of different accounts run side by side.
 */
@Service
public class AccountService {

	private static final long OPENING_BALANCE = 100;

	private final Map<String, Long> balances = new ConcurrentHashMap<>();

	/**
	 * Takes {@code amount} from the account, waiting up to 10 s for the account's lock.
	 */
	@DistributedLock(key = "'account:' + #accountId", retries = Integer.MAX_VALUE, delayString = "20ms",
			maxWaitString = "${sample.debit.max-wait:10s}")
	public Debit debit(String accountId, long amount) throws InterruptedException {
		long balance = balance(accountId);
		Thread.sleep(300); // the slow part: a remote call, a fraud check, ...
		long after = balance >= amount ? balance - amount : balance;
		balances.put(accountId, after);
		return new Debit(accountId, amount, balance >= amount, after, LockContext.current().fencingToken());
	}

	/**
	 * The balance now.
	 */
	public long balance(String accountId) {
		return balances.getOrDefault(accountId, OPENING_BALANCE);
	}

	/**
	 * One debit's outcome.
	 * @param account the account
	 * @param amount the amount asked for
	 * @param accepted whether the balance covered it
	 * @param balance the balance afterwards
	 * @param fencingToken the lock's fencing token, increasing with each holder
	 */
	public record Debit(String account, long amount, boolean accepted, long balance, long fencingToken) {
	}

}
