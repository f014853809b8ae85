//! History over commits: one series per (suite, metric, percentile) — per label too when
//! asked — with one point per commit (or per run when runs carry no commit) in time
//! order, each the median of that commit's runs, and the series' change points as
//! Apache Otava finds them ([`crate::stats::change_point`]). Pure: runs in, structs out.
//!
//! One invocation, one value whatever its export: a single value's run counts as the
//! median its block printed (hyperfine's JSON and CSV, Criterion's estimates), which is
//! the median of its samples. An export that printed only a mean (hyperfine's Markdown
//! and terminal: one run holding the printed mean) has no median, so a series holding
//! one follows means throughout: each run counts as its block's printed mean, or as its
//! own value where none was printed, and [`History::statistic`] says `mean`.
//!
//! Copies count once ([`super::copies`]), as in `compare`: within one commit, or among
//! the runs without a commit, a block repeating another's values or printing the summary
//! of another output of one run (hyperfine's exports, Criterion's `new` folder beside the
//! baseline it copies) adds no point and no value; equal values under two commits are two
//! measurements that agree.
//!
//! Warm-up rule: the one `variation` and `compare` share ([`super::warmup`]): run 1 of a
//! JLBH-layout block (`jlbh`, `loopback`) is left out when the block has later runs; a
//! block of one run keeps it, and other formats' runs all count.
//!
//! Units: a series holds one unit, the first its runs print; time units convert to it
//! ([`crate::units::convert`], as `compare` converts a side), so hyperfine's JSON export
//! (s) and its Markdown (ms) are one series. A metric printed in a unit that does not
//! convert (`%` beside `ms`) is followed as a series of its own.

use super::copies::{self, Copies};
use super::samples::{Axis, Identity};
use super::warmup::is_warmup;
use crate::dataset::StoredRun;
use crate::selector::run_time;
use crate::stats::change_point::{self, ChangePointError, Options};
use crate::units::{convert, time_dimension};
use bench_db_parsers::{Data, Param, PrintedStat, Series};
use serde::Serialize;
use std::borrow::Borrow;
use std::collections::{BTreeMap, HashMap, HashSet};

/// What to follow.
#[derive(Debug, Clone, Default)]
pub struct HistoryOptions {
    /// Only these metrics (all when empty).
    pub metrics: Vec<String>,
    /// Only these percentiles (all the ladders have when empty).
    pub percentiles: Vec<f64>,
    /// Also split by the labels a log gives (lead lines, file names); given labels always
    /// split.
    pub by_label: bool,
    pub change_points: Options,
}

/// One commit (or run) of a series.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    pub commit: Option<String>,
    pub branch: Option<String>,
    /// RFC 3339, UTC: the earliest time among the point's runs.
    pub time: Option<String>,
    /// Runs whose values the median is over.
    pub runs: usize,
    pub value: f64,
    /// Ids of those runs.
    #[serde(skip)]
    pub run_ids: Vec<i64>,
}

/// A change point; `index` is the position in `points` of the first point after it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub index: usize,
    pub commit: Option<String>,
    pub time: Option<String>,
    /// Mean of the segment before and after (Otava's `mean_before` / `mean_after`).
    pub before: f64,
    pub after: f64,
    pub delta_pct: f64,
    pub p_value: f64,
}

impl Change {
    /// The change point `c` found in the values of `points`.
    pub fn at(c: &change_point::ChangePoint, points: &[Point]) -> Change {
        Change {
            index: c.index,
            commit: points[c.index].commit.clone(),
            time: points[c.index].time.clone(),
            before: c.stats.mean_1,
            after: c.stats.mean_2,
            delta_pct: c.stats.forward_rel_change() * 100.0,
            p_value: c.stats.pvalue,
        }
    }
}

/// One followed series.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct History {
    pub suite: String,
    /// The benchmark the series follows (`null` for a format that names none).
    pub bench: Option<String>,
    /// Its configuration, values as stored (`runs --json` writes them alike).
    pub config: BTreeMap<String, Param>,
    /// The label someone gave the runs (every label when split `--by label`); absent
    /// when none was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The branch its commits are on (their runs' `branch` tag); absent when they name none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    pub metric: String,
    /// `None` for single-value metrics.
    pub percentile: Option<f64>,
    pub unit: String,
    /// What a single value's point is of: `median` (the median of the commit's runs, a
    /// printed median standing for its block's runs), or `mean` where an invocation
    /// printed only its mean (module doc).
    pub statistic: &'static str,
    pub points: Vec<Point>,
    pub change_points: Vec<Change>,
}

