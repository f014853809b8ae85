//! Writing into SQLite: one `BEGIN IMMEDIATE` transaction per source, blocks inserted as
//! they arrive, so memory stays flat on large logs; relabelling; removal.

use super::SqliteStore;
use crate::selector::time_ns;
use crate::store::backend::BlockFeed;
use crate::store::backend::{Digest, IngestError};
use crate::store::rows::{
    BlockRows, Removed, SeriesValues, SourceRecord, StoredRunKey, StoredSource, Written,
};
use bench_db_parsers::{Data, Series};
use rusqlite::{OptionalExtension, Statement, Transaction, TransactionBehavior, params};
use std::collections::{BTreeSet, HashSet};

/// The page cache of an ingest, in KiB: what a large source's writes touch between two
/// commits (the tables' last pages, the indexes' pages) without spilling.
const INGEST_CACHE_KIB: i64 = 16 * 1024;

impl From<rusqlite::Error> for IngestError {
    fn from(e: rusqlite::Error) -> Self {
        IngestError::Db(e.into())
    }
}

impl SqliteStore {
    pub(super) fn stored_format(
        &self,
        sha256: &str,
        identity: &str,
    ) -> anyhow::Result<Option<String>> {
        Ok(self
            .conn
            .prepare_cached("SELECT format FROM source WHERE sha256 = ?1 AND identity = ?2")?
            .query_row([sha256, identity], |r| r.get(0))
            .optional()?)
    }

    pub(super) fn stored_source(
        &self,
        sha256: &str,
        identity: &str,
    ) -> anyhow::Result<Option<StoredSource>> {
        let mut stmt = self.conn.prepare_cached(STORED_SOURCE_SQL)?;
        let mut rows = stmt.query([sha256, identity])?;
        let mut found: Option<StoredSource> = None;
        while let Some(r) = rows.next()? {
            let source = found.get_or_insert(StoredSource {
                id: r.get(0)?,
                runs: Vec::new(),
            });
            if let (Some(block_idx), Some(block_id), Some(run_index), Some(label)) =
                (r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)
            {
                source.runs.push(StoredRunKey {
                    block_idx,
                    block_id,
                    run_index,
                    label,
                });
            }
        }
        Ok(found)
    }

