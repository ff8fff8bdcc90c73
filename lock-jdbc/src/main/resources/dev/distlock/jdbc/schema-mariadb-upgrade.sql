-- distlock: turns a lock table an earlier version created (before 2026-11-30), with a row per key (holder = '') and
-- a row per shared holder in it, keyed by (lock_key, holder), into the layout of schema-mariadb.sql: the shared
-- holders' rows move to ${table}_shared, and the key rows are keyed by lock_key alone. Run by JdbcMaintenance when the
-- lock table has a holder column, after schema-mariadb.sql, in autocommit under LOCK TABLES ${table} WRITE,
-- ${table}_shared WRITE, ${table}_ids WRITE (released afterwards, whatever happened), which keeps every other
-- statement on the tables out meanwhile; run by hand, take the same lock first. Instances of the earlier version then
-- fail their lock statements (a store error, never a second holder), so every instance is upgraded at once
-- (docs/JDBC.md, "Upgrading").
-- Live locks granted under an ID by a version without ${table}_ids (before 2026-11-28, evening), recorded so that
-- unlock and renewal by ID find them; a grant recorded already is left as it is.
INSERT IGNORE INTO ${table}_ids (lock_id, fence, token, lock_key, holder)
  SELECT lock_id, fence, token, lock_key, holder FROM ${table} WHERE lock_id IS NOT NULL AND token IS NOT NULL
  AND expires_at > UTC_TIMESTAMP(6) ORDER BY lock_id, fence;
INSERT IGNORE INTO ${table}_shared (lock_key, holder, token, owner_name, owner_host, lock_id, fence, acquired_at,
  renewed_at, expires_at, ttl_ms, released)
  SELECT lock_key, holder, token, owner_name, owner_host, lock_id, fence, acquired_at, renewed_at, expires_at, ttl_ms,
  released FROM ${table} WHERE holder <> '';
DELETE FROM ${table} WHERE holder <> '';
-- One statement: the table is never without its key.
ALTER TABLE ${table} DROP PRIMARY KEY, DROP COLUMN holder, ADD PRIMARY KEY (lock_key);
