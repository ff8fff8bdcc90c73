package dev.distlock.mongo;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Date;
import java.util.List;

import org.bson.Document;
import org.bson.conversions.Bson;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.ReturnDocument;

import dev.distlock.core.LockMode;
import dev.distlock.core.spi.LockInfo;
import dev.distlock.core.spi.LockRenewal;
import dev.distlock.mongo.MongoLockStatus.Member;

import static dev.distlock.mongo.LockDocuments.ID;
import static dev.distlock.mongo.LockDocuments.IDS;
import static dev.distlock.mongo.LockDocuments.LOCK_ID;
import static dev.distlock.mongo.LockDocuments.SHARED;
import static dev.distlock.mongo.LockDocuments.TOKEN;

/**
 * Unlock and renew by lock ID. One read finds the documents through the {@code ids} index, with the server's
 * {@code $$NOW}; then one update per member, filtered on that member's own holder fields (its token or its shared
 * entry, and its lock ID), so a member released or replaced meanwhile is left alone. Each update is idempotent, so a
 * retried call changes nothing more; no statement is a pipeline update or has {@code $expr} in an upsert.
 */
final class MongoLockIds {

	private static final String NOW = "distlockNow";

	/** Newest first: latest grant, then the larger key (two grants in one millisecond). */
	private static final Comparator<Member> NEWEST_FIRST = Comparator
		.comparing((Member member) -> member.info().acquiredAt(), Comparator.nullsFirst(Comparator.naturalOrder()))
		.thenComparing(Member::key)
		.reversed();

	private MongoLockIds() {
	}

	/**
	 * Releases the live members newest first and clears the expired ones; returns the released.
	 */
	static List<LockInfo> unlock(MongoCollection<Document> collection, String lockId) {
		List<LockInfo> released = new ArrayList<>();
		for (Member member : members(collection, lockId)) {
			Bson update = member.field() == null
					? LeaseStatements.releaseExclusive(null)
					: LeaseStatements.releaseShared(member.field(), lockId, false);
			if (collection.updateOne(memberFilter(member, lockId), update).getMatchedCount() == 1 && member.live()) {
				released.add(member.info());
			}
		}
		return released;
	}

	/**
	 * Sets the lease of every live member to {@code lease} from the server's now; a member that was expired when read,
	 * or expired before its update ran, is reported as expired.
	 */
	static LockRenewal renew(MongoCollection<Document> collection, String lockId, Duration lease) {
		long leaseMs = lease.toMillis();
		List<LockInfo> renewed = new ArrayList<>();
		List<LockInfo> expired = new ArrayList<>();
		for (Member member : members(collection, lockId)) {
			if (!member.live()) {
				expired.add(member.info());
				continue;
			}
			String prefix = member.field() == null ? "" : SHARED + "." + member.field() + ".";
			Document filter = memberFilter(member, lockId).append("$expr",
					new Document("$gt", List.of(LockDocuments.exclusiveLeaseEnd(prefix, 0), "$$NOW")));
			Document after = collection.findOneAndUpdate(filter, LeaseStatements.extendAt(prefix, leaseMs),
					new FindOneAndUpdateOptions().returnDocument(ReturnDocument.AFTER));
			if (after == null) {
				expired.add(member.info());
				continue;
			}
			Document holder = member.field() == null ? after : after.get(SHARED, Document.class)
				.get(member.field(), Document.class);
			// Seen from the server time the renewal stamped: the whole new lease is left.
			long renewedAt = holder.getDate(LockDocuments.AT).getTime();
			LockInfo info = MongoLockStatus.holderInfo(after, holder,
					member.field() == null ? LockMode.EXCLUSIVE : LockMode.SHARED, renewedAt);
			// A renewal in the grant's own millisecond stamps an 'at' equal to the grant's, which status reads as
			// never renewed; this answer is the renewal, so it says when.
			renewed.add(info.renewedAt() != null ? info
					: new LockInfo(info.key(), info.mode(), info.owner(), info.host(), info.fencingToken(),
							info.acquiredAt(), info.remaining(), info.holders(), info.lockId(),
							Instant.ofEpochMilli(renewedAt), info.ttl()));
		}
		return new LockRenewal(lockId, renewed, expired);
	}

	/** The members of the ID, newest first, as the server's clock sees them. */
	private static List<Member> members(MongoCollection<Document> collection, String lockId) {
		List<Bson> pipeline = List.of(new Document("$match", new Document(IDS, lockId)),
				new Document("$addFields", new Document(NOW, "$$NOW")));
		List<Member> members = new ArrayList<>();
		for (Document document : collection.aggregate(pipeline)) {
			Date now = document.getDate(NOW);
			members.addAll(MongoLockStatus.members(document, lockId, now.getTime()));
		}
		members.sort(NEWEST_FIRST);
		return members;
	}

	/** The member's own holder fields: the exclusive token, or the shared entry, each with the lock ID. */
	private static Document memberFilter(Member member, String lockId) {
		Document filter = new Document(ID, member.key());
		return member.field() == null
				? filter.append(TOKEN, member.document().getString(TOKEN)).append(LOCK_ID, lockId)
				: filter.append(SHARED + "." + member.field() + "." + LOCK_ID, lockId);
	}

}
