-- Each shop's run of failed runs and its pause (docs/operations.md, "A shop failing for days"), in
-- the state so every replica skips a paused shop and `shopsync shops resume` reaches them all.
-- Counting is one statement per finished run (failures = failures + 1), so replicas never lose a count.
CREATE TABLE shop_streaks (
  shop          TEXT PRIMARY KEY,
  failures      INTEGER NOT NULL DEFAULT 0,
  failing_since BIGINT,                  -- epoch ms of the first failed run of the streak
  last_error    TEXT,
  paused_at     BIGINT,                  -- epoch ms; NULL = not paused
  paused_reason TEXT
);
