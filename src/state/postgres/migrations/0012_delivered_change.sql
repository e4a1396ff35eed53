-- When the newest source version delivered for this record changed in the ERP (epoch ms, read from
-- its timestamp cursor without zone correction, so two versions of one record compare alike). A
-- delivery whose change time is not later (a row read again by the lookback and sent again, a
-- retry, the older of two rows sharing a key) is no new change: it is not a change latency. Only
-- ever raised; NULL for rows written before this step and for sources without a timestamp cursor.
ALTER TABLE sent_hashes ADD COLUMN changed_at BIGINT;
