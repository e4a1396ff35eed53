-- Daemon replicas on a shared state. Each `shopsync run` on a PostgreSQL state beats here every few
-- seconds with the ids of its job-engine workers; a replica that finds another silent for longer
-- than `replicas.deadAfterMs` frees the jobs and queues that replica's workers held (the job
-- engine alone would keep them locked for hours) and removes its row. Times are epoch ms of the
-- database server's clock, so replicas on machines whose clocks disagree still agree on who is silent.
CREATE TABLE replicas (
  id           TEXT PRIMARY KEY,
  name         TEXT NOT NULL,
  host         TEXT NOT NULL,
  pid          INTEGER NOT NULL,
  started_at   BIGINT NOT NULL,
  heartbeat_at BIGINT NOT NULL,
  worker_ids   TEXT NOT NULL DEFAULT '[]'  -- JSON array of the replica's job-engine worker ids
);
