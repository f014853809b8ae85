//! Copying runs between two stores of either kind (`bench-db copy`), idempotently: a source
//! whose content hash the target already holds is skipped whole.
//!
//! Runs are copied source by source, in the order of their first run id, each source in
//! one transaction of the target, so ids come out in the same order they had (a fresh
//! target gets the same ids). What is copied: the source's provenance (path, hash, size,
//! format, parser, ingest time), its blocks (raw label, line range, printed statistics)
//! and every selected run with its suite, label, parameters, tags, series, points and
//! histograms. Only blocks holding a selected run are copied.

use super::Store;
use super::backend::Db;
use crate::dataset::StoredRun;
use crate::selector::Selector;
use crate::store::{BlockDefaults, Digest, SourceMeta};
use anyhow::{Context, Result};
use bench_db_parsers::{Block, Parsed, PrintedStat, Run};
use rusqlite::params;

/// A source's provenance as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceRecord {
    pub path: String,
    pub sha256: String,
    pub bytes: u64,
    pub format: String,
    pub parser: String,
    pub ingested_at: String,
}

/// A stored block's own columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockMeta {
    pub id: i64,
    pub idx: i64,
    /// As found in the source (lead line), before overrides.
    pub label: Option<String>,
    pub first_line: u64,
    pub last_line: u64,
}

/// One run with the suite and label it is stored under (tags already final).
#[derive(Debug, Clone)]
pub struct RunRows {
    pub suite: String,
    pub label: String,
    pub run: Run,
}

/// A block ready to be written: its columns, printed statistics and runs.
#[derive(Debug, Clone)]
pub struct BlockRows {
    pub idx: i64,
    pub label: Option<String>,
    pub first_line: u64,
    pub last_line: u64,
    pub printed: Vec<PrintedStat>,
    pub runs: Vec<RunRows>,
}

/// What a copy did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Copied {
    /// Sources written to the target.
    pub sources: usize,
    /// Sources skipped because the target already held their content.
    pub present: usize,
    /// Runs written to the target.
    pub runs: usize,
}

/// Copies the runs `sel` picks in `from` into `to`; `each` hears about every source (and
/// how many runs were written, `None` when it was already present).
pub fn copy(
    from: &Db,
    to: &mut Db,
    sel: &Selector,
    mut each: impl FnMut(&SourceRecord, Option<usize>),
) -> Result<Copied> {
    let runs = from.select(sel)?;
    // Sources in the order of their first selected run; runs keep id order within each.
    let mut order: Vec<i64> = Vec::new();
    let mut by_source: std::collections::HashMap<i64, Vec<StoredRun>> = Default::default();
    for r in runs {
        if !by_source.contains_key(&r.source_id) {
            order.push(r.source_id);
        }
        by_source.entry(r.source_id).or_default().push(r);
    }
    let mut done = Copied::default();
    for sid in order {
        let runs = by_source.remove(&sid).unwrap_or_default();
        let (record, blocks) = from.source_blocks(sid)?;
        if to.has_source(&record.sha256)? {
            each(&record, None);
            done.present += 1;
            continue;
        }
        let rows = block_rows(blocks, runs);
        match to
            .insert_copy(&record, rows)
            .with_context(|| format!("cannot copy source {}", record.path))?
        {
            Some(ids) => {
                each(&record, Some(ids.len()));
                done.sources += 1;
                done.runs += ids.len();
            }
            None => {
                each(&record, None);
                done.present += 1;
            }
        }
    }
    Ok(done)
}

/// The selected runs of one source arranged under their blocks, in block order.
fn block_rows(blocks: Vec<BlockMeta>, runs: Vec<StoredRun>) -> Vec<BlockRows> {
    let mut out: Vec<(i64, BlockRows)> = blocks
        .into_iter()
        .map(|b| {
            (
                b.id,
                BlockRows {
                    idx: b.idx,
                    label: b.label,
                    first_line: b.first_line,
                    last_line: b.last_line,
                    printed: Vec::new(),
                    runs: Vec::new(),
                },
            )
        })
        .collect();
    for r in runs {
        if let Some((_, b)) = out.iter_mut().find(|(id, _)| *id == r.block_id) {
            if b.runs.is_empty() {
                b.printed = r.printed.clone();
            }
            b.runs.push(RunRows {
                suite: r.suite,
                label: r.label,
                run: r.run,
            });
        }
    }
    out.into_iter()
        .map(|(_, b)| b)
        .filter(|b| !b.runs.is_empty())
        .collect()
}

