-- shopsync state, version 1. Times are milliseconds since the epoch (UTC); JSON columns hold
-- compact JSON text. Every query the dashboard runs has an index below.

-- Cursor per pipeline and lane: `incremental`, or `backfill:<range>` for a backfill's own checkpoint.
CREATE TABLE cursors (
  pipeline   TEXT NOT NULL,
  name       TEXT NOT NULL,
  value      TEXT,            -- JSON scalar (string | number | null)
  record_key TEXT,            -- keyset tie-breaker: the last settled record's key at that value
  boundary   TEXT,            -- JSON: extra bookkeeping (pull boundary day, finished flag…)
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (pipeline, name)
);

-- ERP key <-> shop id, per shop resource (shared by every pipeline writing that resource).
CREATE TABLE refs (
  resource   TEXT NOT NULL,
  erp_key    TEXT NOT NULL,
  shop_id    TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (resource, erp_key)
);
CREATE INDEX refs_by_shop_id ON refs (resource, shop_id);

-- Hash of the last payload the shop accepted, per pipeline (two pipelines may write different
-- parts of the same product: stock and master data).
CREATE TABLE sent_hashes (
  pipeline   TEXT NOT NULL,
  resource   TEXT NOT NULL,
  erp_key    TEXT NOT NULL,
  hash       TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (pipeline, resource, erp_key)
);

-- A create about to be sent for a record without a reference; reconciled after a crash.
CREATE TABLE intents (
  resource    TEXT NOT NULL,
  erp_key     TEXT NOT NULL,
  pipeline    TEXT NOT NULL,
  hash        TEXT NOT NULL,
  natural_key TEXT,           -- JSON object: the fields the shop can find the record by
  run_id      INTEGER,
  created_at  INTEGER NOT NULL,
  PRIMARY KEY (resource, erp_key)
);
CREATE INDEX intents_by_pipeline ON intents (pipeline);

-- Pulls: what was already delivered to the ERP, by record key and content hash.
CREATE TABLE seen (
  pipeline   TEXT NOT NULL,
  record_key TEXT NOT NULL,
  hash       TEXT NOT NULL,
  seen_at    INTEGER NOT NULL,
  PRIMARY KEY (pipeline, record_key)
);

CREATE TABLE runs (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  pipeline      TEXT NOT NULL,
  mode          TEXT NOT NULL,        -- sync | backfill | dry-run | retry
  lane          TEXT NOT NULL,        -- lock name the run held
  status        TEXT NOT NULL,        -- running | succeeded | failed | partial | aborted | crashed
  started_at    INTEGER NOT NULL,
  finished_at   INTEGER,
  pid           INTEGER,
  host          TEXT,
  range_json    TEXT,
  read          INTEGER NOT NULL DEFAULT 0,
  created       INTEGER NOT NULL DEFAULT 0,
  updated       INTEGER NOT NULL DEFAULT 0,
  unchanged     INTEGER NOT NULL DEFAULT 0,
  failed        INTEGER NOT NULL DEFAULT 0,
  dead_lettered INTEGER NOT NULL DEFAULT 0,
  warnings      INTEGER NOT NULL DEFAULT 0,
  requests      INTEGER NOT NULL DEFAULT 0,
  error         TEXT                   -- JSON of the run-level error
);
CREATE INDEX runs_by_pipeline ON runs (pipeline, started_at);
CREATE INDEX runs_by_status ON runs (status, started_at);
CREATE INDEX runs_by_time ON runs (started_at);
CREATE INDEX runs_by_lane ON runs (lane, status);

CREATE TABLE events (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id       INTEGER NOT NULL,
  pipeline     TEXT NOT NULL,
  resource     TEXT,
  erp_key      TEXT,
  shop_id      TEXT,
  outcome      TEXT NOT NULL,         -- created | updated | unchanged | failed | dead-lettered | delivered | skipped
  codes        TEXT,                  -- space-separated warning and error codes
  warnings     TEXT,                  -- JSON array
  error        TEXT,                  -- JSON
  payload_hash TEXT,
  payload      TEXT,                  -- JSON (absent for unchanged records)
  diff         TEXT,                  -- JSON (dry runs and updates when known)
  at           INTEGER NOT NULL
);
CREATE INDEX events_by_run ON events (run_id, id);
CREATE INDEX events_by_erp_key ON events (resource, erp_key, at);
CREATE INDEX events_by_shop_id ON events (resource, shop_id, at);
CREATE INDEX events_by_time ON events (at, outcome);
CREATE INDEX events_by_pipeline ON events (pipeline, at);

CREATE TABLE dead_letters (
  id             INTEGER PRIMARY KEY AUTOINCREMENT,
  pipeline       TEXT NOT NULL,
  resource       TEXT,
  erp_key        TEXT NOT NULL,
  record         TEXT NOT NULL,       -- JSON: the source record, so a retry re-maps it
  payload        TEXT,                -- JSON: the payload last tried, when mapping got that far
  code           TEXT NOT NULL,
  reason         TEXT NOT NULL,
  attempts       INTEGER NOT NULL DEFAULT 1,
  run_id         INTEGER,
  first_failed_at INTEGER NOT NULL,
  last_failed_at INTEGER NOT NULL,
  UNIQUE (pipeline, erp_key)
);
CREATE INDEX dead_letters_by_time ON dead_letters (last_failed_at);

-- Append-only list entries (order status history) and whether the shop is known to hold them.
CREATE TABLE history_entries (
  resource  TEXT NOT NULL,
  shop_id   TEXT NOT NULL,
  identity  TEXT NOT NULL,           -- hash of the entry's identity fields
  state     TEXT NOT NULL,           -- pending (a request may be in flight) | sent (the shop holds it)
  entry     TEXT NOT NULL,           -- JSON
  run_id    INTEGER,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (resource, shop_id, identity)
);
CREATE INDEX history_pending ON history_entries (state, resource);

-- One row per lane (pipeline, or pipeline#backfill:<range>): who runs it right now.
CREATE TABLE locks (
  name         TEXT PRIMARY KEY,
  owner        TEXT NOT NULL,
  pid          INTEGER NOT NULL,
  host         TEXT NOT NULL,
  acquired_at  INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL
);
