-- bench-db schema, version 6, PostgreSQL dialect: tag lookups and the history terms
-- answered by indexes. A step in Rust then fills both from the runs already stored.

-- One row per tag of a run, as its `tags` object holds them: `tag.KEY=VALUE` finds its
-- runs through the primary key (and a walk along run_recency tests each run by it).
CREATE TABLE run_tag (
    run_id  bigint NOT NULL,
    key     text   NOT NULL,
    value   text   NOT NULL,
    PRIMARY KEY (key, value, run_id)
);

-- The run's time as the history terms judge it (its `time` tag, else its source's ingest
-- time) in nanoseconds since 1970 UTC; NULL when it has none that parses, or one outside
-- 1677–2262. `latest=N` walks run_recency from the newest run and stops after N commits,
-- each run's commit (its `commit` tag) read from commit_tag.
ALTER TABLE run ADD COLUMN at_ns bigint;
ALTER TABLE run ADD COLUMN commit_tag text;
CREATE INDEX run_recency ON run (at_ns, id);
