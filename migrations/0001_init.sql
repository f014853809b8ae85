-- bench-db schema, version 1. Append-only: later changes go in new files.

-- One ingested input (a file, or the printed output of a built-in run).
CREATE TABLE source (
    id             INTEGER PRIMARY KEY,
    path           TEXT    NOT NULL,
    sha256         TEXT    NOT NULL,
    bytes          INTEGER NOT NULL,
    format         TEXT    NOT NULL,
    parser         TEXT    NOT NULL,  -- parser name and version, e.g. "jlbh 1"
    ingested_at    TEXT    NOT NULL   -- RFC 3339, UTC
);
-- Serves the idempotency check of ingest: same content is "unchanged".
CREATE UNIQUE INDEX source_sha256 ON source (sha256);

-- One independent result block of a source.
CREATE TABLE block (
    id          INTEGER PRIMARY KEY,
    source_id   INTEGER NOT NULL REFERENCES source (id) ON DELETE CASCADE,
    idx         INTEGER NOT NULL,
    label       TEXT,              -- as found in the source (lead line), before overrides
    first_line  INTEGER NOT NULL,
    last_line   INTEGER NOT NULL
);
-- Serves loading the blocks of a source.
CREATE INDEX block_source ON block (source_id);

-- Numbers the tool printed about a block as a whole (JLBH % Variation, var(log)).
CREATE TABLE printed_stat (
    block_id    INTEGER NOT NULL REFERENCES block (id) ON DELETE CASCADE,
    metric      TEXT    NOT NULL,
    percentile  REAL,
    name        TEXT    NOT NULL,
    value       REAL
);
-- Serves loading a run's block statistics.
CREATE INDEX printed_stat_block ON printed_stat (block_id);

CREATE TABLE run (
    id          INTEGER PRIMARY KEY,
    block_id    INTEGER NOT NULL REFERENCES block (id) ON DELETE CASCADE,
    suite       TEXT    NOT NULL,
    label       TEXT    NOT NULL,
    run_index   INTEGER NOT NULL,
    first_line  INTEGER NOT NULL,
    last_line   INTEGER NOT NULL,
    params      TEXT    NOT NULL DEFAULT '{}',  -- JSON object
    tags        TEXT    NOT NULL DEFAULT '{}'   -- JSON object of strings
);
-- Serves selectors by block (grouping) and by suite and label.
CREATE INDEX run_block ON run (block_id);
CREATE INDEX run_suite_label ON run (suite, label);

CREATE TABLE series (
    id            INTEGER PRIMARY KEY,
    run_id        INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    metric        TEXT    NOT NULL,
    display       TEXT    NOT NULL,
    unit          TEXT    NOT NULL,
    kind          TEXT    NOT NULL CHECK (kind IN ('ladder', 'histogram', 'timeseries', 'value')),
    sample_count  INTEGER,
    stats         TEXT    NOT NULL DEFAULT '{}'  -- JSON object of printed summary numbers
);
-- Serves loading a run's series.
CREATE INDEX series_run ON series (run_id);

-- Ladder points (percentile set), time-series points (t set) and single values (neither).
CREATE TABLE point (
    series_id   INTEGER NOT NULL REFERENCES series (id) ON DELETE CASCADE,
    percentile  REAL,
    t           REAL,
    value       REAL,
    line_value  REAL
);
-- Serves loading a series' points.
CREATE INDEX point_series ON point (series_id);

-- Serialized HDR histograms (V2 compressed), one per interval.
CREATE TABLE histogram (
    series_id   INTEGER NOT NULL REFERENCES series (id) ON DELETE CASCADE,
    idx         INTEGER NOT NULL,
    t           REAL,
    duration    REAL,
    tag         TEXT,
    encoded     BLOB    NOT NULL
);
-- Serves loading a series' histograms.
CREATE INDEX histogram_series ON histogram (series_id);