    /// One indexed lookup per distinct size.
    pub(super) fn stored_sizes(&self, sizes: &[u64]) -> anyhow::Result<HashSet<u64>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM source WHERE bytes = ?1)")?;
        let mut found = HashSet::new();
        for &bytes in sizes {
            if !found.contains(&bytes) && stmt.query_row([bytes as i64], |r| r.get(0))? {
                found.insert(bytes);
            }
        }
        Ok(found)
    }

    /// Runs `write` with SQLite's CHECK constraints and foreign keys off and a page cache
    /// of [`INGEST_CACHE_KIB`]. The schema's one CHECK (`series.kind IN (…)`) makes SQLite
    /// build a temporary table for its list on every inserted series, a tenth of an
    /// ingest's time; the kind the writers store comes from `Series::kind`, always one of
    /// the four. The foreign keys of the rows an ingest writes point at rows it inserted
    /// just before in the same transaction, which holds the write lock: checking them is
    /// a lookup per row, and with them on, a statement inserting several rows needs a
    /// journal of its own (to undo just that statement) that copies every page it
    /// touches. The larger cache keeps the pages an ingest changes in memory until its
    /// commit instead of spilling them into the WAL and reading them back. Each setting
    /// is put back afterwards (`foreign_keys` only acts outside a transaction, as here).
    fn for_ingest<T, E: From<rusqlite::Error>>(
        &mut self,
        write: impl FnOnce(&mut SqliteStore) -> Result<T, E>,
    ) -> Result<T, E> {
        let cache: i64 = self.conn.query_row("PRAGMA cache_size", [], |r| r.get(0))?;
        let foreign_keys: bool = self
            .conn
            .query_row("PRAGMA foreign_keys", [], |r| r.get(0))?;
        self.conn
            .pragma_update(None, "cache_size", -INGEST_CACHE_KIB)?;
        self.conn
            .pragma_update(None, "ignore_check_constraints", true)?;
        self.conn.pragma_update(None, "foreign_keys", false)?;
        let done = write(self);
        self.conn
            .pragma_update(None, "foreign_keys", foreign_keys)?;
        self.conn
            .pragma_update(None, "ignore_check_constraints", false)?;
        self.conn.pragma_update(None, "cache_size", cache)?;
        done
    }

    pub(super) fn write_source(
        &mut self,
        record: &SourceRecord,
        into: Option<i64>,
        blocks: &mut BlockFeed,
        digest: &mut dyn FnMut() -> Result<Digest, IngestError>,
    ) -> Result<Written, IngestError> {
        self.for_ingest(|s| s.write_source_unchecked(record, into, blocks, digest))
    }

    fn write_source_unchecked(
        &mut self,
        record: &SourceRecord,
        into: Option<i64>,
        blocks: &mut BlockFeed,
        digest: &mut dyn FnMut() -> Result<Digest, IngestError>,
    ) -> Result<Written, IngestError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut out = Written::default();
        {
            let mut w = Writer::new(&tx, &record.ingested_at)?;
            let mut source_id = into;
            for block in blocks {
                let mut block = block?;
                let sid = match source_id {
                    Some(id) => id,
                    None => *source_id.insert(insert_source(&tx, record)?),
                };
                w.block(sid, &mut block, &mut out)?;
                out.blocks += 1;
            }
            // Runs added to a stored source: its content is stored already.
            if into.is_none() {
                let d = digest()?;
                let Some(sid) = source_id else {
                    return Ok(out);
                };
                let seen: bool = tx.query_row(
                    "SELECT EXISTS (SELECT 1 FROM source WHERE sha256 = ?1 AND identity = ?2)",
                    [&d.sha256, &record.identity],
                    |r| r.get(0),
                )?;
                if seen {
                    return Ok(Written {
                        unchanged: true,
                        ..Written::default()
                    });
                }
                tx.execute(
                    "UPDATE source SET sha256 = ?2, bytes = ?3 WHERE id = ?1",
                    params![sid, d.sha256, d.bytes as i64],
                )?;
            }
        }
        tx.commit()?;
        Ok(out)
    }

    pub(super) fn relabel(&mut self, ids: &[i64], label: &str) -> anyhow::Result<usize> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut n = 0;
        {
            let mut set = tx.prepare("UPDATE run SET label = ?1 WHERE id = ?2")?;
            for id in ids {
                n += set.execute(params![label, id])?;
            }
        }
        tx.commit()?;
        Ok(n)
    }
}

