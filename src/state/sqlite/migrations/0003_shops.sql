-- Several shops in one deployment. References, create intents and history entries are per shop
-- (the same ERP article pushed to two shops has two shop ids); runs, events and dead letters name
-- the shop they concern so the dashboard and the CLI can filter by it. Rows written before this
-- step belong to the shop named `default` (a config's single `shop:` block).
CREATE TABLE refs_v3 (
  shop       TEXT NOT NULL,
  resource   TEXT NOT NULL,
  erp_key    TEXT NOT NULL,
  shop_id    TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (shop, resource, erp_key)
);
INSERT INTO refs_v3 SELECT 'default', resource, erp_key, shop_id, created_at, updated_at FROM refs;
DROP TABLE refs;
ALTER TABLE refs_v3 RENAME TO refs;
CREATE INDEX refs_by_shop_id ON refs (shop, resource, shop_id);

CREATE TABLE intents_v3 (
  shop        TEXT NOT NULL,
  resource    TEXT NOT NULL,
  erp_key     TEXT NOT NULL,
  pipeline    TEXT NOT NULL,
  hash        TEXT NOT NULL,
  natural_key TEXT,
  run_id      INTEGER,
  created_at  INTEGER NOT NULL,
  PRIMARY KEY (shop, resource, erp_key)
);
INSERT INTO intents_v3 SELECT 'default', resource, erp_key, pipeline, hash, natural_key, run_id, created_at FROM intents;
DROP TABLE intents;
ALTER TABLE intents_v3 RENAME TO intents;
CREATE INDEX intents_by_pipeline ON intents (pipeline);

CREATE TABLE history_entries_v3 (
  shop       TEXT NOT NULL,
  resource   TEXT NOT NULL,
  shop_id    TEXT NOT NULL,
  identity   TEXT NOT NULL,
  state      TEXT NOT NULL,
  entry      TEXT NOT NULL,
  run_id     INTEGER,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (shop, resource, shop_id, identity)
);
INSERT INTO history_entries_v3 SELECT 'default', resource, shop_id, identity, state, entry, run_id, updated_at FROM history_entries;
DROP TABLE history_entries;
ALTER TABLE history_entries_v3 RENAME TO history_entries;
CREATE INDEX history_pending ON history_entries (state, shop, resource);

ALTER TABLE runs ADD COLUMN shop TEXT NOT NULL DEFAULT 'default';
CREATE INDEX runs_by_shop ON runs (shop, started_at);
ALTER TABLE events ADD COLUMN shop TEXT NOT NULL DEFAULT 'default';
CREATE INDEX events_by_shop ON events (shop, at);
ALTER TABLE dead_letters ADD COLUMN shop TEXT NOT NULL DEFAULT 'default';
