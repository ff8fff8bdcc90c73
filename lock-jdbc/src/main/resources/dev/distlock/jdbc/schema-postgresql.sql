-- distlock: the lock table and its fencing sequence on PostgreSQL. ${table} and ${sequence} are the configured names.
-- One row per lock key (holder = ''), plus one row per shared holder (holder = its owner token). Times are the
-- database clock's (clock_timestamp()), stored as timestamptz with microseconds (UTC internally, no 2038 limit).
-- No index on expires_at: every grant and release rewrites it, and an index on it would keep PostgreSQL from updating
-- the row in place (HOT); the purger scans the table in bounded batches instead. Pages are filled whole (the default
-- fillfactor): a plain release deletes its row, and a page kept 30% empty for in-place updates could not take the next
-- insert once pruned, so the table grew seven times as fast between vacuums. A table an earlier version created may
-- carry ${table}_expires, which can be dropped, and fillfactor 70, which can be set back to 100 (docs/JDBC.md).
CREATE TABLE IF NOT EXISTS ${table} (
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
  shared_until TIMESTAMPTZ(6) NOT NULL,
  released     VARCHAR(64),
  waiter       VARCHAR(64),
  waiter_until TIMESTAMPTZ(6),
  PRIMARY KEY (lock_key, holder)
);
CREATE INDEX IF NOT EXISTS ${table}_lock_id ON ${table} (lock_id);
CREATE SEQUENCE IF NOT EXISTS ${sequence};
