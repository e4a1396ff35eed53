-- Where a dead letter's record came from (file, line or element, raw text), so the person who
-- fixes it finds the row; NULL for letters of records that were read fine and failed later.
ALTER TABLE dead_letters ADD COLUMN origin TEXT;

-- Records a source could not use (broken rows, no key, unreadable files), counted apart from the
-- records that failed later, so a run's summary says what was never read.
ALTER TABLE runs ADD COLUMN unreadable BIGINT NOT NULL DEFAULT 0;
