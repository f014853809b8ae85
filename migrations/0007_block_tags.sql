-- bench-db schema, version 7: a block's tags that all its runs share are indexed once.

-- One row per tag that every run of a block has with the same value (a JLBH output's five
-- runs share the commit, branch, host, dirty and time tags an ingest gives them): one row
-- for the block instead of one per run. `tag.KEY=VALUE` finds the runs of these blocks and
-- the runs of run_tag; a run's tags are those of run_tag and of its block's block_tag.
-- Runs stored before keep every tag in run_tag.
CREATE TABLE block_tag (
    block_id INTEGER NOT NULL,
    key      TEXT    NOT NULL,
    value    TEXT    NOT NULL,
    PRIMARY KEY (key, value, block_id)
) WITHOUT ROWID;
