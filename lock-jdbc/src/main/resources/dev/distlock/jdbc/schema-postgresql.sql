-- distlock: the lock table and its fencing sequence on PostgreSQL. ${table} and ${sequence} are the configured names.
-- One row per lock key, keyed by the key alone, and one row per shared holder in ${table}_shared, keyed by the key and
-- the holder's owner token (a one-column key costs the hot path less than the two-column key a single table for both
-- would need: docs/BENCHMARKS.md). Times are the database clock's (clock_timestamp()), stored as timestamptz with
-- microseconds (UTC internally, no 2038 limit).
-- No index on expires_at: every grant and release rewrites it, and an index on it would keep PostgreSQL from updating
-- the row in place (HOT); the purger scans the table in bounded batches instead. Pages are filled whole (the default
-- fillfactor): a plain release deletes its row, and a page kept 30% empty for in-place updates could not take the next
-- insert once pruned, so the table grew seven times as fast between vacuums. A table an earlier version created may
-- carry ${table}_expires, which can be dropped, and fillfactor 70, which can be set back to 100 (docs/JDBC.md).
-- No index on lock_id either: every grant inserts the key row, and an index entry with it, even for the NULL of a lock
-- without ID. Lock IDs are found through ${table}_ids instead, which only grants carrying a lock ID write to.
-- vacuum_truncate = false (PostgreSQL 12+): vacuum never shrinks the tables to the page or two their rows fit in after
-- a burst. The generic plans pgjdbc's prepared statements keep are made from the table's size at the time, and a plan
-- made on a page or two reads the whole table by a sequential scan instead of the primary key until the next analyze,
-- while the table grows again under it (docs/JDBC.md, "The planner and a churning table").
CREATE TABLE IF NOT EXISTS ${table} (
  lock_key     VARCHAR(512) NOT NULL,
  token        VARCHAR(64),
  owner_name   VARCHAR(255),
  owner_host   VARCHAR(255),
  lock_id      VARCHAR(255),
  fence        BIGINT       NOT NULL,
  acquired_at  TIMESTAMPTZ(6),
  renewed_at   TIMESTAMPTZ(6),
  expires_at   TIMESTAMPTZ(6) NOT NULL,
  ttl_ms       BIGINT,
  shared_until TIMESTAMPTZ(6) NOT NULL,
  released     VARCHAR(64),
  waiter       VARCHAR(64),
  waiter_until TIMESTAMPTZ(6),
  PRIMARY KEY (lock_key)
) WITH (vacuum_truncate = false);
-- One row per shared holder (holder = token = its owner token), written only by shared grants, each inside the
-- transaction that locks the key's row in ${table} first.
CREATE TABLE IF NOT EXISTS ${table}_shared (
  lock_key     VARCHAR(512) NOT NULL,
  holder       VARCHAR(64)  NOT NULL,
  token        VARCHAR(64),
  owner_name   VARCHAR(255),
  owner_host   VARCHAR(255),
  lock_id      VARCHAR(255),
  fence        BIGINT       NOT NULL,
  acquired_at  TIMESTAMPTZ(6),
  renewed_at   TIMESTAMPTZ(6),
  expires_at   TIMESTAMPTZ(6) NOT NULL,
  ttl_ms       BIGINT,
  released     VARCHAR(64),
  PRIMARY KEY (lock_key, holder)
) WITH (vacuum_truncate = false);
-- One row per grant made under a lock ID (its fencing token, unique per grant: a group's locks share an owner token),
-- written after the grant and only while the lock's row carries it: how release and renewal by lock ID find their
-- rows (holder is empty for a key row in ${table}, the owner token for a row in ${table}_shared). A row whose lock no
-- longer carries that grant is stale; lookups join it to the lock tables and skip it, and the purger deletes it.
CREATE TABLE IF NOT EXISTS ${table}_ids (
  lock_id      VARCHAR(255) NOT NULL,
  fence        BIGINT       NOT NULL,
  token        VARCHAR(64)  NOT NULL,
  lock_key     VARCHAR(512) NOT NULL,
  holder       VARCHAR(64)  NOT NULL,
  PRIMARY KEY (lock_id, fence)
) WITH (vacuum_truncate = false);
-- Tables an earlier version created (before 2026-11-29, midday) get the setting too. It takes a SHARE UPDATE EXCLUSIVE
-- lock, which the lock statements' ROW EXCLUSIVE never waits for, and needs the table's owner: where it fails, the
-- tables are left as they are, with a warning (JdbcMaintenance). A lock table an earlier version created with both
-- kinds of row in it (a holder column) is then split by schema-postgresql-upgrade.sql (JdbcMaintenance).
ALTER TABLE ${table} SET (vacuum_truncate = false);
ALTER TABLE ${table}_ids SET (vacuum_truncate = false);
CREATE SEQUENCE IF NOT EXISTS ${sequence};
