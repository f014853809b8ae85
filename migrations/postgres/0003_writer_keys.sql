-- bench-db schema, version 3, PostgreSQL dialect: the foreign keys between the stored tables
-- are dropped.
--
-- PostgreSQL checks a foreign key with one row-locking query per inserted row, run as a
-- trigger at the end of each `COPY`; on a bulk ingest those checks cost the server more than
-- the rows themselves. Only bench-db writes these tables: an ingest or copy draws a batch's
-- ids from the sequences and writes each parent before its children in the same
-- transaction, and nothing deletes rows, so the keys never caught anything. The indexes the
-- reads use stay.
ALTER TABLE block DROP CONSTRAINT IF EXISTS block_source_id_fkey;
ALTER TABLE run DROP CONSTRAINT IF EXISTS run_block_id_fkey;
ALTER TABLE series DROP CONSTRAINT IF EXISTS series_run_id_fkey;
ALTER TABLE histogram DROP CONSTRAINT IF EXISTS histogram_series_id_fkey;
