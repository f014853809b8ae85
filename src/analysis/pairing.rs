//! Before/after comparisons for the report: two groups of runs, their per-cell deltas
//! (the compare analysis' cells, named as `compare` names them, and which way each
//! moved) and, for time series, both sides' values over time. Sides are what the user asked for
//! (`--baseline/--candidate`) or the same suite and label on two branches, paired and judged as
//! the README's CI gate does (main's latest commits after their last change point against the
//! branch's latest commit, the gate's default policy), so the report's "Got worse" is the
//! gate's regressions; nothing is paired by position in a file.

use super::charts::timeseries::TimeSeriesInput;
use super::compare::{self as analysis, Cell, CompareOptions};
use super::gate::{GateCell, Policy, Status};
use super::polarity::Polarity;
use super::printed::{Headline, PrintedChange};
use crate::dataset::StoredRun;
use crate::numfmt::{self as fmt, Prefixes, prefixes_of};
use std::collections::{BTreeMap, HashMap, HashSet};

/// One compared cell.
#[derive(Debug, Clone, PartialEq)]
pub struct Delta {
    pub metric: String,
    /// The cell as `compare` names it: benchmark, configuration and metric
    /// ([`Cell::metric_with_bench`]), so cells of one metric stay apart; a cell of no
    /// benchmark (JLBH, tsar) by the metric's name as the tool printed it.
    pub display: String,
    /// The benchmark and its configuration, as `compare --json` gives them.
    pub bench: Option<String>,
    pub config: Vec<(String, String)>,
    pub unit: String,
    /// Percentile for ladder cells.
    pub percentile: Option<f64>,
    pub baseline: Option<f64>,
    pub candidate: Option<f64>,
    /// The cell's one estimate ([`Cell::delta_pct`]): the tested change where a test ran;
    /// `None` when undefined.
    pub delta_pct: Option<f64>,
    /// The change of `baseline` and `candidate` ([`Cell::central_delta_pct`]).
    pub central_delta_pct: Option<f64>,
    /// The interval of `delta_pct`; `None` where there is none.
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
    /// `better`, `worse`, `same`, `inconclusive` or `insufficient`; for a branch pair, the
    /// gate's word (`worse` for a regression, `better`, `pass`, `warning`, `undecided`,
    /// `not gated`).
    pub verdict: String,
    /// For a branch pair, the gate's reason for its verdict.
    pub reason: Option<String>,
    /// Whether the cell got better (`Some(true)`), worse (`Some(false)`) or neither.
    pub direction: Option<bool>,
    /// K/M/G as the tool printed the values.
    pub prefixes: fmt::Prefixes,
    /// What the tool printed for the cell on each side, its own change, and why a side
    /// shows none ([`Cell`]'s `printed_*`).
    pub printed_baseline: Option<Headline>,
    pub printed_candidate: Option<Headline>,
    pub printed_change: Vec<PrintedChange>,
    pub printed_note: Option<String>,
}

impl Delta {
    /// A value of this cell as people read it, in the tool's prefixes.
    pub fn human(&self, v: f64) -> String {
        fmt::human_in(v, &self.unit, 3, self.prefixes)
    }

    /// The row name: the display name, with the percentile for ladder cells.
    pub fn name(&self) -> String {
        match self.percentile {
            Some(p) => format!("{} {}", self.display, fmt::percentile_name(p)),
            None => self.display.clone(),
        }
    }

    /// The report's view of an analysis cell; `runs` supply the tool's prefixes and
    /// names. `named`: the comparison's cells are of more than one benchmark (or
    /// configuration), so each row names its own.
    pub fn from_cell(cell: &Cell, runs: &[&StoredRun], named: bool) -> Self {
        let verdict = cell.verdict.as_str();
        Delta {
            metric: cell.metric.clone(),
            display: if !named || cell.bench_text().is_empty() {
                // Nothing to tell cells apart by: the metric as the tool named it in a
                // run of this cell's benchmark (a Go or hyperfine display names its
                // benchmark; the runs are the whole suite's).
                runs.iter()
                    .filter(|r| r.run.bench == cell.bench)
                    .find_map(|r| r.series(&cell.metric))
                    .map_or_else(|| cell.metric.clone(), |s| s.display.clone())
            } else {
                cell.metric_with_bench()
            },
            bench: cell.bench.clone(),
            config: cell.config.clone(),
            unit: cell.unit.clone(),
            percentile: cell.percentile,
            baseline: cell.baseline,
            candidate: cell.candidate,
            delta_pct: cell.delta_pct,
            central_delta_pct: cell.central_delta_pct,
            ci_low: cell.ci_low_pct,
            ci_high: cell.ci_high_pct,
            direction: direction(verdict, cell.delta_pct, known_polarity(cell)),
            verdict: verdict.to_string(),
            reason: None,
            prefixes: runs
                .first()
                .map_or(Prefixes::Decimal, |r| prefixes_of(&r.format)),
            printed_baseline: cell.printed_baseline.clone(),
            printed_candidate: cell.printed_candidate.clone(),
            printed_change: cell.printed_change.clone(),
            printed_note: cell.printed_note.clone(),
        }
    }
}

