-- bench-db schema, version 4: which benchmark a run is, and which metadata a source was
-- stored under.

-- The benchmark's full name as its tool names it (JMH `package.Class.method`, Go
-- `BenchmarkName/sub`, Criterion `group/function/value`, a hyperfine command); NULL for a
-- format that names none. Never rewritten by a label.
ALTER TABLE run ADD COLUMN bench TEXT;
-- JSON array: the keys of `params` that are the benchmark's configuration (JMH @Params,
-- Go configuration lines, a target rate); what a run measured is not among them.
ALTER TABLE run ADD COLUMN config TEXT NOT NULL DEFAULT '[]';

-- Criterion and hyperfine runs stored before version 4 kept the benchmark's name as
-- their block's label: it becomes their bench. (Their metric names still hold it, and
-- what other formats dropped at ingest cannot come back: `bench-db migrate` lists the
-- sources to ingest again.)
UPDATE run SET bench = (SELECT b.label FROM block b WHERE b.id = run.block_id)
 WHERE block_id IN (SELECT b.id FROM block b JOIN source s ON s.id = b.source_id
                     WHERE s.format IN ('criterion', 'hyperfine') AND b.label IS NOT NULL);

-- Hex SHA-256 of the run metadata the user gave at ingest (commit, branch, explicit tags,
-- label, suite): the same bytes under other metadata are other runs. '' for sources stored
-- before version 4.
ALTER TABLE source ADD COLUMN identity TEXT NOT NULL DEFAULT '';
DROP INDEX source_sha256;
-- Serves the idempotency check of ingest: the same content under the same metadata is
-- "unchanged".
CREATE UNIQUE INDEX source_content ON source (sha256, identity);
