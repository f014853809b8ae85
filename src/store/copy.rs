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

use super::backend::{Digest, IngestError};
use super::db::Db;
use super::rows::{BlockMeta, BlockRows, Detail, RunRows, SourceRecord};
use crate::dataset::StoredRun;
use crate::selector::Selector;
use anyhow::{Context, Result};
use std::collections::{HashMap, VecDeque};

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
        let (record, blocks) = from.store.source_blocks(sid)?;
        if to
            .store
            .stored_format(&record.sha256, &record.identity)?
            .is_some()
        {
            each(&record, None);
            done.present += 1;
            continue;
        }
        let rows = SourceRows {
            from,
            blocks: blocks.into_iter().map(|b| (b.id, b)).collect(),
            ids: ids.into_iter(),
            pending: VecDeque::new(),
            failed: false,
        };
        let mut feed = rows.map(|b| b.map_err(IngestError::Read));
        let mut digest = || {
            Ok(Digest {
                sha256: record.sha256.clone(),
                bytes: record.bytes,
            })
        };
        let written = to
            .store
            .write_source(&record, &mut feed, &mut digest)
            .with_context(|| format!("cannot copy source {}", record.path))?;
        if written.unchanged {
            each(&record, None);
            done.present += 1;
        } else {
            let runs = written.run_ids.len();
            each(&record, Some(runs));
            done.sources += 1;
            done.runs += runs;
        }
    }
    if done.runs > 0 {
        to.store.refresh_statistics()?;
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
            encoded: None,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Generated;
    use bench_db_parsers::{Block, Data, LadderPoint, PrintedStat, Run, Series};

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
        let mut s = Db::open_in_memory().unwrap();
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
        s
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
        let mut to = Db::open_in_memory().unwrap();
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
        let mut to = Db::open_in_memory().unwrap();
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
