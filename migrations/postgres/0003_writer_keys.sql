-- bench-db schema, version 3, PostgreSQL dialect: the foreign keys between the stored tables
-- are dropped, and two indexes that served only writes.
--
-- PostgreSQL checks a foreign key with one row-locking query per inserted row, run as a
-- trigger at the end of each `COPY`; on a bulk ingest those checks cost the server more than
-- the rows themselves. Only bench-db writes these tables: an ingest or copy draws a batch's
-- ids from the sequences and writes each parent before its children in the same
-- transaction, and nothing deletes rows, so the keys never caught anything.
ALTER TABLE block DROP CONSTRAINT IF EXISTS block_source_id_fkey;
ALTER TABLE run DROP CONSTRAINT IF EXISTS run_block_id_fkey;
ALTER TABLE series DROP CONSTRAINT IF EXISTS series_run_id_fkey;
ALTER TABLE histogram DROP CONSTRAINT IF EXISTS histogram_series_id_fkey;

-- Every inserted row also costs an insert into each index of its table, and a series is
-- four rows in five of an ingest. No read looks a series up by its id (a run's series are
-- found through series_run, its histograms by their own key), so the series' primary-key
-- index goes; the id stays unique, drawn from its identity sequence. run_block served the
-- cascade of the dropped key (reads go from a run to its block, through block's key).
ALTER TABLE series DROP CONSTRAINT IF EXISTS series_pkey;
DROP INDEX IF EXISTS run_block;
