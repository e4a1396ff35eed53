-- Alert incidents (the same table as in PostgreSQL, so both backends keep one contract and one step
-- number). A SQLite state has one daemon, so the claims never compete; keeping incidents here still
-- means a restarted daemon neither repeats an incident it already reported nor forgets to send its
-- recovery.
CREATE TABLE alert_incidents (
  id          TEXT PRIMARY KEY,
  state       TEXT NOT NULL CHECK (state IN ('open', 'resolved')),
  since       INTEGER NOT NULL,
  message     TEXT,
  claim       TEXT,
  lease_until INTEGER
);
