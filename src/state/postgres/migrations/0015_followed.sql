-- Followed records (issue 44, docs/pipelines-and-state.md "Orders after checkout"): the orders a
-- pull with `follow:` delivered, what it delivered of each (snapshot) and every change since, until
-- the order is done (final status, age, gone from the shop). Written in the same commit as the
-- record's seen hash. snapshot and changes are JSON text; times are ISO text.
CREATE TABLE followed (
  pipeline    TEXT NOT NULL,
  record_key  TEXT NOT NULL,
  shop        TEXT NOT NULL,
  placed_day  TEXT NOT NULL,
  status      INTEGER,
  cancelled   BOOLEAN NOT NULL DEFAULT FALSE,
  snapshot    TEXT NOT NULL,
  changes     TEXT NOT NULL,
  first_at    TEXT NOT NULL,
  changed_at  TEXT,
  done_at     TEXT,
  done_reason TEXT,
  PRIMARY KEY (pipeline, record_key)
);
-- The follow pass reads the open rows by placement day.
CREATE INDEX followed_open ON followed (pipeline, placed_day) WHERE done_at IS NULL;
-- The push guard asks by shop and order, whichever pipeline follows it.
CREATE INDEX followed_shop ON followed (shop, record_key);
