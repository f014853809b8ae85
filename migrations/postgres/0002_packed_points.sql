-- bench-db schema, version 2, PostgreSQL dialect of migrations/0002_packed_points.sql: a
-- series' points are one packed value of the series row, a block's printed numbers one JSON
-- value of the block row.

-- The numbers the tool printed about the block as a whole: a JSON array of
-- [metric, percentile, name, value], in printed order.
ALTER TABLE block ADD COLUMN printed text NOT NULL DEFAULT '[]';

-- The number of a 'value' series.
ALTER TABLE series ADD COLUMN value double precision;
-- The points of a 'ladder', 'histogram' (its merged ladder) or 'timeseries' series,
-- packed as described in src/store/pack.rs.
ALTER TABLE series ADD COLUMN points bytea;

-- The migration step `pack_v1_rows` (src/store/pg/mod.rs) then moves the rows of table
-- `point` into `series.value` and `series.points`, and those of `printed_stat` into
-- `block.printed`, with the same packing as SQLite, and drops both tables.

-- Serves ingest's check whether a file has the size of a stored source.
CREATE INDEX source_bytes ON source (bytes);
