-- Renamed articles (issue 46): the number (products_model, a manufacturer's name) a record kept by a
-- stable ERP id had when shopsync last wrote it. The same ERP id with another number is a rename of
-- the same shop record, seen without asking the shop; NULL = not known (a reference written before,
-- or by a mapping keyed by the number itself), and then the shop is asked before an update.
ALTER TABLE refs ADD COLUMN number TEXT;
CREATE INDEX refs_by_number ON refs (shop, resource, number) WHERE number IS NOT NULL;
