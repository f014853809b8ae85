//! Copying runs between two stores of either kind (`bench-db copy`), idempotently: a source
//! whose content hash the target already holds is skipped whole.
//!
//! Runs are copied source by source, in the order of their first run id, each source in
//! one transaction of the target, so ids come out in the same order they had (a fresh
//! target gets the same ids). A source's runs are read a chunk at a time and written as
//! they are read, so memory does not grow with the selection's data. What is copied: the source's provenance (path, hash, size,
//! format, parser, ingest time), its blocks (raw label, line range, printed statistics)
//! and every selected run with its suite, label, parameters, tags, series, points and
//! histograms. Only blocks holding a selected run are copied.

use super::backend::Db;
use super::insert::Writer;
use super::{Detail, Ingested, Store};
use crate::dataset::StoredRun;
use crate::selector::Selector;
use anyhow::{Context, Result};
use bench_db_parsers::{PrintedStat, Run};
use rusqlite::{TransactionBehavior, params};
use std::collections::{HashMap, VecDeque};

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

/// Runs read from the source store per query while a source is copied.
const CHUNK: usize = 1_000;

/// The rows of one copied source, each block as it is read.
pub type BlockStream<'a> = dyn Iterator<Item = Result<BlockRows>> + 'a;

/// Copies the runs `sel` picks in `from` into `to`; `each` hears about every source (and
/// how many runs were written, `None` when it was already present).
///
/// Memory stays bounded: the selection is first read as run heads (no points), of which
/// only the run and source ids are kept; then each source's runs are read back
/// [`CHUNK`] at a time and written as they come, in the target's transaction for that
/// source.
pub fn copy(
    from: &Db,
    to: &mut Db,
    sel: &Selector,
    mut each: impl FnMut(&SourceRecord, Option<usize>),
) -> Result<Copied> {
    // Sources in the order of their first selected run; run ids ascending within each.
    let mut order: Vec<(i64, Vec<i64>)> = Vec::new();
    let mut at: HashMap<i64, usize> = HashMap::new();
    from.for_each_run(sel, Detail::Heads, |r| {
        let i = *at.entry(r.source_id).or_insert_with(|| {
            order.push((r.source_id, Vec::new()));
            order.len() - 1
        });
        order[i].1.push(r.id);
        Ok(())
    })?;
    drop(at);
    let mut done = Copied::default();
    for (sid, ids) in order {
        let (record, blocks) = from.source_blocks(sid)?;
        if to.has_source(&record.sha256)? {
            each(&record, None);
            done.present += 1;
            continue;
        }
        let mut rows = SourceRows {
            from,
            blocks: blocks.into_iter().map(|b| (b.id, b)).collect(),
            ids: ids.into_iter(),
            pending: VecDeque::new(),
            failed: false,
        };
        match to
            .insert_copy(&record, &mut rows)
            .with_context(|| format!("cannot copy source {}", record.path))?
        {
            Some(runs) => {
                each(&record, Some(runs));
                done.sources += 1;
                done.runs += runs;
            }
            None => {
                each(&record, None);
                done.present += 1;
            }
        }
    }
    Ok(done)
}

/// The selected runs of one source, read from the source store [`CHUNK`] at a time and
/// handed out under their blocks, in block order (a source's run ids rise with its
/// blocks, so a block's runs come together).
struct SourceRows<'a> {
    from: &'a Db,
    blocks: HashMap<i64, BlockMeta>,
    ids: std::vec::IntoIter<i64>,
    pending: VecDeque<StoredRun>,
    failed: bool,
}

impl SourceRows<'_> {
    /// Reads the next chunk of runs when none is pending.
    fn fill(&mut self) -> Result<()> {
        if !self.pending.is_empty() {
            return Ok(());
        }
        let chunk: Vec<i64> = self.ids.by_ref().take(CHUNK).collect();
        if chunk.is_empty() {
            return Ok(());
        }
        let pending = &mut self.pending;
        self.from
            .for_each_run(&Selector::from_ids(chunk), Detail::Points, |r| {
                pending.push_back(r);
                Ok(())
            })?;
        Ok(())
    }

    fn next_block(&mut self) -> Result<Option<BlockRows>> {
        self.fill()?;
        let Some(first) = self.pending.front() else {
            return Ok(None);
        };
        let block_id = first.block_id;
        let meta = self.blocks.remove(&block_id).with_context(|| {
            format!(
                "run {} belongs to block {block_id}, which is not among its source's blocks \
                 or came apart from its other runs",
                first.id
            )
        })?;
        let mut block = BlockRows {
            idx: meta.idx,
            label: meta.label,
            first_line: meta.first_line,
            last_line: meta.last_line,
            printed: first.printed.clone(),
            runs: Vec::new(),
        };
        loop {
            match self.pending.front() {
                Some(r) if r.block_id == block_id => {
                    let r = self.pending.pop_front().expect("just seen");
                    block.runs.push(RunRows {
                        suite: r.suite,
                        label: r.label,
                        run: r.run,
                    });
                }
                Some(_) => break,
                None => {
                    self.fill()?;
                    if self.pending.is_empty() {
                        break;
                    }
                }
            }
        }
        Ok(Some(block))
    }
}

