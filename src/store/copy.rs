//! Copying runs between two stores of either kind (`bench-db copy`), idempotently: a run
//! the target already holds is not copied again. A run is known across stores by its
//! source (content hash and metadata identity), its block's index in the source and its
//! index in the block; a source the target holds in part (an earlier copy of a narrower
//! selection) is completed with the selected runs it lacks, into its stored blocks.
//!
//! Runs are copied source by source, in the order of their first run id, each source in
//! one transaction of the target; within a source, block by block in block order, each
//! block's runs in run order, so a fresh target gets the same ids in the same order. A
//! source's runs are read a chunk at a time and written as they are read, so memory does
//! not grow with the selection's data. What is copied: the source's provenance (path,
//! hash, size, format, parser, ingest time), its blocks (raw label, line range, printed
//! statistics) and every selected run with its suite, label, parameters, tags, series,
//! points and histograms. Only blocks holding a selected run are copied.

use super::backend::{Digest, IngestError};
use super::db::Db;
use super::rows::{BlockMeta, BlockRows, Detail, RunRows, SourceRecord, StoredSource};
use crate::dataset::StoredRun;
use crate::selector::Selector;
use anyhow::{Context, Result};
use std::collections::{HashMap, VecDeque};

/// What a copy did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Copied {
    /// Sources written to the target, new or completed.
    pub sources: usize,
    /// Of those, sources the target held in part and that were completed.
    pub completed: usize,
    /// Sources skipped because the target already held every selected run of theirs.
    pub present: usize,
    /// Runs written to the target.
    pub runs: usize,
    /// Selected runs the target holds under another label (relabelled in one store after
    /// the copy): how many, and the first one's label here and there.
    pub other_label: usize,
    pub other_label_example: Option<(String, String)>,
}

/// What a copy did with one source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceCopied {
    /// Written whole: the target did not hold it.
    New(usize),
    /// The target held some of its runs: the selected ones it lacked were added.
    Completed(usize),
    /// The target held every selected run.
    Present,
}

/// Runs read from the source store per query while a source is copied.
const CHUNK: usize = 1_000;

/// A selected run of the source store: its id, and where it stands in its source.
#[derive(Debug, Clone)]
struct Selected {
    id: i64,
    block_idx: i64,
    run_index: i64,
    label: String,
}

/// Copies the runs `sel` picks in `from` into `to`; `each` hears about every source.
///
/// Memory stays bounded: the selection is first read as run heads (no points), of which
/// only the ids and positions are kept; then each source's runs are read back [`CHUNK`]
/// at a time and written as they come, in the target's transaction for that source.
pub fn copy(
    from: &Db,
    to: &mut Db,
    sel: &Selector,
    mut each: impl FnMut(&SourceRecord, SourceCopied),
) -> Result<Copied> {
    // Sources in the order of their first selected run.
    let mut order: Vec<(i64, Vec<Selected>)> = Vec::new();
    let mut at: HashMap<i64, usize> = HashMap::new();
    from.for_each_run(sel, Detail::Heads, |r| {
        let i = *at.entry(r.source_id).or_insert_with(|| {
            order.push((r.source_id, Vec::new()));
            order.len() - 1
        });
        order[i].1.push(Selected {
            id: r.id,
            block_idx: i64::from(r.block_index),
            run_index: i64::from(r.run.index),
            label: r.label.clone(),
        });
        Ok(())
    })?;
    drop(at);
    let mut done = Copied::default();
    for (sid, mut runs) in order {
        let (record, blocks) = from.store.source_blocks(sid)?;
        let stored = to.store.stored_source(&record.sha256, &record.identity)?;
        let joined = match &stored {
            Some(stored) => lacking(&mut runs, stored, &mut done),
            None => HashMap::new(),
        };
        if runs.is_empty() {
            each(&record, SourceCopied::Present);
            done.present += 1;
            continue;
        }
        runs.sort_by_key(|r| (r.block_idx, r.run_index, r.id));
        let rows = SourceRows {
            from,
            blocks: blocks.into_iter().map(|b| (b.id, b)).collect(),
            joined,
            ids: runs
                .into_iter()
                .map(|r| r.id)
                .collect::<Vec<_>>()
                .into_iter(),
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
        let into = stored.as_ref().map(|s| s.id);
        let written = to
            .store
            .write_source(&record, into, &mut feed, &mut digest)
            .with_context(|| format!("cannot copy source {}", record.path))?;
        let n = written.run_ids.len();
        if written.unchanged || n == 0 {
            each(&record, SourceCopied::Present);
            done.present += 1;
            continue;
        }
        if into.is_some() {
            each(&record, SourceCopied::Completed(n));
            done.completed += 1;
        } else {
            each(&record, SourceCopied::New(n));
        }
        done.sources += 1;
        done.runs += n;
    }
    if done.runs > 0 {
        to.store.refresh_statistics()?;
    }
    Ok(done)
}

/// Keeps the selected runs that the target's copy of their source lacks: a run there at
/// the same block index and run index stands for one selected run each (and is counted
/// in `done` when its label there differs). Returns the target's blocks by index, which
/// the kept runs of those blocks join.
fn lacking(
    runs: &mut Vec<Selected>,
    stored: &StoredSource,
    done: &mut Copied,
) -> HashMap<i64, i64> {
    let mut held: HashMap<(i64, i64), Vec<&str>> = HashMap::new();
    let mut blocks = HashMap::new();
    for k in &stored.runs {
        held.entry((k.block_idx, k.run_index))
            .or_default()
            .push(&k.label);
        blocks.insert(k.block_idx, k.block_id);
    }
    runs.retain(|r| {
        let Some(there) = held.get_mut(&(r.block_idx, r.run_index)).and_then(Vec::pop) else {
            return true;
        };
        if there != r.label {
            done.other_label += 1;
            done.other_label_example
                .get_or_insert_with(|| (r.label.clone(), there.to_string()));
        }
        false
    });
    blocks
}

/// The selected runs of one source, read from the source store [`CHUNK`] at a time in
/// the order of `ids` (block by block) and handed out under their blocks.
struct SourceRows<'a> {
    from: &'a Db,
    blocks: HashMap<i64, BlockMeta>,
    /// The target's blocks by index, for runs that join a block it holds.
    joined: HashMap<i64, i64>,
    ids: std::vec::IntoIter<i64>,
    pending: VecDeque<StoredRun>,
    failed: bool,
}

