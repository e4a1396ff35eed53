-- Several shops in one deployment. References, create intents and history entries are per shop
-- (the same ERP article pushed to two shops has two shop ids); runs, events and dead letters name
-- the shop they concern so the dashboard and the CLI can filter by it. Rows written before this
-- step belong to the shop named `default` (a config's single `shop:` block). PostgreSQL alters the
-- tables in place where SQLite rebuilds them; the resulting columns and keys are the same.
ALTER TABLE refs ADD COLUMN shop TEXT NOT NULL DEFAULT 'default';
ALTER TABLE refs ALTER COLUMN shop DROP DEFAULT;
ALTER TABLE refs DROP CONSTRAINT refs_pkey, ADD PRIMARY KEY (shop, resource, erp_key);
DROP INDEX refs_by_shop_id;
CREATE INDEX refs_by_shop_id ON refs (shop, resource, shop_id);

ALTER TABLE intents ADD COLUMN shop TEXT NOT NULL DEFAULT 'default';
ALTER TABLE intents ALTER COLUMN shop DROP DEFAULT;
ALTER TABLE intents DROP CONSTRAINT intents_pkey, ADD PRIMARY KEY (shop, resource, erp_key);

ALTER TABLE history_entries ADD COLUMN shop TEXT NOT NULL DEFAULT 'default';
ALTER TABLE history_entries ALTER COLUMN shop DROP DEFAULT;
ALTER TABLE history_entries DROP CONSTRAINT history_entries_pkey, ADD PRIMARY KEY (shop, resource, shop_id, identity);
DROP INDEX history_pending;
CREATE INDEX history_pending ON history_entries (state, shop, resource);

ALTER TABLE runs ADD COLUMN shop TEXT NOT NULL DEFAULT 'default';
CREATE INDEX runs_by_shop ON runs (shop, started_at);
ALTER TABLE events ADD COLUMN shop TEXT NOT NULL DEFAULT 'default';
CREATE INDEX events_by_shop ON events (shop, at);
ALTER TABLE dead_letters ADD COLUMN shop TEXT NOT NULL DEFAULT 'default';
