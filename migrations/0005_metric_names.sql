-- bench-db schema, version 5: metric names that never hold a benchmark's name. Standard
-- SQL: SQLite and PostgreSQL both run this file.

-- Criterion and hyperfine series stored before version 4 were named after their
-- benchmark (`fibonacci_fib_10`, `sleep_0_01`, `fibonacci_fib_10.thrpt`), with the
-- benchmark's name as their display name. Since version 4 the run's bench holds that name
-- and the metric is the quantity alone: `time`, and `thrpt` for Criterion's throughput.
-- Series written since then already carry those names. (Their stored blobs predate
-- checksums, so renaming them invalidates none.)
UPDATE series SET metric = 'time'
 WHERE metric <> 'time'
   AND display = (SELECT r.bench FROM run r WHERE r.id = series.run_id)
   AND run_id IN (SELECT r.id FROM run r
                    JOIN block b ON b.id = r.block_id
                    JOIN source s ON s.id = b.source_id
                   WHERE s.format IN ('criterion', 'hyperfine'));
UPDATE series SET metric = 'thrpt'
 WHERE metric <> 'thrpt'
   AND display = (SELECT r.bench || ' thrpt' FROM run r WHERE r.id = series.run_id)
   AND run_id IN (SELECT r.id FROM run r
                    JOIN block b ON b.id = r.block_id
                    JOIN source s ON s.id = b.source_id
                   WHERE s.format = 'criterion');