impl SqliteStore {
    /// Removes runs, then their sources' blocks left without a run and the sources left
    /// without a block, in one `BEGIN IMMEDIATE` transaction. Children are deleted before
    /// their parents, so the foreign keys hold throughout. A dry run only reads
    /// ([`Self::would_remove`]).
    pub(super) fn remove(&mut self, ids: &[i64], dry_run: bool) -> anyhow::Result<Removed> {
        if dry_run {
            return self.would_remove(ids);
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut out = Removed::default();
        {
            let mut source_of = tx.prepare(
                "SELECT b.source_id FROM run r JOIN block b ON b.id = r.block_id WHERE r.id = ?1",
            )?;
            let mut hists = tx.prepare(
                "DELETE FROM histogram WHERE series_id IN (SELECT id FROM series WHERE run_id = ?1)",
            )?;
            let mut series = tx.prepare("DELETE FROM series WHERE run_id = ?1")?;
            let mut run = tx.prepare("DELETE FROM run WHERE id = ?1")?;
            let mut sources = BTreeSet::new();
            let mut ids = ids.to_vec();
            ids.sort_unstable();
            ids.dedup();
            for id in ids {
                let Some(sid) = source_of
                    .query_row([id], |r| r.get::<_, i64>(0))
                    .optional()?
                else {
                    continue;
                };
                hists.execute([id])?;
                series.execute([id])?;
                run.execute([id])?;
                sources.insert(sid);
                out.runs.push(id);
            }
            delete_tags(&tx, "run_tag", "run_id", &out.runs)?;
            let mut blocks = tx.prepare(
                "DELETE FROM block WHERE source_id = ?1
                 AND NOT EXISTS (SELECT 1 FROM run WHERE run.block_id = block.id)
                 RETURNING id",
            )?;
            let mut source = tx.prepare(
                "DELETE FROM source WHERE id = ?1
                 AND NOT EXISTS (SELECT 1 FROM block WHERE block.source_id = source.id)
                 RETURNING path",
            )?;
            let mut gone: Vec<i64> = Vec::new();
            for sid in sources {
                for id in blocks.query_map([sid], |r| r.get(0))? {
                    gone.push(id?);
                }
                if let Some(path) = source.query_row([sid], |r| r.get(0)).optional()? {
                    out.sources.push(path);
                }
            }
            delete_tags(&tx, "block_tag", "block_id", &gone)?;
        }
        tx.commit()?;
        Ok(out)
    }

    /// What [`Self::remove`] would remove, from one read transaction: the stored runs among
    /// `ids`, and their sources of which every run is among them.
    fn would_remove(&mut self, ids: &[i64]) -> anyhow::Result<Removed> {
        let tx = self.conn.transaction()?;
        let mut out = Removed::default();
        {
            let mut source_of = tx.prepare(
                "SELECT b.source_id FROM run r JOIN block b ON b.id = r.block_id WHERE r.id = ?1",
            )?;
            let mut taken: std::collections::BTreeMap<i64, i64> = Default::default();
            let mut ids = ids.to_vec();
            ids.sort_unstable();
            ids.dedup();
            for id in ids {
                if let Some(sid) = source_of
                    .query_row([id], |r| r.get::<_, i64>(0))
                    .optional()?
                {
                    *taken.entry(sid).or_default() += 1;
                    out.runs.push(id);
                }
            }
            let mut runs_of = tx.prepare(
                "SELECT count(*) FROM run r JOIN block b ON b.id = r.block_id WHERE b.source_id = ?1",
            )?;
            let mut path = tx.prepare("SELECT path FROM source WHERE id = ?1")?;
            for (sid, n) in taken {
                if runs_of.query_row([sid], |r| r.get::<_, i64>(0))? == n {
                    out.sources.push(path.query_row([sid], |r| r.get(0))?);
                }
            }
        }
        tx.rollback()?;
        Ok(out)
    }
}

/// Deletes the index rows of these runs or blocks (`table`'s `column` among `ids`). The tag
/// tables are keyed by tag: one pass over one for all the ids, 10,000 bound per statement.
fn delete_tags(tx: &Transaction, table: &str, column: &str, ids: &[i64]) -> rusqlite::Result<()> {
    for chunk in ids.chunks(10_000) {
        tx.execute(
            &format!(
                "DELETE FROM {table} WHERE {column} IN ({})",
                vec!["?"; chunk.len()].join(", ")
            ),
            rusqlite::params_from_iter(chunk),
        )?;
    }
    Ok(())
}

/// A stored source's runs, each with its block ([`StoredSource`]); the source row alone
/// when it has none.
const STORED_SOURCE_SQL: &str = "SELECT s.id, b.idx, b.id, r.run_index, r.label FROM source s
     LEFT JOIN block b ON b.source_id = s.id LEFT JOIN run r ON r.block_id = b.id
     WHERE s.sha256 = ?1 AND s.identity = ?2";

/// Moves a block's shared tags (`block_tag`, which every run of the block has) to each
/// of its runs' own rows (`run_tag`), before runs that need not have them join it.
const UNSHARE_TAGS_SQL: &str = "INSERT INTO run_tag (run_id, key, value)
     SELECT r.id, bt.key, bt.value FROM block_tag bt JOIN run r ON r.block_id = bt.block_id
     WHERE bt.block_id = ?1";

/// Inserts the source row. The hash is set once the whole source has been read; until
/// then (inside this transaction only) the row holds a placeholder no real hash equals.
fn insert_source(tx: &Transaction, record: &SourceRecord) -> rusqlite::Result<i64> {
    tx.execute(
        "INSERT INTO source (path, sha256, bytes, format, parser, ingested_at, identity) VALUES (?1, 'pending', 0, ?2, ?3, ?4, ?5)",
        params![record.path, record.format, record.parser, record.ingested_at, record.identity],
    )?;
    Ok(tx.last_insert_rowid())
}

/// The columns of a `run_tag`, `block_tag` and `series` row, as the writer inserts them.
/// `OR FAIL`: a failing row fails the statement without undoing the rows before it, so
/// SQLite keeps no journal for the statement (the transaction is rolled back whole).
const TAG_INSERT: (&str, usize) = (
    "INSERT OR FAIL INTO run_tag (run_id, key, value) VALUES ",
    3,
);
const BLOCK_TAG_INSERT: (&str, usize) = (
    "INSERT OR FAIL INTO block_tag (block_id, key, value) VALUES ",
    3,
);
const SERIES_INSERT: (&str, usize) = (
    "INSERT OR FAIL INTO series (run_id, metric, display, unit, kind, sample_count, stats, value, points) VALUES ",
    9,
);
/// The most rows one multi-row `INSERT` takes: a block's tags and series (a JLBH output's
/// five runs make 10 and 20) go in one statement, a larger block in several.
const ROWS_PER_INSERT: usize = 32;

/// The prepared statements of one write.
struct Writer<'t> {
    tx: &'t Transaction<'t>,
    /// The source's ingest time: a run's time when it has no `time` tag.
    ingested_at: &'t str,
    block: Statement<'t>,
    run: Statement<'t>,
    series: Statement<'t>,
    hist: Statement<'t>,
    /// Multi-row inserts by row count: one statement per block for its runs' tags and
    /// one for their series instead of one per row, since each statement's execution
    /// costs about what its rows do (cursors opened and closed, the VM started).
    tags: Many<'t>,
    block_tags: Many<'t>,
    many_series: Many<'t>,
}