/// What a series follows: suite, bench and configuration (and label when split by
/// label), branch, metric, percentile.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub suite: String,
    pub bench: Option<String>,
    pub config: BTreeMap<String, Param>,
    pub label: Option<String>,
    pub branch: Option<String>,
    pub metric: String,
    pub percentile: Option<f64>,
    pub unit: String,
}

impl History {
    /// The series of `points` (in order) with the change points Otava's method finds
    /// in their values.
    pub fn from_points(
        cell: Cell,
        points: Vec<Point>,
        opts: &Options,
    ) -> Result<History, ChangePointError> {
        let values: Vec<f64> = points.iter().map(|p| p.value).collect();
        let cps = change_point::compute_change_points(&values, opts)?;
        let change_points = cps.iter().map(|c| Change::at(c, &points)).collect();
        Ok(History {
            suite: cell.suite,
            bench: cell.bench,
            config: cell.config,
            label: cell.label,
            branch: cell.branch,
            metric: cell.metric,
            percentile: cell.percentile,
            unit: cell.unit,
            statistic: "median",
            points,
            change_points,
        })
    }

    /// The points after the last change point (all of them when there is none).
    pub fn last_segment(&self) -> &[Point] {
        let from = self.change_points.last().map_or(0, |c| c.index);
        &self.points[from..]
    }

    /// `suite / metric pP` for headings.
    pub fn name(&self) -> String {
        let p = match self.percentile {
            Some(p) if p >= 100.0 => " worst".to_string(),
            Some(p) => format!(" p{p}"),
            None => String::new(),
        };
        let mut parts = vec![self.suite.clone()];
        if let Some(b) = &self.bench {
            parts.push(b.clone());
        }
        if !self.config.is_empty() {
            parts.push(super::samples::config_text(&self.config));
        }
        if let Some(l) = &self.label {
            parts.push(l.clone());
        }
        if let Some(b) = &self.branch {
            parts.push(format!("branch {b}"));
        }
        format!("{} / {}{p}", parts.join(" / "), self.metric)
    }
}

/// Whether a run counts in a history: not the warm-up run ([`is_warmup`]) of a block that
/// has later runs.
pub fn counted(r: &StoredRun, block_has_later_runs: bool) -> bool {
    !(block_has_later_runs && is_warmup(r))
}

/// The blocks of `runs` that hold a run after run 1.
fn blocks_with_later_runs<'a>(runs: impl IntoIterator<Item = &'a StoredRun>) -> HashSet<i64> {
    runs.into_iter()
        .filter(|r| r.run.index > 1)
        .map(|r| r.block_id)
        .collect()
}

/// Median of a non-empty slice (mean of the two middle values when even).
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Builds every series of `runs`, sorted by suite, label, metric and percentile.
pub fn history<R: Borrow<StoredRun>>(
    runs: &[R],
    opts: &HistoryOptions,
) -> Result<Vec<History>, ChangePointError> {
    let runs: Vec<&StoredRun> = runs.iter().map(Borrow::borrow).collect();
    let later_runs = blocks_with_later_runs(runs.iter().copied());
    let mut b = HistoryBuilder::new(opts);
    for r in runs {
        if counted(r, later_runs.contains(&r.block_id)) {
            b.add(r);
        }
    }
    b.finish()
}

/// [`history`] built one run at a time: per series it keeps each commit's values and
/// run ids, never the runs. Runs are added in the order [`history`] would see them,
/// after the warm-up rule (see [`HistoryBuilder::add_blocks`]).
pub struct HistoryBuilder<'o> {
    opts: &'o HistoryOptions,
    /// (benchmark identity, label, branch) → its commits and metrics.
    groups: BTreeMap<(Identity, Option<String>, Option<String>), Group>,
    /// The blocks added by commit (`None`: runs without one), to count copies of one
    /// measurement once ([`copies`]) within a commit; equal values under two commits are
    /// two measurements that agree.
    copies: HashMap<Option<String>, copies::Blocks>,
}

/// One group's commits, each looked up once a run for all its series, and per metric
/// and kind of unit its unit, percentiles and their accumulators.
#[derive(Default)]
struct Group {
    /// The configuration of the group's first run, values as stored.
    config: BTreeMap<String, Param>,
    commits: Commits,
    metrics: BTreeMap<(String, UnitKind), Followed>,
}

