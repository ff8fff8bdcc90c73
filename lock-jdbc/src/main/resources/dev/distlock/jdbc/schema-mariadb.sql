-- distlock: the lock table and its fencing sequence on MariaDB 10.6+ (and MySQL 8 except the SEQUENCE: see
-- docs/JDBC.md). ${table} and ${sequence} are the configured names. One row per lock key, keyed by the key alone,
-- and one row per shared holder in ${table}_shared, keyed by the key and the holder's owner token. Times are the
-- database clock's in UTC (UTC_TIMESTAMP(6)), stored as DATETIME(6): microseconds, no 2038 limit (TIMESTAMP has one).
-- Keys compare byte for byte (utf8mb4_bin).
-- No index on expires_at: every grant and release rewrites it, and InnoDB would update that secondary index each time;
-- the purger scans the table in bounded batches instead. A table an earlier version created may carry
-- ${table}_expires: it can be dropped (docs/JDBC.md). No index on lock_id either: every grant inserts the key row, and
-- an index entry with it, even for the NULL of a lock without ID. Lock IDs are found through ${table}_ids instead,
-- which only grants carrying a lock ID write to.
CREATE TABLE IF NOT EXISTS ${table} (
  lock_key     VARCHAR(512) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  token        VARCHAR(64)  CHARACTER SET ascii COLLATE ascii_bin,
  owner_name   VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
  owner_host   VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
  lock_id      VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
  fence        BIGINT       NOT NULL,
  acquired_at  DATETIME(6),
  renewed_at   DATETIME(6),
  expires_at   DATETIME(6)  NOT NULL,
  ttl_ms       BIGINT,
  shared_until DATETIME(6)  NOT NULL,
  released     VARCHAR(64)  CHARACTER SET ascii COLLATE ascii_bin,
  waiter       VARCHAR(64)  CHARACTER SET ascii COLLATE ascii_bin,
  waiter_until DATETIME(6),
  PRIMARY KEY (lock_key)
) ENGINE = InnoDB;
-- One row per shared holder (holder = token = its owner token), written only by shared grants, each inside the
-- transaction that locks the key's row in ${table} first.
CREATE TABLE IF NOT EXISTS ${table}_shared (
  lock_key     VARCHAR(512) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  holder       VARCHAR(64)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  token        VARCHAR(64)  CHARACTER SET ascii COLLATE ascii_bin,
  owner_name   VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
  owner_host   VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
  lock_id      VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
  fence        BIGINT       NOT NULL,
  acquired_at  DATETIME(6),
  renewed_at   DATETIME(6),
  expires_at   DATETIME(6)  NOT NULL,
  ttl_ms       BIGINT,
  released     VARCHAR(64)  CHARACTER SET ascii COLLATE ascii_bin,
  PRIMARY KEY (lock_key, holder)
) ENGINE = InnoDB;
-- One row per grant made under a lock ID (its fencing token, unique per grant: a group's locks share an owner token),
-- written after the grant and only while the lock's row carries it: how release and renewal by lock ID find their
-- rows (holder is empty for a key row in ${table}, the owner token for a row in ${table}_shared). A row whose lock
-- no longer carries that grant is stale; lookups join it to the lock tables and skip it, and the purger deletes it.
-- A lock table an earlier version created with both kinds of row in it (a holder column) is split by
-- schema-mariadb-upgrade.sql after these statements (JdbcMaintenance).
CREATE TABLE IF NOT EXISTS ${table}_ids (
  lock_id      VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  fence        BIGINT       NOT NULL,
  token        VARCHAR(64)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  lock_key     VARCHAR(512) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  holder       VARCHAR(64)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  PRIMARY KEY (lock_id, fence)
) ENGINE = InnoDB;
CREATE SEQUENCE IF NOT EXISTS ${sequence} ENGINE = InnoDB;
