-- Daemon replicas on a shared state (the same table as in PostgreSQL, so both backends keep one
-- contract and one step number). A SQLite state is single-process: its daemon never writes here,
-- the table stays empty.
CREATE TABLE replicas (
  id           TEXT PRIMARY KEY,
  name         TEXT NOT NULL,
  host         TEXT NOT NULL,
  pid          INTEGER NOT NULL,
  started_at   INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL,
  worker_ids   TEXT NOT NULL DEFAULT '[]'
);