/// What a series' unit converts to: a unit to another alike but for its time unit
/// ([`crate::units::convert`], as `compare` converts a side: `ms` and `s`, `us/op` and
/// `ns/op`, `ops/ms` and `ops/s`), any other unit only to itself. A metric whose runs
/// print different kinds (`ms` and `%`) is followed as one series per kind.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum UnitKind {
    /// A time, a time per operation, a rate: its values convert whatever the time unit.
    Time(String),
    Other(String),
}

impl UnitKind {
    fn of(unit: &str) -> UnitKind {
        match time_dimension(unit) {
            Some(rest) => UnitKind::Time(rest.to_string()),
            None => UnitKind::Other(unit.trim().to_string()),
        }
    }
}

/// One metric of one group in one kind of unit: the unit first seen, which every value
/// is converted to, the percentiles in first-seen order, and one accumulator per
/// percentile.
struct Followed {
    unit: String,
    percentiles: Vec<Option<f64>>,
    cells: Vec<Points>,
}

/// A group's slots in first-seen order, which its series' points are kept in: one per
/// commit and block, or without a commit one per invocation. A point is the slots of one
/// commit (or one invocation) whose blocks are no copy of another ([`copies`]).
#[derive(Default)]
struct Commits {
    slots: HashMap<SlotKey, usize>,
    /// Each slot's commit.
    commits: Vec<Option<String>>,
    /// Each slot's block.
    blocks: Vec<i64>,
}

/// A slot: its commit, block and fork (0 with a commit: the forks of one commit are one
/// point).
type SlotKey = (Option<String>, i64, u32);

impl Commits {
    fn slot(&mut self, key: SlotKey) -> usize {
        if let Some(&i) = self.slots.get(&key) {
            return i;
        }
        self.commits.push(key.0.clone());
        self.blocks.push(key.1);
        self.slots.insert(key, self.commits.len() - 1);
        self.commits.len() - 1
    }
}

/// One series' point per commit slot, as runs arrive (`None`: no run of that commit has
/// a value in this series).
#[derive(Default)]
struct Points {
    accs: Vec<Option<Acc>>,
}

/// The runs of one commit in one series: the branch of the first, the earliest time
/// and run id, and each run's value and id.
struct Acc {
    branch: Option<String>,
    time: Option<chrono::DateTime<chrono::Utc>>,
    first_id: i64,
    values: Vec<f64>,
    /// Each run's value as a mean (its block's printed mean, else its own).
    means: Vec<f64>,
    /// Whether a run's value is a printed mean with no printed median beside it.
    mean_only: bool,
    ids: Vec<i64>,
}

/// A run's single value of `metric` as the invocation's median, as its mean, and whether
/// its value is only a printed mean: no median printed, and the block printed a mean
/// equal to it, a standard deviation beside it (hyperfine's Markdown and terminal
/// `mean ± σ`), or an interval around it (Criterion's terminal `time: [low estimate
/// high]`, whose estimate is of the mean time: its slope, else its mean).
fn invocation_value(s: &Series, printed: &[PrintedStat], v: f64) -> (f64, f64, bool) {
    let find = |name: &str, percentile: Option<f64>| {
        s.stats
            .get(name)
            .copied()
            .filter(|_| percentile.is_none())
            .or_else(|| {
                printed
                    .iter()
                    .find(|p| p.metric == s.metric && p.name == name && p.percentile == percentile)
                    .and_then(|p| p.value)
            })
    };
    let mean = find("mean", None);
    let median = find("median", Some(50.0));
    match median {
        Some(m) => (m, mean.unwrap_or(v), false),
        None => {
            let interval = find("low", None).is_some() && find("high", None).is_some();
            let only = mean == Some(v) || find("stddev", None).is_some() || interval;
            (v, mean.unwrap_or(v), only)
        }
    }
}

impl<'o> HistoryBuilder<'o> {
    pub fn new(opts: &'o HistoryOptions) -> Self {
        HistoryBuilder {
            opts,
            groups: BTreeMap::new(),
            copies: HashMap::new(),
        }
    }

