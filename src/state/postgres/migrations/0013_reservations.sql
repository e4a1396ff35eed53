-- Reservations (issue 43, docs/catalog.md "Stock and orders in flight"): the shop's order lines
-- that booked stock in the shop and that the ERP has not booked yet. Times are ISO text: they are
-- shown and compared as instants, never summed.
CREATE TABLE reservations (
  shop         TEXT NOT NULL,
  orders_id    BIGINT NOT NULL,
  pos          INTEGER NOT NULL,
  article      TEXT NOT NULL,
  sku          TEXT,
  warehouse    BIGINT,
  quantity     DOUBLE PRECISION NOT NULL,
  placed_at    TEXT NOT NULL,
  seen_at      TEXT NOT NULL,
  delivered_at TEXT,
  booked_at    TEXT,
  released_at  TEXT,
  PRIMARY KEY (shop, orders_id, pos)
);
CREATE INDEX reservations_open ON reservations (shop, article) WHERE booked_at IS NULL AND released_at IS NULL;
-- The day the shop's orders were last read from, per shop.
CREATE TABLE reservation_cursors (
  shop TEXT PRIMARY KEY,
  day  TEXT NOT NULL
);
-- "Stock travels on its own": the last stock figure sent per pipeline, record and stock field.
CREATE TABLE stock_sent (
  pipeline   TEXT NOT NULL,
  record_key TEXT NOT NULL,
  field      TEXT NOT NULL,
  erp        TEXT NOT NULL,
  reserved   TEXT NOT NULL,
  sent       TEXT NOT NULL,
  at         TEXT NOT NULL,
  PRIMARY KEY (pipeline, record_key, field)
);
