-- bench-db schema, version 2: the points of a series are packed into the series row.
--
-- Version 1 stored one `point` row per percentile or sample and one `printed_stat` row per
-- printed number, which made an ingest insert (and index) about thirty rows per run; now a
-- series is one row and a block's printed numbers are one value. The database is also
-- marked as bench-db's with `PRAGMA application_id` (set by the migration runner).

-- The numbers the tool printed about the block as a whole: a JSON array of
-- [metric, percentile, name, value], in printed order.
ALTER TABLE block ADD COLUMN printed TEXT NOT NULL DEFAULT '[]';

-- The number of a 'value' series.
ALTER TABLE series ADD COLUMN value REAL;
-- The points of a 'ladder', 'histogram' (its merged ladder) or 'timeseries' series,
-- packed as described in src/store/pack.rs.
ALTER TABLE series ADD COLUMN points BLOB;

-- The migration step `pack_v1_rows` (src/store/pack.rs) then moves the rows of table
-- `point` into `series.value` and `series.points`, and those of `printed_stat` into
-- `block.printed`, and drops both tables (SQL has no portable way to pack numbers into
-- bytes, and SQLite's JSON would round the numbers to 15 digits).

-- Serves ingest's check whether a file has the size of a stored source (then it is hashed
-- before it is parsed, so an unchanged file is not parsed again).
CREATE INDEX source_bytes ON source (bytes);