    /// Adds runs that hold every selected run of their blocks, applying the warm-up
    /// rule ([`counted`]): one block at a time from a stream, or a whole selection.
    pub fn add_blocks(&mut self, runs: &[StoredRun]) {
        let later_runs = blocks_with_later_runs(runs);
        // A block's printed numbers may ride on its first run only.
        let mut printed: HashMap<i64, &[PrintedStat]> = HashMap::new();
        for r in runs.iter().filter(|r| !r.printed.is_empty()) {
            printed.entry(r.block_id).or_insert(&r.printed);
        }
        for r in runs {
            if counted(r, later_runs.contains(&r.block_id)) {
                self.add_with(r, printed.get(&r.block_id).copied().unwrap_or(&[]));
            }
        }
    }

    /// Adds one run that counts.
    pub fn add(&mut self, r: &StoredRun) {
        self.add_with(r, &r.printed);
    }

    /// Adds one run that counts, with its block's printed numbers.
    fn add_with(&mut self, r: &StoredRun, printed: &[PrintedStat]) {
        let opts = self.opts;
        self.copies
            .entry(r.run.tags.get("commit").cloned())
            .or_default()
            .add(r);
        // A series is one cell: its given label is part of it; `--by label` splits by
        // every label, the log file names too.
        let label = if opts.by_label {
            Some(r.label.clone())
        } else {
            r.given_label().map(str::to_string)
        };
        let axis = Axis {
            label: true,
            ..Axis::default()
        };
        let group = self
            .groups
            .entry((axis.identity(r), label, r.run.tags.get("branch").cloned()))
            .or_insert_with(|| Group {
                config: axis
                    .config(r)
                    .map(|(k, v)| (k.to_string(), v.clone()))
                    .collect(),
                ..Group::default()
            });
        let metrics = &mut group.metrics;
        // The run's first series of each followed metric, which its values come from.
        let mut seen: Vec<&Series> = Vec::new();
        for s in &r.run.series {
            if !opts.metrics.is_empty() && !opts.metrics.contains(&s.metric) {
                continue;
            }
            if seen.iter().any(|f| f.metric == s.metric) {
                continue;
            }
            let ps: Vec<Option<f64>> = match &s.data {
                // `--percentile` asks for ladders: a single value has no percentile.
                Data::Value { .. } | Data::TimeSeries { .. } if !opts.percentiles.is_empty() => {
                    continue;
                }
                // A time series (tsar's minutes) counts as its run's mean, as in `compare`.
                Data::Value { .. } | Data::TimeSeries { .. } => vec![None],
                _ => s
                    .ladder()
                    .unwrap_or(&[])
                    .iter()
                    .map(|p| p.percentile)
                    .filter(|p| {
                        opts.percentiles.is_empty()
                            || opts.percentiles.iter().any(|q| (q - p).abs() < 1e-9)
                    })
                    .map(Some)
                    .collect(),
            };
            let e = metrics
                .entry((s.metric.clone(), UnitKind::of(&s.unit)))
                .or_insert_with(|| Followed {
                    unit: s.unit.clone(),
                    percentiles: Vec::new(),
                    cells: Vec::new(),
                });
            for p in ps {
                if !e.percentiles.contains(&p) {
                    e.percentiles.push(p);
                    e.cells.push(Points::default());
                }
            }
            seen.push(s);
        }
        if seen.is_empty() {
            return;
        }
        // The run's values, in the series' unit: a value at a percentile comes from the
        // run's first series of the metric, whose percentiles were all recorded above.
        // The run's commit slot and time are worked out once, not once per cell.
        let at = RunAt::of(r);
        let slot = group.commits.slot(at.key);
        for s in seen {
            let Some(e) = metrics.get_mut(&(s.metric.clone(), UnitKind::of(&s.unit))) else {
                continue;
            };
            for (p, cell) in e.percentiles.iter().zip(&mut e.cells) {
                let Some(v) = r.value_at(&s.metric, *p) else {
                    continue;
                };
                let (median, mean, mean_only) = match (p, &s.data) {
                    (None, Data::Value { .. }) => invocation_value(s, printed, v),
                    _ => (v, v, false),
                };
                let to = |x: f64| convert(x, &s.unit, &e.unit);
                if let (Some(median), Some(mean)) = (to(median), to(mean)) {
                    cell.push(slot, r, at.time, (median, mean, mean_only));
                }
            }
        }
    }

    /// Every series, sorted by suite, label, metric and percentile, with its change
    /// points.
    pub fn finish(self) -> Result<Vec<History>, ChangePointError> {
        Ok(self.finish_with_copies()?.0)
    }

