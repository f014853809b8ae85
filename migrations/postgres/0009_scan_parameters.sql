-- bench-db schema, version 9, PostgreSQL dialect: a hyperfine parameter scan is one
-- benchmark per command (see migrations/0009_scan_parameters.sql); `params` is JSON text,
-- read as jsonb to leave the exit code out.
UPDATE run SET config = '[]'
 WHERE config <> '[]'
   AND block_id IN (SELECT b.id FROM block b
                      JOIN source s ON s.id = b.source_id
                     WHERE s.format = 'hyperfine'
                       AND b.source_id NOT IN (
                           SELECT b2.source_id FROM run r2
                             JOIN block b2 ON b2.id = r2.block_id
                             JOIN source s2 ON s2.id = b2.source_id
                            WHERE s2.format = 'hyperfine'
                            GROUP BY b2.source_id, r2.bench
                           HAVING COUNT(DISTINCT (r2.params::jsonb - 'exit_code')) > 1));
