-- Who owns a field (issue 46, docs/mappings.md "Who owns a field"). A mapping field with
-- `owner: guard` is compared before an update: the shop's value against what shopsync last sent.
--
-- sent_values: the last value the shop accepted for each guard field of a record, per pipeline
-- (written in the commit of the record's hash), and the ERP's value it stands for when that is
-- another (NULL: the same; "keep shop" stores the shop's value over the ERP's it declined, so the
-- field stays out of updates until the ERP changes it). JSON text; `at` in ms.
CREATE TABLE sent_values (
  pipeline   TEXT NOT NULL,
  record_key TEXT NOT NULL,
  field      TEXT NOT NULL,
  value      TEXT NOT NULL,
  erp_value  TEXT,
  at         BIGINT NOT NULL,
  PRIMARY KEY (pipeline, record_key, field)
);

-- field_conflicts: a guard field the shop's people changed (the shop's value is neither the one
-- last sent nor the ERP's), left as the shop has it and kept here until a person decides. One row
-- per pipeline, record and field: a conflict that comes back after it was resolved opens its row
-- again. The values are JSON text; sent_value NULL = shopsync does not know what it last sent.
-- status: open | resolved; resolution: erp | shop | agreed (while open, erp = the next run sends
-- the ERP's value). Times in ms.
CREATE TABLE field_conflicts (
  pipeline    TEXT NOT NULL,
  erp_key     TEXT NOT NULL,
  field       TEXT NOT NULL,
  shop        TEXT NOT NULL,
  resource    TEXT NOT NULL,
  shop_id     TEXT,
  erp_value   TEXT,
  sent_value  TEXT,
  shop_value  TEXT,
  status      TEXT NOT NULL,
  resolution  TEXT,
  first_seen  BIGINT NOT NULL,
  last_seen   BIGINT NOT NULL,
  resolved_at BIGINT,
  run_id      BIGINT,
  PRIMARY KEY (pipeline, erp_key, field)
);
-- status, the dashboard and every push ask for the open ones of a pipeline.
CREATE INDEX field_conflicts_open ON field_conflicts (pipeline, status);

-- Guard fields a run held (a conflict, or a shop it could not read): a run with them says so.
ALTER TABLE runs ADD COLUMN conflicts BIGINT NOT NULL DEFAULT 0;
