-- Alert incidents of the whole deployment, so replicas on one state send one message per incident
-- and one per recovery. Opening (INSERT … ON CONFLICT) and resolving (UPDATE … WHERE state =
-- 'open') are single statements: only the replica whose statement changed the row sends. A message
-- claimed but not yet confirmed keeps its text in `message` with the sender's `claim` and
-- `lease_until` (epoch ms, the server's clock); if that replica dies, another takes it over once the
-- lease has run out. A resolved incident's row goes once its recovery message is out.
CREATE TABLE alert_incidents (
  id          TEXT PRIMARY KEY,          -- kind, or kind:pipeline
  state       TEXT NOT NULL CHECK (state IN ('open', 'resolved')),
  since       BIGINT NOT NULL,           -- when it opened, epoch ms
  message     TEXT,                      -- JSON of the message still to send (without `since`)
  claim       TEXT,                      -- who sends it
  lease_until BIGINT                     -- after this, another replica may send it
);
