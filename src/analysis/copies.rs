//! Invocations that repeat another's values exactly: an output ingested again (under
//! another commit, from another path, pasted into another log) is a copy of one
//! measurement, not a new one. A side of a comparison counts it once, so that copies never
//! pass for replicates that agree to the last digit (a spread of 0, an interval of no
//! width). Counting two truly independent but identical invocations once only widens the
//! interval, never narrows it.
//!
//! One measurement also reaches a store through several outputs of one process:
//! hyperfine's JSON, CSV and Markdown exports beside its terminal output, Criterion's
//! terminal lines beside its `target/criterion` folder. Their values differ (every time
//! against a summary), but they print the same summary: hyperfine's mean and σ,
//! Criterion's estimate and its interval, equal to the precision the coarser printed.
//! Such blocks count once too, as the one holding the most runs.

use crate::dataset::StoredRun;
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::Hasher;

/// One content held by several invocations (blocks) of a side: the first (lowest block
/// id, the first stored) counts, the others are left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Copies {
    /// The source of the block that counts.
    pub path: String,
    /// Every block with this content, the one that counts first.
    pub blocks: Vec<i64>,
    /// The sources of the other blocks, in the order of `blocks`.
    pub others: Vec<String>,
    /// What the blocks share.
    pub kind: Shared,
}

/// What makes blocks one measurement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shared {
    /// Every value: copies of one output.
    Values,
    /// The tool's printed summary: outputs of one run (exports, terminal and folder).
    Summary,
}

/// What copies leave out: whole blocks, and of a block printing the summary of another
/// only the metrics that one holds too (Criterion's terminal `thrpt`, which its folder
/// does not hold, stays).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct LeftOut {
    blocks: HashSet<i64>,
    metrics: HashMap<i64, BTreeSet<String>>,
}

impl LeftOut {
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty() && self.metrics.is_empty()
    }

    /// Whether the block's series of `metric` is left out.
    pub fn series(&self, block: i64, metric: &str) -> bool {
        self.blocks.contains(&block) || self.metrics.get(&block).is_some_and(|m| m.contains(metric))
    }

    /// Leaves out of `runs` what it names: the runs of whole blocks, the series of others
    /// (and a run left with none).
    pub fn apply(&self, runs: &mut Vec<StoredRun>) {
        if self.is_empty() {
            return;
        }
        runs.retain_mut(|r| match self.of_block(r.block_id) {
            None => false,
            Some(None) => true,
            Some(Some(m)) => trim(r, m),
        });
    }

    /// [`Self::apply`] on borrowed runs: the runs kept whole, and copies of the runs that
    /// lose series (without them).
    pub fn split<'a>(
        &self,
        runs: impl IntoIterator<Item = &'a StoredRun>,
    ) -> (Vec<&'a StoredRun>, Vec<StoredRun>) {
        let mut whole = Vec::new();
        let mut trimmed = Vec::new();
        for r in runs {
            match self.of_block(r.block_id) {
                None => {}
                Some(None) => whole.push(r),
                Some(Some(m)) => {
                    let mut r = r.clone();
                    if trim(&mut r, m) {
                        trimmed.push(r);
                    }
                }
            }
        }
        (whole, trimmed)
    }

    /// What a block keeps: nothing (`None`), all (`Some(None)`), or all but the series of
    /// these metrics.
    fn of_block(&self, block: i64) -> Option<Option<&BTreeSet<String>>> {
        if self.blocks.contains(&block) {
            return None;
        }
        Some(self.metrics.get(&block))
    }

    pub fn extend(&mut self, other: LeftOut) {
        self.blocks.extend(other.blocks);
        self.metrics.extend(other.metrics);
    }
}

/// Drops the run's series of `metrics`; whether it keeps any.
fn trim(r: &mut StoredRun, metrics: &BTreeSet<String>) -> bool {
    r.run.series.retain(|s| !metrics.contains(&s.metric));
    !r.run.series.is_empty()
}

/// The copies among `runs`' blocks: what to leave out, and each content held by more than
/// one block, in the order of the block that counts (see [`Blocks::find`]).
pub fn find<'a>(runs: impl IntoIterator<Item = &'a StoredRun>) -> (LeftOut, Vec<Copies>) {
    let mut blocks = Blocks::default();
    for r in runs {
        blocks.add(r);
    }
    blocks.find()
}