impl Store {
    /// A source's provenance and its blocks, in block order (for `copy`).
    pub fn source_blocks(&self, source_id: i64) -> Result<(SourceRecord, Vec<BlockMeta>)> {
        let record = self.conn.query_row(
            "SELECT path, sha256, bytes, format, parser, ingested_at FROM source WHERE id = ?1",
            [source_id],
            |r| {
                Ok(SourceRecord {
                    path: r.get(0)?,
                    sha256: r.get(1)?,
                    bytes: r.get::<_, i64>(2)? as u64,
                    format: r.get(3)?,
                    parser: r.get(4)?,
                    ingested_at: r.get(5)?,
                })
            },
        )?;
        let mut stmt = self.conn.prepare(
            "SELECT id, idx, label, first_line, last_line FROM block WHERE source_id = ?1 ORDER BY idx, id",
        )?;
        let blocks = stmt
            .query_map([source_id], |r| {
                Ok(BlockMeta {
                    id: r.get(0)?,
                    idx: r.get(1)?,
                    label: r.get(2)?,
                    first_line: r.get::<_, i64>(3)? as u64,
                    last_line: r.get::<_, i64>(4)? as u64,
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        Ok((record, blocks))
    }

    /// Stores a source copied from another store, unless its content is already here
    /// (then `None`); returns the new run ids.
    ///
    /// The rows go through [`Store::ingest`], so they are laid out exactly as an ingest
    /// lays them out; a second transaction then restores what an ingest decides itself:
    /// the ingest time, the blocks' raw labels and each run's own suite and label.
    pub fn insert_copy(
        &mut self,
        record: &SourceRecord,
        blocks: Vec<BlockRows>,
    ) -> Result<Option<Vec<i64>>> {
        if self.has_source(&record.sha256)? {
            return Ok(None);
        }
        let first = blocks.iter().flat_map(|b| &b.runs).next();
        let defaults = BlockDefaults {
            suite: first.map(|r| r.suite.clone()).unwrap_or_default(),
            label_override: None,
            fallback_label: String::new(),
            tags: Default::default(),
        };
        let meta = SourceMeta {
            path: record.path.clone(),
            format: record.format.clone(),
            parser: record.parser.clone(),
        };
        let items = blocks.iter().map(|b| {
            Ok(Parsed::Block(Block {
                label: b.runs.first().map(|r| r.label.clone()),
                first_line: b.first_line,
                last_line: b.last_line,
                runs: b.runs.iter().map(|r| r.run.clone()).collect(),
                printed: b.printed.clone(),
            }))
        });
        let digest = Digest {
            sha256: record.sha256.clone(),
            bytes: record.bytes,
        };
        let done = self.ingest(&meta, items, &defaults, || Ok(digest))?;
        if done.unchanged {
            return Ok(None);
        }
        let tx = self.conn.transaction()?;
        let sid: i64 = tx.query_row(
            "SELECT id FROM source WHERE sha256 = ?1",
            [&record.sha256],
            |r| r.get(0),
        )?;
        tx.execute(
            "UPDATE source SET ingested_at = ?2 WHERE id = ?1",
            params![sid, record.ingested_at],
        )?;
        let block_ids: Vec<i64> = tx
            .prepare("SELECT id FROM block WHERE source_id = ?1 ORDER BY idx")?
            .query_map([sid], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        let run_ids: Vec<i64> = tx
            .prepare(
                "SELECT r.id FROM run r JOIN block b ON b.id = r.block_id WHERE b.source_id = ?1 ORDER BY r.id",
            )?
            .query_map([sid], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        {
            let mut set_block =
                tx.prepare("UPDATE block SET idx = ?2, label = ?3 WHERE id = ?1")?;
            for (id, b) in block_ids.iter().zip(&blocks) {
                set_block.execute(params![id, b.idx, b.label])?;
            }
            let mut set_run = tx.prepare("UPDATE run SET suite = ?2, label = ?3 WHERE id = ?1")?;
            for (id, r) in run_ids.iter().zip(blocks.iter().flat_map(|b| &b.runs)) {
                set_run.execute(params![id, r.suite, r.label])?;
            }
        }
        tx.commit()?;
        Ok(Some(run_ids))
    }
}