/// The cell's polarity, when the name rules (or an override) know it.
fn known_polarity(cell: &Cell) -> Option<Polarity> {
    cell.polarity_known.then_some(cell.polarity)
}

/// Whether a cell got better (`Some(true)`), worse (`Some(false)`) or neither. A cell of
/// unknown `polarity` is neither, whatever its verdict: which way is better is not known.
/// Tested verdicts are taken as they are; a cell with too few replicates for a test
/// (`insufficient`, e.g. one value per side) goes by the direction of its change.
fn direction(verdict: &str, delta_pct: Option<f64>, polarity: Option<Polarity>) -> Option<bool> {
    let polarity = polarity?;
    match verdict {
        "better" => Some(true),
        "worse" => Some(false),
        "insufficient" => {
            let pct = delta_pct.filter(|p| p.abs() >= 0.005)?;
            Some((pct < 0.0) == (polarity == Polarity::Lower))
        }
        _ => None,
    }
}

/// Every cell present on both sides, compared with the analysis' default options
/// (fixed bootstrap seed, so the same runs give the same numbers).
fn compare_cells(baseline: &[&StoredRun], candidate: &[&StoredRun]) -> Vec<Delta> {
    let owned = |runs: &[&StoredRun]| runs.iter().map(|r| (*r).clone()).collect::<Vec<_>>();
    let cells = analysis::compare(
        &owned(baseline),
        &owned(candidate),
        &[],
        &CompareOptions::default(),
    );
    let named = named(cells.iter());
    cells
        .iter()
        .map(|c| Delta::from_cell(c, baseline, named))
        .collect()
}

/// Whether cells are of more than one benchmark and configuration.
fn named<'c>(cells: impl Iterator<Item = &'c Cell>) -> bool {
    let mut first = None;
    for c in cells {
        let b = c.bench_text();
        match &first {
            None => first = Some(b),
            Some(f) if *f != b => return true,
            Some(_) => {}
        }
    }
    false
}

/// True when both groups have at least one metric in common.
fn share_metrics(a: &[&StoredRun], b: &[&StoredRun]) -> bool {
    a.iter()
        .flat_map(|r| r.run.series.iter())
        .any(|s| b.iter().any(|r| r.series(&s.metric).is_some()))
}

/// One before/after comparison, ready to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Suite whose page shows it.
    pub suite: String,
    pub baseline: String,
    pub candidate: String,
    pub deltas: Vec<Delta>,
    /// Both sides over time, one chart per shared time-series metric.
    pub timeseries: Vec<TimeSeriesInput>,
    /// Ids of the runs on either side whose time series those charts already show.
    pub charted_runs: Vec<i64>,
    /// The copies each side counted once (`baseline` or `candidate`, and the copies).
    pub copies: Vec<(&'static str, super::copies::Copies)>,
}

impl Comparison {
    /// `baseline → candidate`, baseline first.
    pub fn title(&self) -> String {
        format!("{} → {}", self.baseline, self.candidate)
    }
}

/// A comparison of two groups of runs: the compare analysis' cells and both sides of
/// every shared time series.
pub fn compare(
    baseline_name: &str,
    baseline: &[&StoredRun],
    candidate_name: &str,
    candidate: &[&StoredRun],
) -> Comparison {
    let deltas = compare_cells(baseline, candidate);
    comparison(baseline_name, baseline, candidate_name, candidate, deltas)
}

/// Every cell the gate's default policy judges, with the gate's verdict and reason: a
/// regression is `worse`; a pass that improved as a regression worsens
/// ([`GateCell::improved`]) is `better`; else the gate's status.
fn gate_cells(baseline: &[&StoredRun], candidate: &[&StoredRun]) -> Vec<Delta> {
    let owned = |runs: &[&StoredRun]| runs.iter().map(|r| (*r).clone()).collect::<Vec<_>>();
    let policy = Policy::default();
    let Ok(report) = super::gate::gate(
        &owned(baseline),
        &owned(candidate),
        &policy,
        &CompareOptions::default(),
    ) else {
        return compare_cells(baseline, candidate);
    };
    let named = named(report.cells.iter().map(|g| &g.cell));
    report
        .cells
        .iter()
        .map(|g| {
            let mut d = Delta::from_cell(&g.cell, baseline, named);
            let (verdict, direction) = gate_word(g, &policy);
            d.verdict = verdict.to_string();
            d.direction = direction;
            d.reason = Some(g.reason.clone());
            d
        })
        .collect()
}