/// The blocks of runs met one at a time (a stream need not keep them): each block's
/// content so far and, for a summary format, its printed summary.
#[derive(Default)]
pub struct Blocks {
    /// Each block's content hash so far and source path.
    contents: BTreeMap<i64, (Content, String)>,
    summaries: BTreeMap<i64, Summary>,
}

impl Blocks {
    /// Adds a run; a block's runs come in their order (by run id), its first carrying the
    /// block's printed numbers.
    pub fn add(&mut self, r: &StoredRun) {
        self.contents
            .entry(r.block_id)
            .or_insert_with(|| (Content::default(), r.source.clone()))
            .0
            .add(r);
        if SUMMARY_FORMATS.contains(&r.format.as_str()) {
            self.summaries
                .entry(r.block_id)
                .or_insert_with(|| Summary::of(r))
                .runs += 1;
        }
    }

    /// What to leave out, and each content held by more than one block, in the order of
    /// the block that counts. A block's content is what its runs measured: each run's
    /// suite, given label, place, benchmark, parameters and every value of every series;
    /// tags and paths are not content. Then, among the blocks left, those printing one
    /// summary ([`Shared::Summary`]): the one with the most runs counts (a JSON export's
    /// every time over a Markdown row), and the others lose the metrics it holds.
    pub fn find(self) -> (LeftOut, Vec<Copies>) {
        let (blocks, mut groups) = same_values(
            self.contents
                .into_iter()
                .map(|(block, (content, path))| (block, content.0.finish(), path)),
        );
        let (exports, summaries) = same_summary(
            self.summaries
                .into_values()
                .filter(|s| !blocks.contains(&s.block)),
        );
        let mut left_out = LeftOut {
            blocks,
            metrics: HashMap::new(),
        };
        left_out.extend(exports);
        groups.extend(summaries);
        (left_out, groups)
    }
}

/// Blocks holding one content: the first (lowest id) counts. `blocks` come in block order.
fn same_values(
    blocks: impl IntoIterator<Item = (i64, u64, String)>,
) -> (HashSet<i64>, Vec<Copies>) {
    let mut by_content: HashMap<u64, Vec<(i64, String)>> = HashMap::new();
    for (block, content, path) in blocks {
        by_content.entry(content).or_default().push((block, path));
    }
    let mut left_out = HashSet::new();
    let mut groups: Vec<Copies> = by_content
        .into_values()
        .filter(|blocks| blocks.len() > 1)
        .map(|blocks| {
            let (ids, mut paths): (Vec<i64>, Vec<String>) = blocks.into_iter().unzip();
            left_out.extend(&ids[1..]);
            let others = paths.split_off(1);
            Copies {
                path: paths.remove(0),
                blocks: ids,
                others,
                kind: Shared::Values,
            }
        })
        .collect();
    groups.sort_by_key(|g| g.blocks[0]);
    (left_out, groups)
}

/// The pairs of blocks, one on each side, that hold the same content (baseline block,
/// candidate block), in baseline order; a block on both sides is not a pair.
pub fn across<'a>(
    baseline: impl IntoIterator<Item = &'a StoredRun>,
    candidate: impl IntoIterator<Item = &'a StoredRun>,
) -> Vec<(i64, i64)> {
    let cand: HashMap<u64, i64> = contents(candidate)
        .into_iter()
        .map(|(block, content)| (content, block))
        .collect();
    contents(baseline)
        .into_iter()
        .filter_map(|(b, content)| {
            let c = *cand.get(&content)?;
            (c != b).then_some((b, c))
        })
        .collect()
}

/// Each block's content hash, by block id.
fn contents<'a>(runs: impl IntoIterator<Item = &'a StoredRun>) -> BTreeMap<i64, u64> {
    let mut hashers: BTreeMap<i64, Content> = BTreeMap::new();
    for r in runs {
        hashers.entry(r.block_id).or_default().add(r);
    }
    hashers
        .into_iter()
        .map(|(block, h)| (block, h.0.finish()))
        .collect()
}

/// A block's content hash, fed its runs in order.
#[derive(Default)]
struct Content(DefaultHasher);

impl Content {
    fn add(&mut self, r: &StoredRun) {
        // Serialized, floats and all: two runs hash alike only when every value is equal.
        // The suite and a given label are part of what was measured: the same output
        // ingested as two suites is two benchmarks, never pooled.
        let measured = (
            &r.suite,
            r.given_label(),
            &r.run.index,
            &r.run.bench,
            &r.run.params,
            &r.run.series,
        );
        // Straight into the hasher: no buffer a run.
        let _ = serde_json::to_writer(HashWriter(&mut self.0), &measured);
    }
}