/// `INSERT … VALUES (…), (…)` statements of one table, prepared once per row count.
struct Many<'t> {
    head: &'static str,
    cols: usize,
    by_rows: std::collections::HashMap<usize, Statement<'t>>,
}

impl<'t> Many<'t> {
    fn new((head, cols): (&'static str, usize)) -> Self {
        Many {
            head,
            cols,
            by_rows: std::collections::HashMap::new(),
        }
    }

    /// Inserts `rows` in order, `bind` setting row `i`'s columns from parameter `at + 1`
    /// on (rowids are then given in the same order as by one insert per row).
    fn insert<T>(
        &mut self,
        tx: &'t Transaction<'t>,
        rows: &[T],
        mut bind: impl FnMut(&mut Statement<'t>, usize, &T) -> rusqlite::Result<()>,
    ) -> rusqlite::Result<()> {
        for chunk in rows.chunks(ROWS_PER_INSERT) {
            let stmt = match self.by_rows.entry(chunk.len()) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    let row = format!("({})", vec!["?"; self.cols].join(", "));
                    let sql = format!("{}{}", self.head, vec![row; chunk.len()].join(", "));
                    e.insert(tx.prepare(&sql)?)
                }
            };
            for (i, row) in chunk.iter().enumerate() {
                bind(stmt, i * self.cols, row)?;
            }
            stmt.raw_execute()?;
        }
        Ok(())
    }
}