impl Iterator for SourceRows<'_> {
    type Item = Result<BlockRows>;

    fn next(&mut self) -> Option<Result<BlockRows>> {
        if self.failed {
            return None;
        }
        match self.next_block() {
            Ok(block) => block.map(Ok),
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
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
    /// (then `None`); returns how many runs were written. The blocks are written as the
    /// stream yields them, all in one transaction, with the source's, blocks' and runs'
    /// own columns (ingest time, raw block labels, each run's suite, label and tags).
    pub fn insert_copy(
        &mut self,
        record: &SourceRecord,
        blocks: &mut BlockStream,
    ) -> Result<Option<usize>> {
        self.without_checks(|s| s.insert_copy_unchecked(record, blocks))
    }

    fn insert_copy_unchecked(
        &mut self,
        record: &SourceRecord,
        blocks: &mut BlockStream,
    ) -> Result<Option<usize>> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let seen: bool = tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM source WHERE sha256 = ?1)",
            [&record.sha256],
            |r| r.get(0),
        )?;
        if seen {
            return Ok(None);
        }
        tx.execute(
            "INSERT INTO source (path, sha256, bytes, format, parser, ingested_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                record.path,
                record.sha256,
                record.bytes as i64,
                record.format,
                record.parser,
                record.ingested_at
            ],
        )?;
        let source_id = tx.last_insert_rowid();
        let mut out = Ingested::default();
        {
            let mut w = Writer::new(&tx)?;
            for block in blocks {
                let b = block?;
                let block_id = w.block_row(
                    source_id,
                    b.idx,
                    b.label.as_deref(),
                    (b.first_line, b.last_line),
                    &b.printed,
                )?;
                for r in &b.runs {
                    let tags = serde_json::to_string(&r.run.tags)?;
                    w.run(block_id, &r.suite, &r.label, &r.run, &tags, &mut out)?;
                    out.runs += 1;
                }
            }
        }
        tx.commit()?;
        Ok(Some(out.runs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Generated;
    use bench_db_parsers::{Block, Data, LadderPoint, Series};

    /// A source of `blocks` blocks of `runs` runs each, every run with one ladder.
    fn blocks(blocks: usize, runs: u32, seed: f64) -> Vec<Block> {
        (0..blocks)
            .map(|b| Block {
                label: Some(format!("block {b}")),
                first_line: b as u64 * 100 + 1,
                last_line: b as u64 * 100 + 99,
                runs: (1..=runs)
                    .map(|index| Run {
                        index,
                        series: vec![Series {
                            metric: "end_to_end".into(),
                            display: "End to End".into(),
                            unit: "us".into(),
                            data: Data::Ladder {
                                count: Some(1000),
                                points: vec![LadderPoint {
                                    percentile: 50.0,
                                    value: Some(seed + b as f64 + f64::from(index) / 1e3),
                                    line_value: None,
                                }],
                            },
                            stats: Default::default(),
                        }],
                        ..Run::default()
                    })
                    .collect(),
                printed: vec![PrintedStat {
                    metric: "end_to_end".into(),
                    percentile: Some(50.0),
                    name: "variation_pct".into(),
                    value: Some(seed),
                }],
            })
            .collect()
    }

    fn store_with(sources: &[(&str, Vec<Block>)]) -> Db {
        let mut s = Store::open_in_memory().unwrap();
        let tags = Default::default();
        for (text, blocks) in sources {
            s.insert_generated(&Generated {
                origin: "gen",
                format: "loopback",
                text,
                blocks,
                suite: "loopback",
                label_override: None,
                tags: &tags,
            })
            .unwrap();
        }
        Db::Sqlite(s)
    }

    fn all(db: &Db, sel: &Selector) -> Vec<String> {
        db.select(sel)
            .unwrap()
            .iter()
            .map(|r| format!("{r:?}"))
            .collect()
    }

    #[test]
    fn sources_larger_than_a_chunk_copy_whole_with_a_block_split_across_chunks() {
        // 3 blocks of 400 runs: the first chunk ends inside the third block.
        const { assert!(800 < CHUNK && CHUNK < 1200) };
        let from = store_with(&[("a", blocks(3, 400, 1.0)), ("b", blocks(2, 7, 2.0))]);
        let mut to = Db::Sqlite(Store::open_in_memory().unwrap());
        let mut seen = Vec::new();
        let done = copy(&from, &mut to, &Selector::all(), |r, n| {
            seen.push((r.sha256.clone(), n))
        })
        .unwrap();
        assert_eq!(
            done,
            Copied {
                sources: 2,
                present: 0,
                runs: 1214
            }
        );
        assert_eq!(
            seen.iter().map(|s| s.1).collect::<Vec<_>>(),
            [Some(1200), Some(14)]
        );
        // Same ids, blocks, labels, points and ingest times.
        assert_eq!(all(&from, &Selector::all()), all(&to, &Selector::all()));
        // Again: everything is present, nothing is written.
        let again = copy(&from, &mut to, &Selector::all(), |_, _| {}).unwrap();
        assert_eq!((again.sources, again.present, again.runs), (0, 2, 0));
        assert_eq!(to.select_ids(&Selector::all()).unwrap().len(), 1214);
    }

    #[test]
    fn a_selection_copies_only_the_blocks_holding_its_runs() {
        let from = store_with(&[("a", blocks(3, 4, 1.0))]);
        let mut to = Db::Sqlite(Store::open_in_memory().unwrap());
        // Runs 6 and 7 of the second block, run 12 of the third.
        let sel = Selector::from_ids(vec![6, 7, 12]);
        let done = copy(&from, &mut to, &sel, |_, _| {}).unwrap();
        assert_eq!(done.runs, 3);
        let got = to.select(&Selector::all()).unwrap();
        let want = from.select(&sel).unwrap();
        let key = |r: &StoredRun| {
            (
                r.block_index,
                r.label.clone(),
                r.run.clone(),
                r.printed.clone(),
            )
        };
        assert_eq!(
            got.iter().map(key).collect::<Vec<_>>(),
            want.iter().map(key).collect::<Vec<_>>()
        );
        assert_eq!(
            got.iter().map(|r| r.block_index).collect::<Vec<_>>(),
            [1, 1, 2]
        );
    }
}