    /// [`Self::finish`], and the copies counted once: blocks repeating another's values,
    /// or printing the summary of another (exports of one run), add no point of their own
    /// and no value to their commit's point.
    pub fn finish_with_copies(self) -> Result<(Vec<History>, Vec<Copies>), ChangePointError> {
        let mut left_out = copies::LeftOut::default();
        let mut copies = Vec::new();
        for blocks in self.copies.into_values() {
            let (l, c) = blocks.find();
            left_out.extend(l);
            copies.extend(c);
        }
        copies.sort_by_key(|c| c.blocks[0]);
        let mut out = Vec::new();
        for ((identity, label, branch), group) in self.groups {
            for ((metric, _), f) in group.metrics {
                // Whether each slot's block counts for this metric.
                let kept: Vec<bool> = group
                    .commits
                    .blocks
                    .iter()
                    .map(|&b| !left_out.series(b, &metric))
                    .collect();
                let mut cells: Vec<(Option<f64>, Points)> =
                    f.percentiles.into_iter().zip(f.cells).collect();
                cells.sort_by(|a, b| a.0.unwrap_or(-1.0).total_cmp(&b.0.unwrap_or(-1.0)));
                for (p, cell) in cells {
                    let means = cell
                        .accs
                        .iter()
                        .zip(&kept)
                        .any(|(a, &k)| k && a.as_ref().is_some_and(|a| a.mean_only));
                    let points = cell.points(&group.commits.commits, &kept, means);
                    if points.is_empty() {
                        continue;
                    }
                    let cell = Cell {
                        suite: identity.suite.clone(),
                        bench: identity.bench.clone(),
                        config: group.config.clone(),
                        label: label.clone(),
                        branch: branch.clone(),
                        metric: metric.clone(),
                        percentile: p,
                        unit: f.unit.clone(),
                    };
                    let mut h = History::from_points(cell, points, &self.opts.change_points)?;
                    if means {
                        h.statistic = "mean";
                    }
                    out.push(h);
                }
            }
        }
        Ok((out, copies))
    }
}

/// Where a run's values go in a series: its commit's and block's slot (without a commit,
/// its invocation's: one process's runs, such as Criterion's samples of one `cargo bench`,
/// are one point, not one each) and its time.
struct RunAt {
    key: SlotKey,
    time: Option<chrono::DateTime<chrono::Utc>>,
}

impl RunAt {
    fn of(r: &StoredRun) -> RunAt {
        let key = match r.run.tags.get("commit") {
            Some(c) => (Some(c.clone()), r.block_id, 0),
            None => {
                let (block, fork) = r.invocation();
                (None, block, fork)
            }
        };
        RunAt {
            key,
            time: run_time(r),
        }
    }
}

impl Points {
    fn push(
        &mut self,
        slot: usize,
        r: &StoredRun,
        t: Option<chrono::DateTime<chrono::Utc>>,
        (v, mean, mean_only): (f64, f64, bool),
    ) {
        if self.accs.len() <= slot {
            self.accs.resize_with(slot + 1, || None);
        }
        let a = self.accs[slot].get_or_insert_with(|| Acc {
            branch: r.run.tags.get("branch").cloned(),
            time: t,
            first_id: r.id,
            values: Vec::new(),
            means: Vec::new(),
            mean_only: false,
            ids: Vec::new(),
        });
        a.time = match (a.time, t) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        };
        a.first_id = a.first_id.min(r.id);
        a.values.push(v);
        a.means.push(mean);
        a.mean_only |= mean_only;
        a.ids.push(r.id);
    }

    /// The points in time order (then run id), each the median of its commit's runs
    /// (of their `means` when asked); `commits` are the group's commits by slot, `kept`
    /// whether a slot's block counts (no copy).
    fn points(self, commits: &[Option<String>], kept: &[bool], means: bool) -> Vec<Point> {
        // One point a commit: its blocks' slots merged, in first-seen order.
        let mut at: HashMap<&str, usize> = HashMap::new();
        let mut accs: Vec<(usize, Acc)> = Vec::new();
        for (slot, a) in self.accs.into_iter().enumerate() {
            let Some(a) = a.filter(|_| kept[slot]) else {
                continue;
            };
            let Some(c) = commits[slot].as_deref() else {
                accs.push((slot, a));
                continue;
            };
            match at.get(c) {
                Some(&i) => accs[i].1.merge(a),
                None => {
                    at.insert(c, accs.len());
                    accs.push((slot, a));
                }
            }
        }
        accs.sort_by_key(|(_, a)| (a.time, a.first_id));
        accs.into_iter()
            .map(|(slot, mut a)| Point {
                commit: commits[slot].clone(),
                branch: a.branch,
                time: a
                    .time
                    .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
                runs: a.values.len(),
                value: median(if means { &mut a.means } else { &mut a.values }),
                run_ids: a.ids,
            })
            .collect()
    }
}

