-- Alert messages sent in the last hour by the whole deployment, so `alerts.maxPerHour` holds for
-- all replicas together. A replica takes a slot (under a transaction-level advisory lock, so two
-- replicas never both take the last one) before it sends; rows older than an hour are deleted then.
CREATE TABLE alert_sends (
  at BIGINT NOT NULL               -- epoch ms, the server's clock
);
CREATE INDEX alert_sends_at ON alert_sends (at);