/// The report's word for a gated cell and whether it got better (`Some(true)`), worse
/// (`Some(false)`) or neither: the gate's status, a pass that improved being `better`.
fn gate_word(g: &GateCell, policy: &Policy) -> (&'static str, Option<bool>) {
    match g.status {
        Status::Regression => ("worse", Some(false)),
        Status::Pass if g.improved(policy) => ("better", Some(true)),
        Status::Pass => ("pass", None),
        Status::Warning => ("warning", None),
        Status::Undecided => ("undecided", None),
        Status::Info => ("not gated", None),
    }
}

/// The comparison of two sides with their `deltas`, and both sides of every shared time
/// series.
fn comparison(
    baseline_name: &str,
    baseline: &[&StoredRun],
    candidate_name: &str,
    candidate: &[&StoredRun],
    deltas: Vec<Delta>,
) -> Comparison {
    let mut timeseries = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for s in baseline.iter().flat_map(|r| r.run.series.iter()) {
        if seen.contains(&s.metric.as_str()) {
            continue;
        }
        seen.push(&s.metric);
        let side = |runs: &[&StoredRun]| -> Vec<(f64, f64)> {
            let mut pts: Vec<(f64, f64)> = runs
                .iter()
                .filter_map(|r| r.time_points(&s.metric))
                .flatten()
                .collect();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            pts
        };
        let (b, c) = (side(baseline), side(candidate));
        if b.is_empty() || c.is_empty() {
            continue;
        }
        timeseries.push(TimeSeriesInput {
            title: format!("{}: baseline and candidate", s.display),
            quantity: s.display.clone(),
            unit: s.unit.clone(),
            lines: vec![
                (baseline_name.to_string(), b),
                (candidate_name.to_string(), c),
            ],
            elapsed: true,
            prefixes: baseline
                .first()
                .map_or(Prefixes::Decimal, |r| prefixes_of(&r.format)),
            local_time: baseline
                .iter()
                .chain(candidate)
                .all(|r| fmt::local_times_of(&r.format)),
        });
    }
    let suite = baseline
        .first()
        .or(candidate.first())
        .map(|r| r.suite.clone())
        .unwrap_or_default();
    Comparison {
        suite,
        baseline: baseline_name.to_string(),
        candidate: candidate_name.to_string(),
        charted_runs: if timeseries.is_empty() {
            Vec::new()
        } else {
            baseline.iter().chain(candidate).map(|r| r.id).collect()
        },
        deltas,
        timeseries,
        copies: Vec::new(),
    }
}

/// The branch every other branch of a suite and label is compared against.
pub const MAIN_BRANCH: &str = "main";

/// A branch's commits (or ingested groups): per unit, its newest ingest time, its highest
/// run id and its runs.
type Units<'a> = BTreeMap<String, (&'a str, i64, Vec<&'a StoredRun>)>;

/// A branch's units' runs, oldest first: by newest ingest time, a tie (two commits stored
/// within the same second) going to the unit stored last, as `latest=N` orders them.
fn ordered<'u, 'a>(units: &'u Units<'a>) -> Vec<&'u [&'a StoredRun]> {
    let mut v: Vec<(&str, i64, &[&StoredRun])> = units
        .values()
        .map(|(t, id, runs)| (*t, *id, runs.as_slice()))
        .collect();
    v.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    v.into_iter().map(|(_, _, runs)| runs).collect()
}

/// Commits of `main` a branch is compared against, as the README's CI gate selects them
/// (`tag.branch=main;latest=10`).
pub const BASELINE_COMMITS: usize = 10;

/// Branches compared against [`MAIN_BRANCH`] per suite and label, at most: the most
/// recent ones (by their latest commit's ingest time); the others are named on the page,
/// not compared (each comparison costs a gate and a section of the report).
pub const MAX_BRANCH_PAIRS: usize = 20;

/// The comparisons [`branch_pairs`] made, and the branches it left out.
#[derive(Debug, Clone, Default)]
pub struct BranchPairs {
    pub comparisons: Vec<Comparison>,
    /// `suite: branch` of every branch beyond [`MAX_BRANCH_PAIRS`], in name order.
    pub left_out: Vec<String>,
}