impl Acc {
    /// Adds another slot's runs of the same commit and branch.
    fn merge(&mut self, other: Acc) {
        self.time = match (self.time, other.time) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        };
        self.first_id = self.first_id.min(other.first_id);
        self.values.extend(other.values);
        self.means.extend(other.means);
        self.mean_only |= other.mean_only;
        self.ids.extend(other.ids);
    }
}

/// Leaves out the series of a branch that holds one commit where the same cell is
/// followed over two or more commits on another branch (a pull request's one commit
/// beside `main`'s history: one point has no history); returns those branches, sorted.
pub fn leave_out_one_commit_branches(series: &mut Vec<History>) -> Vec<String> {
    let cell = |h: &History| {
        (
            h.suite.clone(),
            h.bench.clone(),
            super::samples::config_text(&h.config),
            h.label.clone(),
            h.metric.clone(),
            h.percentile.map(f64::to_bits),
        )
    };
    let followed: HashSet<_> = series
        .iter()
        .filter(|h| h.points.len() >= 2)
        .map(cell)
        .collect();
    let mut left_out = std::collections::BTreeSet::new();
    series.retain(|h| match &h.branch {
        Some(b) if h.points.len() < 2 && followed.contains(&cell(h)) => {
            left_out.insert(b.clone());
            false
        }
        _ => true,
    });
    left_out.into_iter().collect()
}

/// The baseline cut to its most recent segment: when the runs span several commits, each
/// benchmark's runs (suite, bench and configuration) of the commits after the last change
/// point of any of its series (the latest change across its metrics and percentiles
/// wins); otherwise all of them. A change in one benchmark of a suite leaves the others'
/// baselines whole.
pub fn last_segment_runs(runs: &[StoredRun], opts: &HistoryOptions) -> Vec<StoredRun> {
    let commits: std::collections::HashSet<&String> = runs
        .iter()
        .filter_map(|r| r.run.tags.get("commit"))
        .collect();
    if commits.len() < 2 {
        return runs.to_vec();
    }
    let Ok(series) = history(runs, opts) else {
        return runs.to_vec();
    };
    // Per benchmark: the time of the latest first-point-after-a-change.
    let mut cut: HashMap<SegmentKey, chrono::DateTime<chrono::Utc>> = HashMap::new();
    for h in &series {
        if let Some(c) = h.change_points.last() {
            let Some(t) = h.points[c.index]
                .time
                .as_deref()
                .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
            else {
                continue;
            };
            let t = t.with_timezone(&chrono::Utc);
            let key = SegmentKey::new(&h.suite, h.bench.as_deref(), &h.config);
            let e = cut.entry(key).or_insert(t);
            *e = (*e).max(t);
        }
    }
    if cut.is_empty() {
        return runs.to_vec();
    }
    runs.iter()
        .filter(|r| {
            let key = SegmentKey::new(&r.suite, r.run.bench.as_deref(), r.run.config_params());
            match (cut.get(&key), run_time(r)) {
                (Some(c), Some(t)) => t >= *c,
                _ => true,
            }
        })
        .cloned()
        .collect()
}

/// The benchmark a baseline segment is cut for: suite, bench and configuration (values
/// as `runs --json` prints them).
#[derive(Debug, PartialEq, Eq, Hash)]
struct SegmentKey(String, Option<String>, Vec<(String, String)>);

