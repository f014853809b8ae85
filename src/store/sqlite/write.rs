//! Writing into SQLite: one `BEGIN IMMEDIATE` transaction per source, blocks inserted as
//! they arrive, so memory stays flat on large logs; relabelling; removal.

use super::SqliteStore;
use crate::selector::time_ns;
use crate::store::backend::BlockFeed;
use crate::store::backend::{Digest, IngestError};
use crate::store::rows::{
    BlockRows, Removed, SeriesValues, SourceRecord, Written, printed_to_json,
};
use bench_db_parsers::{Data, Series};
use rusqlite::{OptionalExtension, Statement, Transaction, TransactionBehavior, params};
use std::collections::BTreeSet;

impl From<rusqlite::Error> for IngestError {
    fn from(e: rusqlite::Error) -> Self {
        IngestError::Db(e.into())
    }
}

impl SqliteStore {
    pub(super) fn has_source(&self, sha256: &str, identity: &str) -> anyhow::Result<bool> {
        Ok(self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM source WHERE sha256 = ?1 AND identity = ?2)",
            [sha256, identity],
            |r| r.get(0),
        )?)
    }

    pub(super) fn has_source_of_size(&self, bytes: u64) -> anyhow::Result<bool> {
        Ok(self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM source WHERE bytes = ?1)",
            [bytes as i64],
            |r| r.get(0),
        )?)
    }

    /// Runs `write` with SQLite's CHECK constraints off. The schema's one CHECK
    /// (`series.kind IN (…)`) makes SQLite build a temporary table for its list on every
    /// inserted series, a tenth of an ingest's time; the kind the writers store comes
    /// from `Series::kind`, always one of the four.
    fn without_checks<T, E: From<rusqlite::Error>>(
        &mut self,
        write: impl FnOnce(&mut SqliteStore) -> Result<T, E>,
    ) -> Result<T, E> {
        self.conn
            .pragma_update(None, "ignore_check_constraints", true)?;
        let done = write(self);
        self.conn
            .pragma_update(None, "ignore_check_constraints", false)?;
        done
    }

    pub(super) fn write_source(
        &mut self,
        record: &SourceRecord,
        blocks: &mut BlockFeed,
        digest: &mut dyn FnMut() -> Result<Digest, IngestError>,
    ) -> Result<Written, IngestError> {
        self.without_checks(|s| s.write_source_unchecked(record, blocks, digest))
    }

    fn write_source_unchecked(
        &mut self,
        record: &SourceRecord,
        blocks: &mut BlockFeed,
        digest: &mut dyn FnMut() -> Result<Digest, IngestError>,
    ) -> Result<Written, IngestError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut out = Written::default();
        {
            let mut w = Writer::new(&tx, &record.ingested_at)?;
            let mut source_id = None;
            for block in blocks {
                let block = block?;
                let sid = match source_id {
                    Some(id) => id,
                    None => *source_id.insert(insert_source(&tx, record)?),
                };
                w.block(sid, &block, &mut out)?;
                out.blocks += 1;
            }
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
    /// without a block, in one `BEGIN IMMEDIATE` transaction (rolled back on a dry run).
    /// Children are deleted before their parents, so the foreign keys hold throughout.
    pub(super) fn remove(&mut self, ids: &[i64], dry_run: bool) -> anyhow::Result<Removed> {
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
            // run_tag is keyed by tag: one pass over it for all the runs removed.
            for chunk in out.runs.chunks(10_000) {
                tx.execute(
                    &format!(
                        "DELETE FROM run_tag WHERE run_id IN ({})",
                        vec!["?"; chunk.len()].join(", ")
                    ),
                    rusqlite::params_from_iter(chunk),
                )?;
            }
            let mut blocks = tx.prepare(
                "DELETE FROM block WHERE source_id = ?1
                 AND NOT EXISTS (SELECT 1 FROM run WHERE run.block_id = block.id)",
            )?;
            let mut source = tx.prepare(
                "DELETE FROM source WHERE id = ?1
                 AND NOT EXISTS (SELECT 1 FROM block WHERE block.source_id = source.id)
                 RETURNING path",
            )?;
            for sid in sources {
                blocks.execute([sid])?;
                if let Some(path) = source.query_row([sid], |r| r.get(0)).optional()? {
                    out.sources.push(path);
                }
            }
        }
        if dry_run {
            tx.rollback()?;
        } else {
            tx.commit()?;
        }
        Ok(out)
    }
}

/// Inserts the source row. The hash is set once the whole source has been read; until
/// then (inside this transaction only) the row holds a placeholder no real hash equals.
fn insert_source(tx: &Transaction, record: &SourceRecord) -> rusqlite::Result<i64> {
    tx.execute(
        "INSERT INTO source (path, sha256, bytes, format, parser, ingested_at, identity) VALUES (?1, 'pending', 0, ?2, ?3, ?4, ?5)",
        params![record.path, record.format, record.parser, record.ingested_at, record.identity],
    )?;
    Ok(tx.last_insert_rowid())
}

/// The prepared statements of one write.
struct Writer<'t> {
    tx: &'t Transaction<'t>,
    /// The source's ingest time: a run's time when it has no `time` tag.
    ingested_at: &'t str,
    block: Statement<'t>,
    run: Statement<'t>,
    tag: Statement<'t>,
    series: Statement<'t>,
    hist: Statement<'t>,
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
            tag: tx.prepare("INSERT INTO run_tag (run_id, key, value) VALUES (?1, ?2, ?3)")?,
            series: tx.prepare(
                "INSERT INTO series (run_id, metric, display, unit, kind, sample_count, stats, value, points)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?,
            hist: tx.prepare(
                "INSERT INTO histogram (series_id, idx, t, duration, tag, encoded) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?,
        })
    }

    /// Writes a block with its runs and their series.
    fn block(
        &mut self,
        source_id: i64,
        b: &BlockRows,
        out: &mut Written,
    ) -> Result<(), IngestError> {
        self.block.execute(params![
            source_id,
            b.idx,
            b.label,
            b.first_line as i64,
            b.last_line as i64,
            printed_to_json(&b.printed)?
        ])?;
        let block_id = self.tx.last_insert_rowid();
        for r in &b.runs {
            self.run.execute(params![
                block_id,
                r.suite,
                r.label,
                r.run.index,
                r.run.first_line as i64,
                r.run.last_line as i64,
                serde_json::to_string(&r.run.params)?,
                serde_json::to_string(&r.run.tags)?,
                r.run.bench,
                serde_json::to_string(&r.run.config)?,
                time_ns(&r.run.tags, self.ingested_at),
                r.run.tags.get("commit"),
            ])?;
            let run_id = self.tx.last_insert_rowid();
            for (key, value) in &r.run.tags {
                self.tag.execute(params![run_id, key, value])?;
            }
            for series in &r.run.series {
                self.series(run_id, series, out)?;
            }
            out.run_ids.push(run_id);
        }
        Ok(())
    }

    fn series(&mut self, run_id: i64, s: &Series, out: &mut Written) -> Result<(), IngestError> {
        let v = SeriesValues::of(s)?;
        out.points += v.stored;
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