/// Comparisons the data itself asks for: runs of one suite and label stored on two
/// branches (tag `branch`), paired and judged as the README's CI gate does. The baseline is
/// `main`'s latest [`BASELINE_COMMITS`] commits (tag `commit`; untagged, each ingested
/// group counts as one), cut after their last change point; each other branch's latest
/// commit is a candidate, for the [`MAX_BRANCH_PAIRS`] most recent branches; the cells are
/// the gate's, under its default policy. Nothing else is paired: a sweep of rates, two
/// transports or two thread counts in one file are different things, not before and after.
pub fn branch_pairs(runs: &[StoredRun]) -> BranchPairs {
    let mut by_name: BTreeMap<(&str, &str), BTreeMap<&str, Units>> = BTreeMap::new();
    for r in runs {
        let Some(branch) = r.run.tags.get("branch") else {
            continue;
        };
        let e = by_name
            .entry((r.suite.as_str(), r.given_label().unwrap_or_default()))
            .or_default()
            .entry(branch.as_str())
            .or_default();
        add_unit_run(e, r);
    }
    let mut out = BranchPairs::default();
    for ((suite, _), branches) in &by_name {
        let Some(main) = branches.get(MAIN_BRANCH) else {
            continue;
        };
        let units = ordered(main);
        // Only the recent commits are copied: the change-point cut works on owned runs.
        let recent: Vec<StoredRun> = units[units.len().saturating_sub(BASELINE_COMMITS)..]
            .iter()
            .flat_map(|u| u.iter().map(|r| (*r).clone()))
            .collect();
        let base_runs = super::history::last_segment_runs(&recent, &Default::default());
        // Copies of one output count once, as the gate counts them.
        let (copies, base_copies) = super::copies::find(&base_runs);
        let (mut base, base_trimmed) = copies.split(&base_runs);
        base.extend(&base_trimmed);
        base.sort_by_key(|r| r.id);
        // Each other branch's latest commit, when it shares a metric with the baseline.
        let mut candidates: Vec<(&str, &str, &[&StoredRun])> = branches
            .iter()
            .filter(|(branch, _)| **branch != MAIN_BRANCH)
            .filter_map(|(branch, units)| {
                let newest = units.values().map(|u| u.0).max()?;
                let cand = ordered(units).pop()?;
                share_metrics(&base, cand).then_some((*branch, newest, cand))
            })
            .collect();
        if candidates.len() > MAX_BRANCH_PAIRS {
            let mut recency: Vec<(&str, &str)> = candidates.iter().map(|c| (c.1, c.0)).collect();
            recency.sort_unstable_by(|a, b| b.cmp(a));
            let kept: std::collections::BTreeSet<&str> =
                recency[..MAX_BRANCH_PAIRS].iter().map(|r| r.1).collect();
            for c in &candidates {
                if !kept.contains(c.0) {
                    out.left_out.push(format!("{suite}: {}", c.0));
                }
            }
            candidates.retain(|c| kept.contains(c.0));
        }
        for (_, _, cand) in candidates {
            let (copies, cand_copies) = super::copies::find(cand.iter().copied());
            let (mut cand, cand_trimmed) = copies.split(cand.iter().copied());
            cand.extend(&cand_trimmed);
            cand.sort_by_key(|r| r.id);
            let cand = &cand[..];
            let (bn, cn) = side_names(&base, cand);
            let deltas = gate_cells(&base, cand);
            let mut c = comparison(&bn, &base, &cn, cand, deltas);
            c.copies = (base_copies.iter().map(|g| ("baseline", g.clone())))
                .chain(cand_copies.into_iter().map(|g| ("candidate", g)))
                .collect();
            out.comparisons.push(c);
        }
    }
    out
}

/// Adds a run to its unit on its branch, keeping the unit's newest ingest time and
/// highest run id (what [`ordered`] orders by).
fn add_unit_run<'a>(units: &mut Units<'a>, r: &'a StoredRun) {
    let e = units
        .entry(unit_of(r))
        .or_insert((r.ingested_at.as_str(), r.id, Vec::new()));
    e.0 = e.0.max(r.ingested_at.as_str());
    e.1 = e.1.max(r.id);
    e.2.push(r);
}

/// The unit a run counts in on its branch: its commit, else its ingested group.
fn unit_of(r: &StoredRun) -> String {
    match r.run.tags.get("commit") {
        Some(c) => format!("commit {c}"),
        None => format!("{} {} {}", r.ingested_at, r.source_id, r.block_index),
    }
}