impl<'t> Writer<'t> {
    fn new(tx: &'t Transaction<'t>, ingested_at: &'t str) -> rusqlite::Result<Self> {
        Ok(Writer {
            tx,
            ingested_at,
            block: tx.prepare(
                "INSERT INTO block (source_id, idx, label, first_line, last_line, printed) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?,
            run: tx.prepare(
                "INSERT INTO run (block_id, suite, label, run_index, first_line, last_line, params, tags, bench, config, at_ns, commit_tag)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            )?,
            series: tx.prepare(
                "INSERT INTO series (run_id, metric, display, unit, kind, sample_count, stats, value, points)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?,
            hist: tx.prepare(
                "INSERT INTO histogram (series_id, idx, t, duration, tag, encoded) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?,
            tags: Many::new(TAG_INSERT),
            block_tags: Many::new(BLOCK_TAG_INSERT),
            many_series: Many::new(SERIES_INSERT),
        })
    }

    /// Writes a block with its runs and their series.
    fn block(
        &mut self,
        source_id: i64,
        b: &mut BlockRows,
        out: &mut Written,
    ) -> Result<(), IngestError> {
        let encoded = b.take_encoded()?;
        let block_id = match b.stored {
            Some(id) => {
                self.tx.execute(UNSHARE_TAGS_SQL, [id])?;
                self.tx
                    .execute("DELETE FROM block_tag WHERE block_id = ?1", [id])?;
                id
            }
            None => {
                self.block.execute(params![
                    source_id,
                    b.idx,
                    b.label,
                    b.first_line as i64,
                    b.last_line as i64,
                    encoded.printed
                ])?;
                self.tx.last_insert_rowid()
            }
        };
        let mut run_ids = Vec::with_capacity(b.runs.len());
        for (r, e) in b.runs.iter().zip(&encoded.runs) {
            self.run.execute(params![
                block_id,
                r.suite,
                r.label,
                r.run.index,
                r.run.first_line as i64,
                r.run.last_line as i64,
                e.params,
                e.tags,
                r.run.bench,
                e.config,
                time_ns(&r.run.tags, self.ingested_at),
                r.run.tags.get("commit"),
            ])?;
            run_ids.push(self.tx.last_insert_rowid());
        }
        let (shared, own) = b.index_tags();
        self.block_tags
            .insert(self.tx, &shared, |stmt, at, &(key, value)| {
                stmt.raw_bind_parameter(at + 1, block_id)?;
                stmt.raw_bind_parameter(at + 2, key)?;
                stmt.raw_bind_parameter(at + 3, value)
            })?;
        self.tags
            .insert(self.tx, &own, |stmt, at, &(i, key, value)| {
                stmt.raw_bind_parameter(at + 1, run_ids[i])?;
                stmt.raw_bind_parameter(at + 2, key)?;
                stmt.raw_bind_parameter(at + 3, value)
            })?;
        let series: Vec<(i64, &Series, &SeriesValues)> = b
            .runs
            .iter()
            .zip(&encoded.runs)
            .zip(&run_ids)
            .flat_map(|((r, e), &id)| {
                r.run
                    .series
                    .iter()
                    .zip(&e.series)
                    .map(move |(s, v)| (id, s, v))
            })
            .collect();
        out.points += series.iter().map(|(_, _, v)| v.stored).sum::<usize>();
        let histograms = series
            .iter()
            .any(|(_, s, _)| matches!(&s.data, Data::Histogram { intervals, .. } if !intervals.is_empty()));
        if histograms {
            // Each histogram's rows need their series' id: one insert per series.
            for &(run_id, s, v) in &series {
                self.series(run_id, s, v)?;
            }
        } else {
            self.many_series
                .insert(self.tx, &series, |stmt, at, &(run_id, s, v)| {
                    stmt.raw_bind_parameter(at + 1, run_id)?;
                    stmt.raw_bind_parameter(at + 2, &s.metric)?;
                    stmt.raw_bind_parameter(at + 3, &s.display)?;
                    stmt.raw_bind_parameter(at + 4, &s.unit)?;
                    stmt.raw_bind_parameter(at + 5, s.kind())?;
                    stmt.raw_bind_parameter(at + 6, v.count)?;
                    stmt.raw_bind_parameter(at + 7, &v.stats)?;
                    stmt.raw_bind_parameter(at + 8, v.value)?;
                    stmt.raw_bind_parameter(at + 9, &v.points)
                })?;
        }
        out.run_ids.extend(run_ids);
        Ok(())
    }

    /// One series row, and its histogram's rows.
    fn series(&mut self, run_id: i64, s: &Series, v: &SeriesValues) -> Result<(), IngestError> {
        self.series.execute(params![
            run_id,
            s.metric,
            s.display,
            s.unit,
            s.kind(),
            v.count,
            v.stats,
            v.value,
            v.points
        ])?;
        if let Data::Histogram { intervals, .. } = &s.data {
            let series_id = self.tx.last_insert_rowid();
            for (i, h) in intervals.iter().enumerate() {
                self.hist.execute(params![
                    series_id, i as i64, h.t, h.duration, h.tag, h.encoded
                ])?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::store::{BlockDefaults, Db, Digest, SourceMeta};
    use bench_db_parsers::format_by_name;
    use std::path::Path;

    /// The tags of every run, from `run_tag` and its block's `block_tag`: what `run_tag`
    /// alone held before schema 7.
    const RUN_TAGS: &str = "(SELECT run_id, key, value FROM run_tag UNION ALL
        SELECT r.id, bt.key, bt.value FROM block_tag bt JOIN run r ON r.block_id = bt.block_id)";

    /// Every row an ingest wrote, all columns but the ingest time, in key order: the
    /// stored bytes as SQLite gives them back (each run's tags as one row each, wherever
    /// the index keeps them).
    fn stored_rows(path: &Path) -> String {
        let c = rusqlite::Connection::open(path).unwrap();
        let mut out = String::new();
        for (table, cols, order) in [
            (
                "source",
                "id, path, sha256, bytes, format, parser, identity",
                "id",
            ),
            (
                "block",
                "id, source_id, idx, label, first_line, last_line, printed",
                "id",
            ),
            ("run", "*", "id"),
            ("run_tag", "*", "key, value, run_id"),
            ("series", "*", "id"),
            ("histogram", "*", "series_id, idx"),
        ] {
            let from = if table == "run_tag" { RUN_TAGS } else { table };
            let mut stmt = c
                .prepare(&format!("SELECT {cols} FROM {from} ORDER BY {order}"))
                .unwrap();
            let n = stmt.column_count();
            let mut rows = stmt.query([]).unwrap();
            while let Some(row) = rows.next().unwrap() {
                out.push_str(table);
                for i in 0..n {
                    let v: rusqlite::types::Value = row.get(i).unwrap();
                    out.push_str(&format!(" {v:?}"));
                }
                out.push('\n');
            }
        }
        out
    }

    /// Ingests fixtures of every kind of series (ladders, histograms with their
    /// intervals, time series, single values, blocks with printed numbers).
    fn ingest_fixtures(db: &Path) {
        let mut store = Db::open(&crate::store::url::Target::Sqlite(db.to_path_buf())).unwrap();
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        for (format, file) in [
            ("jlbh", "jlbh/two-outputs.txt"),
            ("jlbh", "jlbh/v10-current.txt"),
            ("hlog", "hlog/tiny-tagged.hlog"),
            ("tsar", "tsar/history-tail.txt"),
            ("wrk", "wrk/wrk2-u_latency.txt"),
            ("jmh", "jmh/gc-profiler-and-single-shot.txt"),
            ("k6", "k6/summary-export.json"),
            ("hyperfine", "hyperfine/hash-old-layout.txt"),
        ] {
            let format = format_by_name(format).unwrap();
            let bytes = std::fs::read(root.join(file)).unwrap();
            let meta = SourceMeta {
                path: file.to_string(),
                format: format.name.to_string(),
                parser: format!("{} {}", format.name, format.version),
            };
            let defaults = BlockDefaults {
                suite: format.name.to_string(),
                fallback_label: file.to_string(),
                tags: [("host", "h"), ("commit", "c0ffee")]
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                time_fallback: Some("2026-11-30T12:00:00Z".to_string()),
                ..BlockDefaults::default()
            };
            let items = format.read(Box::new(std::io::Cursor::new(bytes.clone())));
            let done = store
                .ingest(&meta, items, &defaults, || Ok(Digest::of(&bytes)))
                .unwrap();
            assert!(done.runs > 0, "{file}");
        }
    }

    #[test]
    fn stored_rows_are_as_before_multi_row_inserts() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("b.db");
        ingest_fixtures(&db);
        let rows = stored_rows(&db);
        for table in ["run_tag", "histogram", "series", "block"] {
            assert!(rows.contains(&format!("\n{table} ")), "no {table} row");
        }
        // The tags every run of a block shares are kept once for the block.
        let c = rusqlite::Connection::open(&db).unwrap();
        let count = |sql: &str| c.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap();
        assert!(count("SELECT count(*) FROM block_tag") > 0);
        assert!(
            count("SELECT count(*) FROM run_tag")
                < count(&format!("SELECT count(*) FROM {RUN_TAGS}"))
        );
        // SHA-256 of the same rows written by one INSERT per row with every column
        // encoded on the writing thread (the writer before multi-row inserts).
        let digest = Digest::of(rows.as_bytes());
        assert_eq!(
            (digest.sha256.as_str(), rows.lines().count()),
            (
                "29a2abc7b5f8dd587e263f80decc9293334012d3ff649e6219a7797b69719512",
                165
            ),
            "{rows}"
        );
    }
}
