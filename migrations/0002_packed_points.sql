-- bench-db schema, version 2: the points of a series are packed into the series row.
--
-- Version 1 stored one `point` row per percentile or sample, which made an ingest insert
-- (and index) about twenty rows per run; now a series is one row. The database is also
-- marked as bench-db's with `PRAGMA application_id` (set by the migration runner).

-- The number of a 'value' series.
ALTER TABLE series ADD COLUMN value REAL;
-- The points of a 'ladder', 'histogram' (its merged ladder) or 'timeseries' series,
-- packed as described in src/store/pack.rs.
ALTER TABLE series ADD COLUMN points BLOB;

-- The migration step `pack_v1_points` (src/store/pack.rs) then moves the rows of table
-- `point` into `series.value` and `series.points` and drops table `point` (SQL has no
-- portable way to pack numbers into bytes).
