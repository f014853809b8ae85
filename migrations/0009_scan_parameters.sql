-- bench-db schema, version 9: a hyperfine parameter scan is one benchmark per command.
--
-- hyperfine rewrites `sleep 0.0{n}` into `sleep 0.01`, `sleep 0.02`, …, and its terminal
-- and Markdown outputs print only that command. Runs stored before version 9 kept the scan's
-- values (`n`) as configuration, so a scan's JSON or CSV export and its terminal output
-- were two benchmarks. Since version 9 the values stay params and leave the configuration
-- wherever the command already tells the steps apart: in a source where every command ran
-- with one set of values (the exit code is what a run did, not a value of the scan). A
-- source where one command ran with two sets (a `--command-name` without the parameter)
-- keeps them, as the parser does.
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
                           HAVING COUNT(DISTINCT json_remove(r2.params, '$.exit_code')) > 1));
