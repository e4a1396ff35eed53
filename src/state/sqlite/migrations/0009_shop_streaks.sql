-- Each shop's run of failed runs and its pause (docs/operations.md, "A shop failing for days"), in
-- the state so every replica skips a paused shop and `shopsync shops resume` reaches them all.
CREATE TABLE shop_streaks (
  shop          TEXT PRIMARY KEY,
  failures      INTEGER NOT NULL DEFAULT 0,
  failing_since INTEGER,
  last_error    TEXT,
  paused_at     INTEGER,
  paused_reason TEXT
);