/// (suite, given label, branch, unit): where a run stands among the branches.
type Place = (String, String, String, String);

fn place_of(r: &StoredRun) -> Option<Place> {
    let branch = r.run.tags.get("branch")?;
    Some((
        r.suite.clone(),
        r.given_label().unwrap_or_default().to_string(),
        branch.clone(),
        unit_of(r),
    ))
}

/// Which runs [`branch_pairs`] reads, told from the runs' heads (suite, label, source,
/// tags, ingest time) before any series is read: per suite and label, `main`'s latest
/// [`BASELINE_COMMITS`] units and every other branch's latest unit. [`branch_pairs`] of
/// the runs it wants makes the comparisons that [`branch_pairs`] of every run makes, so
/// a report keeps those runs only, however long the history.
#[derive(Debug, Default)]
pub struct PairPlan {
    /// Every (suite, label, branch) seen, and per each its units with their newest
    /// ingest time.
    branches: Vec<(String, String, String)>,
    index: HashMap<(String, String, String), usize>,
    units: Vec<HashMap<String, (String, i64)>>,
    /// The branch of the previous run: runs come in runs of one branch.
    last: Option<usize>,
}

impl PairPlan {
    /// Counts one run's head.
    pub fn add(&mut self, r: &StoredRun) {
        let Some(branch) = r.run.tags.get("branch") else {
            return;
        };
        let label = r.given_label().unwrap_or_default();
        let at = match self.last {
            Some(i)
                if self.branches[i].0 == r.suite
                    && self.branches[i].1 == label
                    && self.branches[i].2 == *branch =>
            {
                i
            }
            _ => {
                let key = (r.suite.clone(), label.to_string(), branch.clone());
                match self.index.get(&key) {
                    Some(&i) => i,
                    None => {
                        self.index.insert(key.clone(), self.branches.len());
                        self.branches.push(key);
                        self.units.push(HashMap::new());
                        self.branches.len() - 1
                    }
                }
            }
        };
        self.last = Some(at);
        let unit = unit_of(r);
        match self.units[at].get_mut(&unit) {
            Some((newest, id)) => {
                if r.ingested_at > *newest {
                    newest.clone_from(&r.ingested_at);
                }
                *id = (*id).max(r.id);
            }
            None => {
                self.units[at].insert(unit, (r.ingested_at.clone(), r.id));
            }
        }
    }

    /// The units wanted, as [`branch_pairs`] orders them (newest ingest, then highest id).
    pub fn wanted(&self) -> WantedRuns {
        let with_main: HashSet<(&str, &str)> = self
            .branches
            .iter()
            .filter(|b| b.2 == MAIN_BRANCH)
            .map(|b| (b.0.as_str(), b.1.as_str()))
            .collect();
        let mut out = WantedRuns::default();
        for ((suite, label, branch), units) in self.branches.iter().zip(&self.units) {
            if !with_main.contains(&(suite.as_str(), label.as_str())) {
                continue;
            }
            let mut v: Vec<(&(String, i64), &String)> = units.iter().map(|(k, t)| (t, k)).collect();
            v.sort();
            let keep = if branch == MAIN_BRANCH {
                BASELINE_COMMITS
            } else {
                1
            };
            for (_, unit) in &v[v.len().saturating_sub(keep)..] {
                match unit.strip_prefix("commit ") {
                    Some(c) => {
                        out.commits.insert(c.to_string());
                    }
                    None => out.untagged = true,
                }
                out.places.insert((
                    suite.clone(),
                    label.clone(),
                    branch.clone(),
                    (*unit).clone(),
                ));
            }
        }
        out
    }
}

/// The runs a [`PairPlan`] wants.
#[derive(Debug, Default)]
pub struct WantedRuns {
    places: HashSet<Place>,
    /// The commits among them, and whether any unit is an untagged group: most runs
    /// are told apart by these alone.
    commits: HashSet<String>,
    untagged: bool,
}

impl WantedRuns {
    /// Whether [`branch_pairs`] reads this run.
    pub fn contains(&self, r: &StoredRun) -> bool {
        let maybe = match r.run.tags.get("commit") {
            Some(c) => self.commits.contains(c.as_str()),
            None => self.untagged,
        };
        maybe && place_of(r).is_some_and(|p| self.places.contains(&p))
    }
}

