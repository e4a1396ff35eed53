-- The pipelines a shop-level incident holds (issue 45): a pipeline failing for the cause of an open
-- `shop-auth:<shop>` (or shop-unreachable, …) joins it instead of opening an incident of its own. A
-- JSON array of pipeline names, kept in the incident's row so a join is one statement on that row
-- and the recovery lists every pipeline the incident held, whichever replica saw it.
ALTER TABLE alert_incidents ADD COLUMN members TEXT;
