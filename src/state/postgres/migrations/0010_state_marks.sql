-- What lets a state that went back in time say so (docs/operations.md, "The state goes back in
-- time"): `restored` (written by `shopsync state restore` into the file it put in place),
-- `accepted:<pipeline>` (the user's say-so, `shopsync state accept-restore`) and
-- `inflight:<pipeline>` (the keys of the pull batch being written to the sink, so a row the sink
-- committed just before the state went away is not mistaken for a delivery of an older state).
-- Values are JSON: a few rows per pipeline, read once per run or batch.
CREATE TABLE state_marks (
  name  TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