impl SourceRows<'_> {
    /// Reads the next chunk of runs, in the order of `ids`, when none is pending.
    fn fill(&mut self) -> Result<()> {
        if !self.pending.is_empty() {
            return Ok(());
        }
        let chunk: Vec<i64> = self.ids.by_ref().take(CHUNK).collect();
        if chunk.is_empty() {
            return Ok(());
        }
        let mut read: HashMap<i64, StoredRun> = HashMap::with_capacity(chunk.len());
        self.from
            .for_each_run(&Selector::from_ids(chunk.clone()), Detail::Points, |r| {
                read.insert(r.id, r);
                Ok(())
            })?;
        // A run removed since the selection was read is not copied.
        self.pending
            .extend(chunk.iter().filter_map(|id| read.remove(id)));
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
            stored: self.joined.get(&meta.idx).copied(),
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
                completed: 0,
                present: 0,
                runs: 1214,
                ..Copied::default()
            }
        );
        assert_eq!(
            seen.iter().map(|s| s.1).collect::<Vec<_>>(),
            [SourceCopied::New(1200), SourceCopied::New(14)]
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

    /// What a run is across stores: its block, index, label, tags and points.
    fn content(db: &Db) -> Vec<String> {
        let mut v: Vec<String> = db
            .select(&Selector::all())
            .unwrap()
            .iter()
            .map(|r| format!("{} {} {:?} {:?}", r.block_index, r.label, r.run, r.printed))
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_repeated_copy_completes_a_source_copied_in_part() {
        let from = store_with(&[("a", blocks(3, 4, 1.0)), ("b", blocks(1, 2, 2.0))]);
        let mut to = Db::open_in_memory().unwrap();
        // Run 6 of the second block, then everything.
        copy(&from, &mut to, &Selector::from_ids(vec![6]), |_, _| {}).unwrap();
        let mut seen = Vec::new();
        let done = copy(&from, &mut to, &Selector::all(), |r, n| {
            seen.push((r.path.clone(), n))
        })
        .unwrap();
        assert_eq!(
            done,
            Copied {
                sources: 2,
                completed: 1,
                present: 0,
                runs: 13,
                ..Copied::default()
            }
        );
        assert_eq!(
            seen,
            [
                ("gen".to_string(), SourceCopied::Completed(11)),
                ("gen".to_string(), SourceCopied::New(2))
            ]
        );
        assert_eq!(content(&to), content(&from));
        // The completed runs joined the block the target held: four blocks, not five.
        let blocks: std::collections::BTreeSet<i64> = to
            .select(&Selector::all())
            .unwrap()
            .iter()
            .map(|r| r.block_id)
            .collect();
        assert_eq!(blocks.len(), 4);
        // Again: every run is present; nothing is written.
        let again = copy(&from, &mut to, &Selector::all(), |_, _| {}).unwrap();
        assert_eq!((again.sources, again.present, again.runs), (0, 2, 0));
        assert_eq!(to.select_ids(&Selector::all()).unwrap().len(), 14);
        // The completed target copies on whole, in block order.
        let mut third = Db::open_in_memory().unwrap();
        copy(&to, &mut third, &Selector::all(), |_, _| {}).unwrap();
        assert_eq!(all(&third, &Selector::all()), all(&from, &Selector::all()));
    }

    /// A block's shared tags held for the block (`block_tag`) do not reach runs that join it
    /// without them.
    #[test]
    fn runs_joining_a_stored_block_keep_their_own_tags() {
        let mut from = Db::open_in_memory().unwrap();
        let run = |index: u32, host: &str| Run {
            index,
            tags: [("host", host)]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Run::default()
        };
        let block = [Block {
            runs: vec![run(1, "a"), run(2, "b"), run(3, "a")],
            ..Block::default()
        }];
        from.insert_generated(&Generated {
            origin: "x",
            format: "loopback",
            text: "x",
            blocks: &block,
            suite: "s",
            label_override: None,
            tags: &Default::default(),
        })
        .unwrap();
        let mut to = Db::open_in_memory().unwrap();
        // The target's block holds run 1 alone: host=a is the block's.
        copy(&from, &mut to, &Selector::from_ids(vec![1]), |_, _| {}).unwrap();
        let done = copy(&from, &mut to, &Selector::all(), |_, _| {}).unwrap();
        assert_eq!((done.completed, done.runs), (1, 2));
        let hosts = |sel: &str| -> Vec<u32> {
            let mut v: Vec<u32> = to
                .select(&Selector::parse(sel).unwrap())
                .unwrap()
                .iter()
                .map(|r| r.run.index)
                .collect();
            v.sort();
            v
        };
        assert_eq!(hosts("tag.host=a"), [1, 3]);
        assert_eq!(hosts("tag.host=b"), [2]);
        assert_eq!(hosts("tag.host=a;latest=5"), [1, 3]);
    }
}
