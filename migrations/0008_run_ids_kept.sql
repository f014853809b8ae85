-- bench-db schema, version 8: a run's id is never given to another run.
--
-- Without AUTOINCREMENT SQLite gives a new row the largest id stored plus one, so after
-- `rm` of the newest runs the next ingest took their ids, and `run=ID` written down before
-- (in a script, a CI log, a report's link) then named another run. The table is rebuilt
-- with AUTOINCREMENT (SQLite cannot add it to a table in place); the migration runner turns
-- foreign keys off around it and checks them before it commits, as SQLite's procedure for
-- rebuilding a table asks. Ids removed before this version are not known and may be given
-- once more; from now on none is.
CREATE TABLE run_new (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    block_id    INTEGER NOT NULL REFERENCES block (id) ON DELETE CASCADE,
    suite       TEXT    NOT NULL,
    label       TEXT    NOT NULL,
    run_index   INTEGER NOT NULL,
    first_line  INTEGER NOT NULL,
    last_line   INTEGER NOT NULL,
    params      TEXT    NOT NULL DEFAULT '{}',  -- JSON object
    tags        TEXT    NOT NULL DEFAULT '{}',  -- JSON object of strings
    bench       TEXT,
    config      TEXT    NOT NULL DEFAULT '[]',
    at_ns       INTEGER,
    commit_tag  TEXT
);
INSERT INTO run_new (id, block_id, suite, label, run_index, first_line, last_line, params, tags,
                     bench, config, at_ns, commit_tag)
    SELECT id, block_id, suite, label, run_index, first_line, last_line, params, tags,
           bench, config, at_ns, commit_tag
    FROM run ORDER BY id;
DROP TABLE run;
ALTER TABLE run_new RENAME TO run;
CREATE INDEX run_block ON run (block_id);
CREATE INDEX run_suite_label ON run (suite, label);
CREATE INDEX run_recency ON run (at_ns, id);