/// Bytes written into a hasher.
struct HashWriter<'h>(&'h mut DefaultHasher);

impl std::io::Write for HashWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Formats whose outputs of one run print one summary in several forms.
pub const SUMMARY_FORMATS: [&str; 2] = ["hyperfine", "criterion"];

/// A block's printed summary: what it measured (suite, benchmark, configuration), its run
/// count, its metrics, and per metric printing a summary its unit and the tuples printed.
struct Summary {
    block: i64,
    path: String,
    what: (String, Option<String>, String),
    runs: usize,
    all: BTreeSet<String>,
    metrics: BTreeMap<String, (String, Vec<Vec<f64>>)>,
}

impl Summary {
    /// The summary of `r`'s block, read from `r` (its printed numbers), no run counted yet.
    fn of(r: &StoredRun) -> Summary {
        Summary {
            block: r.block_id,
            path: r.source.clone(),
            what: (
                r.suite.clone(),
                r.run.bench.clone(),
                format!("{:?}", r.run.config_params()),
            ),
            runs: 0,
            all: r.run.series.iter().map(|s| s.metric.clone()).collect(),
            metrics: r
                .run
                .series
                .iter()
                .map(|s| (s.metric.clone(), (s.unit.clone(), printed_tuples(r, s))))
                .filter(|(_, (_, t))| !t.is_empty())
                .collect(),
        }
    }
}

/// The summaries a series printed: hyperfine's (mean, σ); Criterion's folder (slope, its
/// bounds) and (mean, its bounds); Criterion's terminal line (estimate, low, high).
fn printed_tuples(r: &StoredRun, s: &bench_db_parsers::Series) -> Vec<Vec<f64>> {
    let stats = super::printed::stats(r, &s.metric);
    // The numbers of `keys`, when all were printed; `value` stands for the run's own.
    let tuple = |keys: &[&str]| -> Option<Vec<f64>> {
        keys.iter()
            .map(|k| match (*k, &s.data) {
                ("value", bench_db_parsers::Data::Value { value }) => *value,
                _ => stats.get(*k).copied(),
            })
            .collect()
    };
    [
        &["mean", "stddev"][..],
        &["slope", "slope_low", "slope_high"],
        &["mean", "mean_low", "mean_high"],
        &["value", "low", "high"],
    ]
    .into_iter()
    .filter_map(tuple)
    .collect()
}

/// The decimals a value was printed with, to the float noise of a unit's conversion
/// (6.2606 µs stored as 6260.599999999999 ns has 1).
fn decimals(v: f64) -> i32 {
    (0..=15)
        .find(|&d| {
            let s = v * 10f64.powi(d);
            (s - s.round()).abs() <= 1e-9 * s.abs().max(1.0)
        })
        .unwrap_or(16)
}

/// Whether `x` (in `ux`) and `y` (in `uy`) are one printed number: equal within half a
/// unit of the last digit of the coarser.
fn same_number(x: f64, ux: &str, y: f64, uy: &str) -> bool {
    let Some(y_in_x) = crate::units::convert(y, uy, ux) else {
        return false;
    };
    let half = |v: f64| 0.5 * 10f64.powi(-decimals(v));
    let tol = half(x).max(crate::units::convert(half(y), uy, ux).unwrap_or(0.0));
    (x - y_in_x).abs() <= tol * (1.0 + 1e-9) + 1e-12 * x.abs()
}

fn same_summary_of(a: &Summary, b: &Summary) -> bool {
    if a.what != b.what {
        return false;
    }
    let mut shared = 0;
    for (metric, (ua, ta)) in &a.metrics {
        let Some((ub, tb)) = b.metrics.get(metric) else {
            continue;
        };
        let one = ta.iter().any(|x| {
            tb.iter().any(|y| {
                x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_number(*x, ua, *y, ub))
            })
        });
        if !one {
            return false;
        }
        shared += 1;
    }
    shared > 0
}