/// Readable names for two sides (their suite is named beside them): their given labels
/// (a label that only names a log file names no side), told apart by the first tag
/// whose values differ (`branch`, then `commit`, then any other), else their log files,
/// else their roles. Never run ids.
pub fn side_names(baseline: &[&StoredRun], candidate: &[&StoredRun]) -> (String, String) {
    let describe = |runs: &[&StoredRun], files: bool| -> String {
        let mut labels: Vec<&str> = Vec::new();
        for r in runs {
            let name = match r.given_label() {
                Some(l) => l,
                None if files => r.label.as_str(),
                None => continue,
            };
            if name.is_empty() {
                continue;
            }
            if !labels.contains(&name) {
                labels.push(name);
            }
        }
        match labels.len() {
            0 => String::new(),
            1 | 2 => labels.join(", "),
            n => format!("{}, {} and {} more", labels[0], labels[1], n - 2),
        }
    };
    let (b, c) = (describe(baseline, false), describe(candidate, false));
    if b != c && !b.is_empty() && !c.is_empty() {
        return (b, c);
    }
    let tag_of = |runs: &[&StoredRun], key: &str| -> Option<String> {
        let mut vals: Vec<&str> = runs
            .iter()
            .filter_map(|r| r.run.tags.get(key).map(String::as_str))
            .collect();
        vals.sort_unstable();
        vals.dedup();
        (!vals.is_empty()).then(|| vals.join("/"))
    };
    let mut keys: Vec<&str> = vec!["branch", "commit"];
    for r in baseline.iter().chain(candidate) {
        for k in r.run.tags.keys() {
            if !keys.contains(&k.as_str()) {
                keys.push(k);
            }
        }
    }
    for key in keys {
        let (tb, tc) = (tag_of(baseline, key), tag_of(candidate, key));
        if tb != tc {
            let side = |name: &str, tag: Option<String>| {
                let tag = tag.unwrap_or_else(|| "none".to_string());
                match (name.is_empty(), key) {
                    (true, "branch") => tag,
                    (true, _) => format!("{key} {tag}"),
                    (false, "branch") => format!("{name} on {tag}"),
                    (false, _) => format!("{name} ({key} {tag})"),
                }
            };
            return (side(&b, tb), side(&c, tc));
        }
    }
    let (fb, fc) = (describe(baseline, true), describe(candidate, true));
    if fb != fc && !fb.is_empty() && !fc.is_empty() {
        return (fb, fc);
    }
    let role = |name: &str, role: &str| {
        if name.is_empty() {
            role.to_string()
        } else {
            format!("{name} ({role})")
        }
    };
    (role(&b, "baseline"), role(&c, "candidate"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::demo;

    fn tagged(branch: &str, label: &str, ingested: &str, block: u32) -> Vec<StoredRun> {
        let mut runs: Vec<StoredRun> = demo::runs()
            .into_iter()
            .filter(|r| r.suite == "jlbh" && r.source_id == 1)
            .collect();
        for r in &mut runs {
            r.run.tags.insert("branch".into(), branch.into());
            r.label = label.into();
            r.ingested_at = ingested.into();
            r.block_index = block;
        }
        runs
    }

    #[test]
    fn only_branches_of_one_suite_and_label_pair() {
        let mut runs = tagged("main", "rtt", "2026-01-01", 0);
        runs.extend(tagged("main", "rtt", "2026-01-02", 1));
        runs.extend(tagged("fast-path", "rtt", "2026-01-03", 2));
        // Another label on another branch: nothing to pair it with.
        runs.extend(tagged("fast-path", "udp", "2026-01-03", 3));
        // Untagged runs, a sweep of two rates: never paired.
        runs.extend(demo::runs().into_iter().filter(|r| r.suite == "jlbh"));
        let pairs = branch_pairs(&runs).comparisons;
        assert_eq!(pairs.len(), 1);
        assert_eq!(pairs[0].baseline, "rtt on main");
        assert_eq!(pairs[0].candidate, "rtt on fast-path");
        assert_eq!(pairs[0].title(), "rtt on main → rtt on fast-path");
        assert!(!pairs[0].deltas.is_empty());
    }

    #[test]
    fn only_the_most_recent_branches_are_compared() {
        let mut runs = tagged("main", "rtt", "2026-01-01", 0);
        let n = MAX_BRANCH_PAIRS + 3;
        for i in 0..n {
            // pr-00 is the oldest branch, pr-22 the newest.
            let at = format!("2026-02-{:02}", i + 1);
            runs.extend(tagged(&format!("pr-{i:02}"), "rtt", &at, i as u32 + 1));
        }
        let pairs = branch_pairs(&runs);
        assert_eq!(pairs.comparisons.len(), MAX_BRANCH_PAIRS);
        assert_eq!(
            pairs.left_out,
            ["jlbh: pr-00", "jlbh: pr-01", "jlbh: pr-02"]
        );
        // The compared ones keep their name order.
        assert_eq!(pairs.comparisons[0].candidate, "rtt on pr-03");
        assert_eq!(
            pairs.comparisons[MAX_BRANCH_PAIRS - 1].candidate,
            "rtt on pr-22"
        );
    }

    #[test]
    fn the_planned_runs_pair_as_every_run_does() {
        let mut runs = Vec::new();
        for i in 0..(BASELINE_COMMITS + 4) {
            let mut main = tagged("main", "rtt", &format!("2026-01-{:02}", i + 1), i as u32);
            for r in &mut main {
                r.run.tags.insert("commit".into(), format!("m{i:02}"));
            }
            runs.extend(main);
        }
        for i in 0..3 {
            // Two commits per branch: only the newest is the candidate.
            for (k, day) in [(0, 20), (1, 21)] {
                let mut b = tagged(&format!("pr-{i}"), "rtt", &format!("2026-01-{day}"), 40 + i);
                for r in &mut b {
                    r.run.tags.insert("commit".into(), format!("p{i}{k}"));
                }
                runs.extend(b);
            }
        }
        let mut plan = PairPlan::default();
        for r in &runs {
            plan.add(r);
        }
        let wanted = plan.wanted();
        let kept: Vec<StoredRun> = runs
            .iter()
            .filter(|r| wanted.contains(r))
            .cloned()
            .collect();
        // Main's latest commits and each branch's newest one.
        let per_commit = runs.len() / (BASELINE_COMMITS + 4 + 6);
        assert_eq!(kept.len(), (BASELINE_COMMITS + 3) * per_commit);
        assert!(kept.iter().all(|r| r.run.tags["commit"] != "m00"));
        let (all, few) = (branch_pairs(&runs), branch_pairs(&kept));
        assert_eq!(all.comparisons.len(), 3);
        assert_eq!(all.comparisons, few.comparisons);
        assert_eq!(all.left_out, few.left_out);
    }

    #[test]
    fn commits_stored_in_the_same_second_are_ordered_by_id() {
        let mut runs = tagged("main", "rtt", "2026-01-01T00:00:00Z", 0);
        for r in &mut runs {
            r.run.tags.insert("commit".into(), "m0".into());
        }
        // Commit "zzz" is stored first, "aaa" right after it in the same second: "aaa" is
        // the branch's latest although its name sorts first.
        for (k, sha) in ["zzz", "aaa"].into_iter().enumerate() {
            let mut b = tagged("pr", "rtt", "2026-01-02T00:00:00Z", 1 + k as u32);
            for (i, r) in b.iter_mut().enumerate() {
                r.run.tags.insert("commit".into(), sha.into());
                r.id = 100 * (k as i64 + 1) + i as i64;
            }
            runs.extend(b);
        }
        let mut units = Units::new();
        for r in runs.iter().filter(|r| r.run.tags["branch"] == "pr") {
            add_unit_run(&mut units, r);
        }
        let latest = ordered(&units).pop().unwrap();
        assert!(latest.iter().all(|r| r.run.tags["commit"] == "aaa"));
        // The plan keeps the same commit.
        let mut plan = PairPlan::default();
        for r in &runs {
            plan.add(r);
        }
        let wanted = plan.wanted();
        let kept: Vec<&StoredRun> = runs.iter().filter(|r| wanted.contains(r)).collect();
        assert!(kept.iter().any(|r| r.run.tags["commit"] == "aaa"));
        assert!(kept.iter().all(|r| r.run.tags["commit"] != "zzz"));
        assert_eq!(branch_pairs(&runs).comparisons.len(), 1);
    }

    /// A branch pair's verdicts are the gate's: a pass that improved beyond the threshold,
    /// the noise and α is `better`; a halving on too few runs stays the gate's
    /// `undecided`, whatever its p.
    #[test]
    fn a_branch_pair_says_what_the_gate_says() {
        use crate::analysis::testdata::ladder_runs;
        // Ids from 10: run 1 of a JLBH-layout block would be its warm-up.
        let base = ladder_runs(
            "end_to_end",
            "us",
            &[(99.0, &[100.0, 101.0, 99.0, 100.5, 99.5, 100.2])],
            10,
        );
        let judged = |cand: &[f64]| {
            let cand = ladder_runs("end_to_end", "us", &[(99.0, cand)], 100);
            let (b, c): (Vec<&StoredRun>, Vec<&StoredRun>) =
                (base.iter().collect(), cand.iter().collect());
            let report = crate::analysis::gate::gate(
                &base,
                &cand,
                &Policy::default(),
                &CompareOptions::default(),
            )
            .unwrap();
            let d = gate_cells(&b, &c).remove(0);
            (
                report.cells[0].status,
                d.verdict,
                d.direction,
                d.reason.unwrap(),
            )
        };
        let halved = [50.0, 50.5, 49.8, 50.2, 49.9, 50.1];
        let (status, verdict, direction, reason) = judged(&halved);
        assert_eq!(
            (status, verdict.as_str(), direction),
            (Status::Pass, "better", Some(true))
        );
        // The geometric means: 50.083 against 100.033.
        assert_eq!(reason, "better by 49.93%");
        // Four runs against six, all lower: the exact two-sided p is 2/C(10,4) = 0.0095,
        // below α 0.01, but the gate needs 5 a side.
        let (status, verdict, direction, reason) = judged(&halved[..4]);
        assert_eq!(
            (status, verdict.as_str(), direction),
            (Status::Undecided, "undecided", None)
        );
        assert_eq!(
            reason,
            "6 baseline and 4 candidate runs; the policy needs 5 a side"
        );
        let (status, verdict, _, _) = judged(&[100.1, 99.8, 100.4, 99.6, 100.3, 100.0]);
        assert_eq!((status, verdict.as_str()), (Status::Pass, "pass"));
        let (status, verdict, direction, _) = judged(&[200.0, 201.0, 199.0, 200.5, 199.5, 200.2]);
        assert_eq!(
            (status, verdict.as_str(), direction),
            (Status::Regression, "worse", Some(false))
        );
    }

    #[test]
    fn direction_follows_verdicts_then_polarity() {
        let d = |polarity: Option<Polarity>, pct: f64, verdict: &str| {
            direction(verdict, Some(pct), polarity)
        };
        let (lower, higher) = (Some(Polarity::Lower), Some(Polarity::Higher));
        assert_eq!(d(lower, 5.0, "better"), Some(true));
        assert_eq!(d(lower, -5.0, "same"), None);
        // Untestable single values go by polarity: lower latency, higher throughput win.
        assert_eq!(d(lower, -72.4, "insufficient"), Some(true));
        assert_eq!(d(higher, -3.0, "insufficient"), Some(false));
        assert_eq!(d(lower, 0.0, "insufficient"), None);
        // Inconclusive is neither better nor worse.
        assert_eq!(d(lower, -90.0, "inconclusive"), None);
        // Unknown polarity is never better or worse, whatever the verdict says.
        for verdict in ["better", "worse", "insufficient"] {
            assert_eq!(d(None, 75.8, verdict), None);
        }
    }

    #[test]
    fn side_names_use_labels_then_tags_never_ids() {
        let a = tagged("main", "rtt", "x", 0);
        let b = tagged("main", "rtt", "x", 0);
        let (ar, br): (Vec<&StoredRun>, Vec<&StoredRun>) = (a.iter().collect(), b.iter().collect());
        assert_eq!(
            side_names(&ar, &br),
            ("rtt (baseline)".to_string(), "rtt (candidate)".to_string())
        );
        let mut c = tagged("main", "rtt", "x", 0);
        for r in &mut c {
            r.run.tags.insert("commit".into(), "abc123".into());
        }
        let cr: Vec<&StoredRun> = c.iter().collect();
        assert_eq!(side_names(&ar, &cr).1, "rtt (commit abc123)");
        let d = tagged("main", "other", "x", 0);
        let dr: Vec<&StoredRun> = d.iter().collect();
        assert_eq!(side_names(&ar, &dr), ("rtt".into(), "other".into()));
        // Labels that only name their log file name no side: the branch does, else the
        // files do.
        let file = |runs: &mut Vec<StoredRun>, name: &str| {
            for r in runs.iter_mut() {
                r.source = format!("logs/{name}");
                r.label = name.into();
            }
        };
        let (mut e, mut f) = (tagged("main", "", "x", 0), tagged("fix", "", "x", 0));
        file(&mut e, "a.log");
        file(&mut f, "b.log");
        let (er, fr): (Vec<&StoredRun>, Vec<&StoredRun>) = (e.iter().collect(), f.iter().collect());
        assert_eq!(side_names(&er, &fr), ("main".into(), "fix".into()));
        assert_eq!(
            side_names(&er[..1], &er[1..]),
            ("baseline".into(), "candidate".into())
        );
        let mut g = tagged("main", "", "x", 0);
        file(&mut g, "c.log");
        let gr: Vec<&StoredRun> = g.iter().collect();
        assert_eq!(side_names(&er, &gr), ("a.log".into(), "c.log".into()));
    }
}
