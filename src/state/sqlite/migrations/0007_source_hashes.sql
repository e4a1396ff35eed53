-- The hash of the ERP record (with the mapping's fingerprint) whose payload hash is `hash`: a record
-- read again with the same source hash is unchanged without being mapped again. NULL when the
-- mapping of that record looked something up (a reference, a file) or warned: then it is mapped
-- every time. Rows written before this step have none and are mapped once more.
ALTER TABLE sent_hashes ADD COLUMN source_hash TEXT;