/// Blocks of summary formats ([`SUMMARY_FORMATS`]) that print one summary: what to leave
/// out (of each block but the one that counts, the metrics that one holds) and the groups,
/// the one that counts first.
fn same_summary(blocks: impl IntoIterator<Item = Summary>) -> (LeftOut, Vec<Copies>) {
    let mut order: Vec<Summary> = blocks
        .into_iter()
        .filter(|b| !b.metrics.is_empty())
        .collect();
    order.sort_by_key(|b| (std::cmp::Reverse(b.runs), b.block));
    // Only blocks that measured the same thing can print one summary: each is looked for
    // among those kept for what it measured.
    let mut kept: Vec<(Summary, Vec<i64>, Vec<String>)> = Vec::new();
    let mut left_out = LeftOut::default();
    let mut by_what: HashMap<(String, Option<String>, String), Vec<usize>> = HashMap::new();
    for b in order {
        let alike = by_what.entry(b.what.clone()).or_default();
        match alike.iter().find(|&&k| same_summary_of(&kept[k].0, &b)) {
            Some(&k) => {
                let (counts, ids, others) = &mut kept[k];
                ids.push(b.block);
                others.push(b.path.clone());
                if b.all.is_subset(&counts.all) {
                    left_out.blocks.insert(b.block);
                } else {
                    let shared = b.all.intersection(&counts.all).cloned().collect();
                    left_out.metrics.insert(b.block, shared);
                }
            }
            None => {
                alike.push(kept.len());
                let id = b.block;
                kept.push((b, vec![id], Vec::new()));
            }
        }
    }
    let mut groups: Vec<Copies> = kept
        .into_iter()
        .filter(|(_, ids, _)| ids.len() > 1)
        .map(|(k, ids, others)| Copies {
            path: k.path,
            blocks: ids,
            others,
            kind: Shared::Summary,
        })
        .collect();
    groups.sort_by_key(|g| g.blocks[0]);
    (left_out, groups)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::testdata::stored;
    use bench_db_parsers::Series;

    fn run(id: i64, block: i64, index: u32, path: &str, value: f64) -> StoredRun {
        let mut r = stored(
            id,
            "s",
            "x",
            vec![Series::value("ns_op", "ns", Some(value))],
        );
        r.block_id = block;
        r.run.index = index;
        r.source = path.to_string();
        r
    }

    #[test]
    fn a_block_stored_three_times_counts_once_at_its_first_block() {
        // Blocks 2, 7 and 9 hold 1064 and 1289 as runs 1 and 2; block 4 holds them the
        // other way round, block 5 only one of them: neither is a copy.
        let runs = [
            run(1, 2, 1, "a.txt", 1064.0),
            run(2, 2, 2, "a.txt", 1289.0),
            run(3, 4, 1, "b.txt", 1289.0),
            run(4, 4, 2, "b.txt", 1064.0),
            run(5, 5, 1, "c.txt", 1064.0),
            run(6, 7, 1, "again/a.txt", 1064.0),
            run(7, 7, 2, "again/a.txt", 1289.0),
            run(8, 9, 1, "a.txt", 1064.0),
            run(9, 9, 2, "a.txt", 1289.0),
        ];
        let (left_out, groups) = find(&runs);
        assert_eq!(left_out.blocks, HashSet::from([7, 9]));
        assert_eq!(
            groups,
            [Copies {
                path: "a.txt".into(),
                blocks: vec![2, 7, 9],
                others: vec!["again/a.txt".into(), "a.txt".into()],
                kind: Shared::Values,
            }]
        );
        // The same content on both sides, but not the same block.
        assert_eq!(across(&runs[..2], &runs[5..7]), [(2, 7)]);
        assert!(across(&runs[..2], &runs[..2]).is_empty());
        assert!(across(&runs[..2], &runs[2..4]).is_empty());
    }

    /// A block of `format` named `bench`, with `runs` runs of `time` in `unit` and the
    /// printed numbers `printed` (name, value) about `time`.
    fn output(
        block: i64,
        format: &str,
        bench: &str,
        unit: &str,
        runs: &[f64],
        printed: &[(&str, f64)],
    ) -> Vec<StoredRun> {
        runs.iter()
            .enumerate()
            .map(|(i, v)| {
                let mut r = stored(
                    block * 100 + i as i64,
                    format,
                    "x",
                    vec![Series::value("time", unit, Some(*v))],
                );
                r.format = format.to_string();
                r.block_id = block;
                r.run.index = i as u32 + 1;
                r.run.bench = Some(bench.to_string());
                r.source = format!("out{block}");
                r.printed = printed
                    .iter()
                    .map(|(name, value)| bench_db_parsers::PrintedStat {
                        metric: "time".into(),
                        percentile: None,
                        name: name.to_string(),
                        value: Some(*value),
                    })
                    .collect();
                r
            })
            .collect()
    }

    /// fixtures/real/hyperfine/two-commands.{json,md}: `sleep 0.01`, mean 0.01265469144 s
    /// and σ 0.0024002142 s in the JSON (10 times), printed `12.7 ± 2.4` ms in the
    /// Markdown; the next invocation's JSON (two-commands-b.json) printed 0.0122932 s.
    #[test]
    fn exports_of_one_run_count_once_as_the_one_with_the_most_runs() {
        let times = [0.0103, 0.0140, 0.0100, 0.0136, 0.0138];
        let json = [
            ("mean", 0.012654691440000001),
            ("stddev", 0.0024002142030061027),
        ];
        let mut runs = output(
            3,
            "hyperfine",
            "sleep 0.01",
            "ms",
            &[12.7],
            &[("mean", 12.7), ("stddev", 2.4)],
        );
        runs.extend(output(5, "hyperfine", "sleep 0.01", "s", &times, &json));
        runs.extend(output(
            8,
            "hyperfine",
            "sleep 0.01",
            "s",
            &times[..3],
            &[("mean", 0.0122932), ("stddev", 0.0039664)],
        ));
        // Another command printing the same numbers is another benchmark.
        runs.extend(output(
            9,
            "hyperfine",
            "sleep 0.02",
            "ms",
            &[12.7],
            &[("mean", 12.7), ("stddev", 2.4)],
        ));
        let (left_out, groups) = find(&runs);
        assert_eq!(left_out.blocks, HashSet::from([3]));
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].blocks, [5, 3]);
        assert_eq!(groups[0].kind, Shared::Summary);
        assert_eq!(groups[0].path, "out5");
        // A mean one unit off in the last printed digit is another measurement.
        let other = output(
            4,
            "hyperfine",
            "sleep 0.01",
            "ms",
            &[12.8],
            &[("mean", 12.8), ("stddev", 2.4)],
        );
        let both: Vec<StoredRun> = other
            .into_iter()
            .chain(output(5, "hyperfine", "sleep 0.01", "s", &times, &json))
            .collect();
        assert!(find(&both).0.is_empty());
    }

    /// fixtures/real/criterion/run2: the folder's slope of `fib 15`, 6260.559854 ns
    /// [5747.695297, 6775.769889], printed `[5.7477 µs 6.2606 µs 6.7758 µs]` on the
    /// terminal, stored in ns as 6260.599999999999 and so on.
    #[test]
    fn criterions_terminal_line_and_folder_of_one_run_count_once() {
        let folder = [
            ("slope", 6260.559854179887),
            ("slope_low", 5747.695297250108),
            ("slope_high", 6775.769888764311),
            ("mean", 5713.101298508646),
            ("mean_low", 5050.233757502377),
            ("mean_high", 6439.655630360731),
        ];
        let mut runs = output(
            2,
            "criterion",
            "fib/fib 15",
            "ns",
            &[1584.0, 1583.9, 1590.2],
            &folder,
        );
        runs.extend(output(
            7,
            "criterion",
            "fib/fib 15",
            "ns",
            &[6.2606 * 1000.0],
            &[("low", 5.7477 * 1000.0), ("high", 6.7758 * 1000.0)],
        ));
        let (left_out, groups) = find(&runs);
        assert_eq!(left_out.blocks, HashSet::from([7]));
        assert_eq!(groups[0].blocks, [2, 7]);
        // The terminal's `thrpt: [147.58 Kelem/s 159.73 Kelem/s 173.98 Kelem/s]`, which the
        // folder does not hold, stays: only its time is the folder's.
        let thrpt = Series::value("thrpt", "Kelem/s", Some(159.73));
        for r in runs.iter_mut().filter(|r| r.block_id == 7) {
            r.run.series.push(thrpt.clone());
        }
        let (left_out, groups) = find(&runs);
        assert!(left_out.blocks.is_empty());
        assert!(left_out.series(7, "time") && !left_out.series(7, "thrpt"));
        assert!(!left_out.series(2, "time"));
        assert_eq!(groups[0].blocks, [2, 7]);
        let mut kept = runs.clone();
        left_out.apply(&mut kept);
        assert_eq!(kept.len(), 4);
        assert_eq!(kept[3].run.series, [thrpt]);
        let (whole, trimmed) = left_out.split(&runs);
        assert_eq!((whole.len(), trimmed.len()), (3, 1));
        assert_eq!(decimals(6.2606 * 1000.0), 1);
        assert_eq!(decimals(12.7), 1);
        assert!(decimals(0.012654691440000001) > 10);
    }
}