impl SegmentKey {
    fn new<'a, K: AsRef<str> + 'a>(
        suite: &str,
        bench: Option<&str>,
        config: impl IntoIterator<Item = (K, &'a Param)>,
    ) -> SegmentKey {
        let config = config
            .into_iter()
            .map(|(k, v)| (k.as_ref().to_string(), v.to_string()))
            .collect();
        SegmentKey(suite.to_string(), bench.map(str::to_string), config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_db_parsers::{LadderPoint, Run, Series};

    fn run(id: i64, index: u32, block: i64, commit: &str, day: u32, p50: f64) -> StoredRun {
        let mut tags = BTreeMap::new();
        tags.insert("commit".to_string(), commit.to_string());
        tags.insert("branch".to_string(), "main".to_string());
        tags.insert("time".to_string(), format!("2024-01-{day:02}T00:00:00Z"));
        StoredRun {
            id,
            suite: "jlbh".into(),
            // Each run from its own log file, labelled by the file's name: no label given.
            label: format!("l{id}"),
            format: "jlbh".into(),
            source: format!("logs/l{id}"),
            source_id: block,
            block_id: block,
            block_index: 0,
            ingested_at: "2030-01-01T00:00:00Z".into(),
            run: Run {
                bench: None,
                config: Default::default(),
                index,
                first_line: 1,
                last_line: 1,
                params: Default::default(),
                tags,
                series: vec![Series {
                    metric: "end_to_end".into(),
                    display: "end to end".into(),
                    unit: "us".into(),
                    data: Data::Ladder {
                        count: None,
                        points: vec![LadderPoint {
                            percentile: 50.0,
                            value: Some(p50),
                            line_value: None,
                        }],
                    },
                    stats: BTreeMap::new(),
                }],
            },
            printed: Vec::new(),
        }
    }

    #[test]
    fn one_median_per_commit_in_time_order_without_warm_up() {
        let runs = vec![
            // Commit b (day 2): run 1 is warm-up, runs 2 and 3 count.
            run(1, 1, 10, "b", 2, 999.0),
            run(2, 2, 10, "b", 2, 20.0),
            run(3, 3, 10, "b", 2, 30.0),
            // Commit a (day 1): one single-run block, kept.
            run(4, 1, 11, "a", 1, 7.0),
        ];
        let h = history(&runs, &HistoryOptions::default()).unwrap();
        assert_eq!(h.len(), 1);
        let pts: Vec<(Option<&str>, usize, f64)> = h[0]
            .points
            .iter()
            .map(|p| (p.commit.as_deref(), p.runs, p.value))
            .collect();
        assert_eq!(pts, vec![(Some("a"), 1, 7.0), (Some("b"), 2, 25.0)]);
        assert_eq!(h[0].percentile, Some(50.0));
        assert_eq!(h[0].unit, "us");
        // Split by label: every run here has its own label.
        let by_label = HistoryOptions {
            by_label: true,
            ..HistoryOptions::default()
        };
        let h = history(&runs, &by_label).unwrap();
        assert_eq!(h.len(), 3);
        assert_eq!(h[0].label.as_deref(), Some("l2"));
        assert_eq!(h[0].name(), "jlbh / l2 / branch main / end_to_end p50");
    }

    #[test]
    fn a_series_follows_one_branch() {
        let mut pr = run(5, 1, 12, "c", 3, 500.0);
        pr.run.tags.insert("branch".into(), "pr-7".into());
        let runs = vec![
            run(4, 1, 11, "a", 1, 7.0),
            run(6, 1, 13, "b", 2, 9.0),
            pr.clone(),
        ];
        let mut h = history(&runs, &HistoryOptions::default()).unwrap();
        let branches: Vec<(Option<&str>, usize)> = h
            .iter()
            .map(|s| (s.branch.as_deref(), s.points.len()))
            .collect();
        // main's 7 → 9 is not followed by the branch's 500.
        assert_eq!(branches, [(Some("main"), 2), (Some("pr-7"), 1)]);
        assert_eq!(leave_out_one_commit_branches(&mut h), ["pr-7"]);
        assert_eq!(h.len(), 1);
        // Alone, the branch's one commit is its own history.
        let mut alone = history(&[pr], &HistoryOptions::default()).unwrap();
        assert!(leave_out_one_commit_branches(&mut alone).is_empty());
        assert_eq!(alone[0].points.len(), 1);
    }

    #[test]
    fn only_jlbh_layouts_leave_run_one_out() {
        let go = |id, index| StoredRun {
            format: "go-bench".into(),
            ..run(id, index, 10, "a", 1, 10.0 * f64::from(index))
        };
        // A Go `-count 3` block: every repeat is measured, run 1 too.
        let h = history(&[go(1, 1), go(2, 2), go(3, 3)], &HistoryOptions::default()).unwrap();
        assert_eq!((h[0].points[0].runs, h[0].points[0].value), (3, 20.0));
        // The same block from JLBH: run 1 is its warm-up.
        let jlbh = [run(1, 1, 10, "a", 1, 10.0), run(2, 2, 10, "a", 1, 20.0)];
        let h = history(&jlbh, &HistoryOptions::default()).unwrap();
        assert_eq!((h[0].points[0].runs, h[0].points[0].value), (1, 20.0));
        // The builder, fed block by block, applies the same rule.
        let opts = HistoryOptions::default();
        let mut b = HistoryBuilder::new(&opts);
        b.add_blocks(&[go(1, 1), go(2, 2), go(3, 3)]);
        assert_eq!(b.finish().unwrap()[0].points[0].runs, 3);
    }

    #[test]
    fn one_series_holds_one_unit() {
        let in_unit = |id, day, v: f64, unit: &str| {
            let mut r = run(id, 1, id, &format!("c{id}"), day, v);
            r.run.series[0].unit = unit.into();
            r
        };
        // hyperfine's JSON export in s, its Markdown export in ms
        // (fixtures/real/hyperfine/two-commands.md line 3: 12.7 ms).
        let runs = [
            in_unit(1, 1, 0.012654691440000001, "s"),
            in_unit(2, 2, 12.7, "ms"),
            in_unit(3, 3, 50.0, "%"),
        ];
        let h = history(&runs, &HistoryOptions::default()).unwrap();
        let units: Vec<&str> = h.iter().map(|h| h.unit.as_str()).collect();
        assert_eq!(units, ["s", "%"]);
        let s: Vec<f64> = h[0].points.iter().map(|p| p.value).collect();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0], 0.012654691440000001);
        assert!((s[1] - 0.0127).abs() < 1e-15, "{s:?}");
        assert_eq!(h[1].points[0].value, 50.0);
        // JMH told `-tu` another unit: 2.5 ops/ms then 2400 ops/s is one series, in the
        // first unit; a time per operation stays apart from it.
        let runs = [
            in_unit(1, 1, 2.5, "ops/ms"),
            in_unit(2, 2, 2400.0, "ops/s"),
            in_unit(3, 3, 0.4, "ms/op"),
        ];
        let h = history(&runs, &HistoryOptions::default()).unwrap();
        let units: Vec<&str> = h.iter().map(|h| h.unit.as_str()).collect();
        assert_eq!(units, ["ms/op", "ops/ms"]);
        let v: Vec<f64> = h[1].points.iter().map(|p| p.value).collect();
        assert_eq!(v, [2.5, 2.4]);
    }

    #[test]
    fn change_points_and_last_segment() {
        let runs: Vec<StoredRun> = (0..40)
            .map(|i| {
                let v = if i < 25 { 100.0 } else { 130.0 } + (i % 3) as f64;
                run(i + 1, 1, i + 1, &format!("c{i}"), 1 + (i as u32 % 28), v)
            })
            .map(|mut r| {
                // Distinct, increasing times.
                let t = format!("2024-02-01T{:02}:{:02}:00Z", r.id / 60, r.id % 60);
                r.run.tags.insert("time".into(), t);
                r
            })
            .collect();
        let h = history(&runs, &HistoryOptions::default()).unwrap();
        assert_eq!(h[0].change_points.len(), 1);
        let c = &h[0].change_points[0];
        assert_eq!(c.index, 25);
        assert_eq!(c.commit.as_deref(), Some("c25"));
        assert!((c.delta_pct - 29.7).abs() < 1.0, "{}", c.delta_pct);
        assert_eq!(h[0].last_segment().len(), 15);
        let trimmed = last_segment_runs(&runs, &HistoryOptions::default());
        assert_eq!(trimmed.len(), 15);
        assert_eq!(trimmed[0].id, 26);

        // A second benchmark of the suite, flat over the same commits: the first one's
        // step leaves its baseline whole.
        let flat: Vec<StoredRun> = runs
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let mut r = r.clone();
                r.id += 1000;
                r.block_id += 1000;
                r.run.bench = Some("flat".into());
                if let Data::Ladder { points, .. } = &mut r.run.series[0].data {
                    points[0].value = Some(50.0 + (i % 3) as f64);
                }
                r
            })
            .collect();
        let both: Vec<StoredRun> = runs.iter().chain(&flat).cloned().collect();
        let trimmed = last_segment_runs(&both, &HistoryOptions::default());
        let count = |bench: Option<&str>| {
            trimmed
                .iter()
                .filter(|r| r.run.bench.as_deref() == bench)
                .count()
        };
        assert_eq!((count(None), count(Some("flat"))), (15, 40));
    }
}
