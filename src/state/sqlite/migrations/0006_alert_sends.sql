-- Alert messages sent in the last hour (the same table as in PostgreSQL), for `alerts.maxPerHour`.
CREATE TABLE alert_sends (
  at INTEGER NOT NULL
);
CREATE INDEX alert_sends_at ON alert_sends (at);
