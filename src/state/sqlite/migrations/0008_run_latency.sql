-- The change latency of a run's delivered records (change timestamp → the shop's answer) as bucket
-- counts: {"le":[bounds in s],"c":[counts, one more than le],"sum":s,"max":s,"skew":n}. NULL for
-- runs that observed none (first syncs, backfills, runs that delivered nothing). The dashboard sums
-- the last hour's runs for its p50/p95, so every replica shows every replica's runs.
ALTER TABLE runs ADD COLUMN latency_json TEXT;
