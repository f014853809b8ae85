//! The report's site model: every page and section with its numbers already computed
//! (groups and their run rows, chart inputs, variation tables, curves, histories,
//! change points, before/after comparisons), built from the selected runs. Which groups
//! a suite page draws and which go to group pages is decided here too. `report::html`
//! only draws this model; it computes nothing. Pure: runs in, structs out.
//!
//! A suite's page is built from its runs as they stream ([`SuiteBuilder`], planned from
//! the runs' heads by [`SuitePlan`]), keeping of each run only what the page shows of it
//! once its group is whole (curves keep values, not runs); [`build`] does the same for runs in memory.

use super::charts::changes::Changes;
use super::charts::changes::{self, ChangeSeries};
use super::charts::curve::{self as curve_input, CurveInput};
use super::charts::history::{self, HistoryInput};
use super::charts::spectrum::{self, SpectrumInput};
use super::charts::timeseries::{self, TimeSeriesInput};
use super::charts::variation::{self, VariationTable, group_name};
use super::curve as analysis_curve;
use super::history::{Change, HistoryOptions};
use super::pairing::{Comparison, PairPlan, WantedRuns};
use super::samples::ConfigValue;
use super::slo::{self, SloTerm};
use crate::dataset::StoredRun;
use crate::numfmt::{Prefixes, prefixes_of};
use bench_db_parsers::{Data, Param};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;

/// Groups drawn per suite page; older groups are listed, not drawn, so a page stays
/// quick to render and small however many runs a suite holds.
pub const MAX_GROUPS_DRAWN: usize = 30;
/// A suite with more groups than this lists them on pages of this many groups each,
/// with their run and variation tables, and no charts.
pub const GROUPS_PER_PAGE: usize = 50;
/// Percentiles drawn on throughput/latency curves.
pub const CURVE_PERCENTILES: [f64; 4] = [50.0, 90.0, 99.0, 99.9];

/// What the report shows beyond the runs themselves.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub slo: Vec<SloTerm>,
}

/// Every page of a report.
#[derive(Debug, Clone, PartialEq)]
pub struct Site {
    /// Runs in the report.
    pub runs: usize,
    /// Every before/after comparison, in the order asked for.
    pub comparisons: Vec<Comparison>,
    /// Branches not compared (beyond [`super::pairing::MAX_BRANCH_PAIRS`]), `suite:
    /// branch`; the report command sets them.
    pub left_out: Vec<String>,
    /// One page per suite, by suite name.
    pub suites: Vec<SuitePage>,
}

/// A suite's page and, when it has more groups than [`GROUPS_PER_PAGE`], its group
/// pages.
#[derive(Debug, Clone, PartialEq)]
pub struct SuitePage {
    pub suite: String,
    pub runs: usize,
    /// Distinct sources and formats of its runs (formats sorted).
    pub sources: usize,
    pub formats: Vec<String>,
    /// Groups (source blocks) of its runs, every one.
    pub groups: usize,
    /// The most recent [`MAX_GROUPS_DRAWN`] groups, oldest first, drawn on the page.
    pub drawn: Vec<Group>,
    /// The page's variation tables: every group's, or the drawn groups' when the
    /// suite has group pages.
    pub variation: VariationTable,
    /// Every page of [`GROUPS_PER_PAGE`] groups as the suite page lists it; empty when
    /// the suite page lists them all.
    pub pages: Vec<PageEntry>,
    /// Those pages with their groups, but for the pages already taken while the runs
    /// streamed (see [`SuiteBuilder::take_group_pages`]).
    pub group_pages: Vec<GroupPage>,
    /// One per curve `bench-db curve` finds (per benchmark less its rate) of each ladder
    /// metric, measured at two or more throughputs.
    pub curves: Vec<CurveChart>,
    /// The branches left out of `curves`: each held one commit beside a longer curve.
    pub curves_left_out: Vec<String>,
    /// Histories over ingests.
    pub histories: Vec<HistoryInput>,
    /// Histories over commits, with their change points.
    pub changes: Vec<ChangeSeries>,
    /// The branches left out of `changes`: each held one commit beside a longer history
    /// of the same series.
    pub changes_left_out: Vec<String>,
    /// What the tool printed about each drawn group's metrics, beside ours.
    pub printed: Vec<PrintedRow>,
    /// The replicates of each single-value metric, one row per drawn group.
    pub replicates: Vec<Replicates>,
}

/// A throughput/latency curve with what its caption says of the knee.
#[derive(Debug, Clone, PartialEq)]
pub struct CurveChart {
    pub input: CurveInput,
    /// Where the knee is, or why there is none (`no knee: 2 throughputs measured, a knee
    /// needs at least 4`).
    pub knee_note: String,
}

/// One single-value metric (in one unit) across the drawn groups of a suite: each
/// group's replicates as a strip, with our quartiles and the tool's printed summary.
#[derive(Debug, Clone, PartialEq)]
pub struct Replicates {
    /// The metric's name (not a benchmark's: the rows name those).
    pub metric: String,
    pub unit: String,
    pub prefixes: Prefixes,
    /// One per group with the metric, oldest first.
    pub rows: Vec<ReplicateRow>,
}

/// One group's replicates of a metric.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplicateRow {
    /// The benchmark, its configuration and the group's label.
    pub bench: String,
    /// Every run's value, in run order, with what it is.
    pub points: Vec<ReplicatePoint>,
    /// Quartiles of the values (type 7): lower, median, upper.
    pub quartiles: (f64, f64, f64),
    /// The summary its tool printed, in the metric's unit.
    pub printed: Option<PrintedMark>,
}

/// One replicate: its value and a line saying which run it is (id, index, commit, time).
#[derive(Debug, Clone, PartialEq)]
pub struct ReplicatePoint {
    pub value: f64,
    pub about: String,
}

/// A tool's printed estimate with its error or interval.
#[derive(Debug, Clone, PartialEq)]
pub struct PrintedMark {
    pub value: f64,
    /// The interval drawn around it: the printed interval, else value ± error.
    pub low: Option<f64>,
    pub high: Option<f64>,
    /// As printed: `JMH score 12.453 ± 1.823 ops/ms`.
    pub text: String,
}

/// Groups with more runs than this list their values as a distribution summary, not
/// one column per run (100 Criterion samples are a distribution; the strip draws them).
pub const MAX_RUN_COLUMNS: usize = 12;

/// One metric of one group (one invocation): the summary its tool printed (JMH score ±
/// error, hyperfine mean ± σ, Criterion's mean with its interval) and ours from its runs.
#[derive(Debug, Clone, PartialEq)]
pub struct PrintedRow {
    /// The benchmark and its configuration (the group's title when the format names none),
    /// and the branch and commit of its run (` · branch main · commit abc`).
    pub bench: String,
    pub metric: String,
    /// The tool's name and its numbers: `JMH score 12.453 ± 1.823 [10.63, 14.276] ops/ms`.
    pub printed: String,
    /// Ours: the mean of the group's run values, with their count (`12.453 ops/ms, mean
    /// of 3 runs`).
    pub ours: String,
}

impl SuitePage {
    /// Older groups not drawn on the suite page.
    pub fn skipped(&self) -> usize {
        self.groups - self.drawn.len()
    }
}

/// One group of runs (a source block) as the suite page draws it.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub title: String,
    /// Branch and commit of its first run (` · branch main · commit abc`), so groups
    /// sharing a label are told apart.
    pub origin: String,
    pub format: String,
    pub runs: Vec<RunRow>,
    /// Its time series are drawn above, before and after, and not again here.
    pub timeseries_drawn_above: bool,
    /// Spectra and time series, in the order of its metrics.
    pub charts: Vec<GroupChart>,
    /// Its single-value metrics: one row per metric, one cell per run.
    pub values: Vec<ValueRow>,
}

/// A chart of one group.
#[derive(Debug, Clone, PartialEq)]
pub enum GroupChart {
    Spectrum(SpectrumInput),
    TimeSeries(TimeSeriesInput),
}

/// One single-value metric of a group.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueRow {
    /// Display name as printed.
    pub name: String,
    /// One cell per run of the group; `None` where the run has no value.
    pub cells: Vec<Option<ValueCell>>,
    /// Minimum, lower quartile, median, upper quartile and maximum of the values (type 7),
    /// with their count: what a group of many runs lists instead of one cell per run.
    pub summary: Option<(usize, [f64; 5])>,
}

/// A value with what it takes to print it as the tool did.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueCell {
    pub value: f64,
    pub unit: String,
    pub prefixes: Prefixes,
}

/// One run of a group: where it came from and what it ran with. A group's runs mostly
/// share their tags, parameters and source: rows share them too rather than hold a copy
/// each.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRow {
    pub index: u32,
    pub tags: Arc<BTreeMap<String, String>>,
    /// Tags other than `commit`, as `key=value`.
    pub other_tags: Arc<Vec<String>>,
    pub params: Arc<BTreeMap<String, Param>>,
    pub source: Arc<str>,
    pub first_line: u64,
    pub last_line: u64,
}

/// One page of a suite's groups.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupPage {
    /// 1-based numbers of its first and last group among the suite's.
    pub first: usize,
    pub last: usize,
    pub groups: Vec<PagedGroup>,
}

/// A group page as the suite page lists it: which groups it holds, the first and the
/// last by title.
#[derive(Debug, Clone, PartialEq)]
pub struct PageEntry {
    pub first: usize,
    pub last: usize,
    pub first_title: String,
    pub last_title: String,
    /// Groups on it.
    pub groups: usize,
}

impl GroupPage {
    /// How the suite page lists it.
    pub fn entry(&self) -> PageEntry {
        let title = |g: Option<&PagedGroup>| g.map_or(String::new(), |g| g.title.clone());
        PageEntry {
            first: self.first,
            last: self.last,
            first_title: title(self.groups.first()),
            last_title: title(self.groups.last()),
            groups: self.groups.len(),
        }
    }
}

/// A group on a group page: its runs and variation table, nothing drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct PagedGroup {
    pub title: String,
    pub format: String,
    pub block_id: i64,
    pub runs: Vec<RunRow>,
    pub variation: VariationTable,
}

/// Builds every page of a report of `runs` with these comparisons.
pub fn build(runs: &[StoredRun], comparisons: &[Comparison], opts: &Options) -> Site {
    let mut suites: BTreeMap<&str, Vec<&StoredRun>> = BTreeMap::new();
    for r in runs {
        suites.entry(r.suite.as_str()).or_default().push(r);
    }
    let history = HistoryOptions::default();
    Site {
        runs: runs.len(),
        comparisons: comparisons.to_vec(),
        left_out: Vec::new(),
        suites: suites
            .iter()
            .map(|(suite, runs)| {
                let cmps: Vec<&Comparison> =
                    comparisons.iter().filter(|c| c.suite == *suite).collect();
                let mut plan = SuitePlan::default();
                for r in runs {
                    plan.add(r);
                }
                let mut b = SuiteBuilder::new(suite, plan, opts, &history);
                for r in runs {
                    b.add((*r).clone());
                }
                b.finish(&cmps)
            })
            .collect(),
    }
}

/// What the index says of a suite: its counts and its change points.
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteSummary {
    pub suite: String,
    pub runs: usize,
    pub sources: usize,
    pub formats: Vec<String>,
    /// Every change point of its histories over commits, in their order.
    pub changes: Vec<RecentChange>,
}

/// A change point with the name and unit of its series.
#[derive(Debug, Clone, PartialEq)]
pub struct RecentChange {
    /// The series' heading ([`crate::analysis::history::History::name`]).
    pub series: String,
    pub unit: String,
    pub change: Change,
}

impl SuitePage {
    /// What the index needs of this page, once the page is written.
    pub fn summary(&self) -> SuiteSummary {
        SuiteSummary {
            suite: self.suite.clone(),
            runs: self.runs,
            sources: self.sources,
            formats: self.formats.clone(),
            changes: self
                .changes
                .iter()
                .flat_map(|cs| {
                    let name = cs.series.name();
                    cs.series.change_points.iter().map(move |c| RecentChange {
                        series: name.clone(),
                        unit: cs.series.unit.clone(),
                        change: c.clone(),
                    })
                })
                .collect(),
        }
    }
}

/// A group of runs: ingest time, source, block, and the benchmark and configuration (a
/// Go file is one block of many benchmarks; each is a group of its own), values as stored.
type GroupKey = (String, i64, u32, Option<String>, Vec<(String, ConfigValue)>);

fn group_key(r: &StoredRun) -> GroupKey {
    (
        r.ingested_at.clone(),
        r.source_id,
        r.block_index,
        r.run.bench.clone(),
        r.run
            .config_params()
            .into_iter()
            .map(|(k, v)| (k.to_string(), ConfigValue(v.clone())))
            .collect(),
    )
}

/// Whether `r` belongs to the group of `key`, told without building its key.
fn in_group(key: &GroupKey, r: &StoredRun) -> bool {
    key.2 == r.block_index
        && key.1 == r.source_id
        && key.0 == r.ingested_at
        && key.3 == r.run.bench
        && key
            .4
            .iter()
            .map(|(k, v)| (k.as_str(), &v.0))
            .eq(r.run.config_params())
}

/// What a suite page must know of its runs before they come, told from their heads
/// (no series): how many runs each group holds (so each is handled when whole, then
/// let go), which blocks have runs after run 1 (the history's warm-up
/// rule) and which runs the branch comparisons read.
#[derive(Debug, Default)]
pub struct SuitePlan {
    groups: BTreeMap<GroupKey, usize>,
    /// The group of the previous runs and their count, not yet in `groups`: runs come
    /// group by group.
    last_group: Option<(GroupKey, usize)>,
    later_runs: HashSet<i64>,
    pairs: PairPlan,
}

impl SuitePlan {
    /// Counts one run's head (a run read with or without its series).
    pub fn add(&mut self, r: &StoredRun) {
        match &mut self.last_group {
            Some((k, n)) if in_group(k, r) => {
                *n += 1;
            }
            _ => {
                self.flush();
                self.last_group = Some((group_key(r), 1));
            }
        }
        changes::note_later_run(&mut self.later_runs, r);
        self.pairs.add(r);
    }

    /// Counts the last group's runs in `groups`.
    fn flush(&mut self) {
        if let Some((k, n)) = self.last_group.take() {
            *self.groups.entry(k).or_default() += n;
        }
    }
}

/// Builds one suite's page from its runs as they stream in (in the order a selection
/// gives them, by id), given its [`SuitePlan`]. A suite of many groups keeps every
/// run only until its group is whole: the group's table, the histories and the curves
/// keep what they show, and the most recent groups are kept to be drawn. A suite of at most
/// [`GROUPS_PER_PAGE`] groups keeps its runs: its tables cover all of them.
pub struct SuiteBuilder<'o> {
    suite: String,
    opts: &'o Options,
    plan: SuitePlan,
    wanted: WantedRuns,
    /// Whether the suite lists its groups on group pages.
    paged: bool,
    /// Groups drawn on the page (the most recent [`MAX_GROUPS_DRAWN`]).
    drawn_keys: HashSet<GroupKey>,
    runs: usize,
    sources: BTreeSet<i64>,
    formats: BTreeSet<String>,
    /// Every run, when not paged.
    all: Vec<Rc<StoredRun>>,
    /// Groups not yet whole, and the drawn groups once whole.
    open: HashMap<GroupKey, Vec<Rc<StoredRun>>>,
    drawn: BTreeMap<GroupKey, Vec<Rc<StoredRun>>>,
    /// Each planned group's place among the suite's groups.
    order: HashMap<GroupKey, usize>,
    /// Whole groups not yet on a page, by place.
    done: BTreeMap<usize, PagedGroup>,
    /// Groups put on pages so far, the pages not yet taken, and every page's entry.
    paged_so_far: usize,
    ready: Vec<GroupPage>,
    pages: Vec<PageEntry>,
    /// The curves, fed each run as it comes.
    curves: SuiteCurves,
    /// The histories, fed here unless taken to be fed elsewhere ([`Self::take_series`]).
    series: Option<SuiteSeries<'o>>,
    /// The histories fed elsewhere, once handed back.
    series_done: Option<SeriesPages>,
    pair_runs: Vec<StoredRun>,
}

/// A suite's histories over ingests and over commits, fed every run of a paged suite.
pub struct SuiteSeries<'o> {
    changes: Changes<'o>,
    histories: history::Histories,
}

/// What [`SuiteSeries`] gives the suite page.
pub struct SeriesPages {
    histories: Vec<HistoryInput>,
    changes: changes::Drawn,
}

impl SuiteSeries<'_> {
    /// Takes in the suite's next run.
    pub fn add(&mut self, r: &StoredRun) {
        self.changes.add(r);
        self.histories.add(r);
    }

    pub fn finish(self) -> SeriesPages {
        SeriesPages {
            histories: self.histories.finish(),
            changes: self.changes.finish(),
        }
    }
}

impl<'o> SuiteBuilder<'o> {
    /// `history` are the default history options (see [`changes::series_of`]).
    pub fn new(
        suite: &str,
        mut plan: SuitePlan,
        opts: &'o Options,
        history: &'o HistoryOptions,
    ) -> Self {
        plan.flush();
        let paged = plan.groups.len() > GROUPS_PER_PAGE;
        let skipped = plan.groups.len().saturating_sub(MAX_GROUPS_DRAWN);
        let drawn_keys = plan.groups.keys().skip(skipped).cloned().collect();
        let order = if paged {
            plan.groups
                .keys()
                .cloned()
                .enumerate()
                .map(|(i, k)| (k, i))
                .collect()
        } else {
            HashMap::new()
        };
        let later_runs = std::mem::take(&mut plan.later_runs);
        SuiteBuilder {
            suite: suite.to_string(),
            opts,
            wanted: plan.pairs.wanted(),
            plan,
            paged,
            drawn_keys,
            runs: 0,
            sources: BTreeSet::new(),
            formats: BTreeSet::new(),
            all: Vec::new(),
            open: HashMap::new(),
            drawn: BTreeMap::new(),
            order,
            done: BTreeMap::new(),
            paged_so_far: 0,
            ready: Vec::new(),
            pages: Vec::new(),
            curves: SuiteCurves::new(opts),
            series: paged.then(|| SuiteSeries {
                changes: Changes::new(history, later_runs),
                histories: history::Histories::default(),
            }),
            series_done: None,
            pair_runs: Vec::new(),
        }
    }

    /// Takes in the suite's next run.
    pub fn add(&mut self, r: StoredRun) {
        self.runs += 1;
        self.sources.insert(r.source_id);
        if !self.formats.contains(&r.format) {
            self.formats.insert(r.format.clone());
        }
        if self.wanted.contains(&r) {
            self.pair_runs.push(r.clone());
        }
        if !self.paged {
            self.all.push(Rc::new(r));
            return;
        }
        if let Some(series) = &mut self.series {
            series.add(&r);
        }
        self.curves.add(&r);
        let r = Rc::new(r);
        // The group: handled once whole.
        let key = group_key(&r);
        let group = self.open.entry(key.clone()).or_default();
        group.push(r);
        if group.len() >= self.plan.groups.get(&key).copied().unwrap_or(0)
            && let Some(group) = self.open.remove(&key)
        {
            self.close_group(key, group);
        }
    }

    fn close_group(&mut self, key: GroupKey, mut group: Vec<Rc<StoredRun>>) {
        group.sort_by_key(|r| r.run.index);
        let refs: Vec<&StoredRun> = group.iter().map(|r| &**r).collect();
        // A group the plan did not know (runs added since) goes after the others.
        let at = self
            .order
            .get(&key)
            .copied()
            .unwrap_or(self.order.len() + self.done.len() + self.paged_so_far);
        self.done.insert(at, paged_group(&refs));
        if self.drawn_keys.contains(&key) {
            self.drawn.insert(key, group);
        }
        self.cut_pages(false);
    }

    /// Puts whole groups on pages, in order: the next page once all its groups are whole,
    /// or (`all`) every group left.
    fn cut_pages(&mut self, all: bool) {
        loop {
            let start = self.paged_so_far;
            let end = (start + GROUPS_PER_PAGE).min(self.order.len());
            let whole = end > start && self.done.range(start..end).count() == end - start;
            if !whole && (!all || self.done.is_empty()) {
                return;
            }
            let mut groups = Vec::with_capacity(GROUPS_PER_PAGE);
            while groups.len() < GROUPS_PER_PAGE {
                let Some((_, g)) = self.done.pop_first() else {
                    break;
                };
                groups.push(g);
            }
            let page = GroupPage {
                first: start + 1,
                last: start + groups.len(),
                groups,
            };
            self.paged_so_far += page.groups.len();
            self.pages.push(page.entry());
            self.ready.push(page);
        }
    }

    /// The groups planned, and the group pages they fill.
    pub fn planned_pages(&self) -> (usize, usize) {
        let n = self.order.len();
        (n, n.div_ceil(GROUPS_PER_PAGE))
    }

    /// The suite's histories, for the caller to feed every run it adds (in the same
    /// order) and hand back finished with [`Self::put_series`]: they can be built on
    /// another thread. `None` when the suite page draws them from all its runs at once.
    pub fn take_series(&mut self) -> Option<SuiteSeries<'o>> {
        self.series.take()
    }

    /// Whether the histories were taken ([`Self::take_series`]) and not yet handed back:
    /// the page cannot be finished before they are.
    pub fn awaits_series(&self) -> bool {
        self.paged && self.series.is_none() && self.series_done.is_none()
    }

    /// The histories taken with [`Self::take_series`], finished.
    pub fn put_series(&mut self, done: SeriesPages) {
        self.series_done = Some(done);
    }

    /// The group pages whose groups are all whole, in order, not taken before: a caller
    /// draws them as the runs stream instead of holding every group to the end.
    pub fn take_group_pages(&mut self) -> Vec<GroupPage> {
        std::mem::take(&mut self.ready)
    }

    /// The runs [`super::pairing::branch_pairs`] reads: its comparisons of these are
    /// those of every run of the suite.
    pub fn take_pair_runs(&mut self) -> Vec<StoredRun> {
        std::mem::take(&mut self.pair_runs)
    }

    /// The page, with the comparisons shown on it.
    pub fn finish(mut self, cmps: &[&Comparison]) -> SuitePage {
        if !self.paged {
            let runs: Vec<&StoredRun> = self.all.iter().map(|r| &**r).collect();
            return suite_page(&self.suite, &runs, cmps, self.opts);
        }
        // Groups and sources left open (runs removed since they were planned).
        let mut open: Vec<(GroupKey, Vec<Rc<StoredRun>>)> = self.open.drain().collect();
        open.sort_by(|a, b| a.0.cmp(&b.0));
        for (key, group) in open {
            self.close_group(key, group);
        }
        self.cut_pages(true);
        let groups: Vec<Vec<&StoredRun>> = self
            .drawn
            .values()
            .map(|g| g.iter().map(|r| &**r).collect())
            .collect();
        let drawn = drawn_groups(&groups, cmps, self.opts);
        let flat: Vec<&StoredRun> = groups.iter().flatten().copied().collect();
        let series = match (self.series.take(), self.series_done.take()) {
            (Some(here), _) => here.finish(),
            (None, Some(done)) => done,
            (None, None) => panic!("the suite's series were taken and not handed back"),
        };
        let (curves, curves_left_out) = self.curves.finish();
        SuitePage {
            suite: self.suite.clone(),
            runs: self.runs,
            sources: self.sources.len(),
            formats: self.formats.iter().cloned().collect(),
            groups: self.paged_so_far,
            drawn,
            variation: variation::from_runs(&flat),
            pages: std::mem::take(&mut self.pages),
            group_pages: std::mem::take(&mut self.ready),
            curves,
            curves_left_out,
            histories: series.histories,
            changes: series.changes.series,
            changes_left_out: series.changes.left_out,
            printed: groups.iter().flat_map(|g| printed_rows(g)).collect(),
            replicates: replicates(&groups),
        }
    }
}

/// The drawn groups, each with its time series unless both sides of a comparison drew
/// them already.
fn drawn_groups(groups: &[Vec<&StoredRun>], cmps: &[&Comparison], opts: &Options) -> Vec<Group> {
    groups
        .iter()
        .map(|group| {
            // Time series already drawn before and after are not drawn again per group.
            let charted = group
                .iter()
                .all(|r| cmps.iter().any(|c| c.charted_runs.contains(&r.id)));
            group_of(group, opts, charted)
        })
        .collect()
}

fn suite_page(suite: &str, runs: &[&StoredRun], cmps: &[&Comparison], opts: &Options) -> SuitePage {
    let mut groups: BTreeMap<GroupKey, Vec<&StoredRun>> = BTreeMap::new();
    for r in runs {
        groups.entry(group_key(r)).or_default().push(r);
    }
    let mut groups: Vec<Vec<&StoredRun>> = groups.into_values().collect();
    for group in &mut groups {
        group.sort_by_key(|r| r.run.index);
    }
    let paged = groups.len() > GROUPS_PER_PAGE;
    let skipped = groups.len().saturating_sub(MAX_GROUPS_DRAWN);
    let drawn = drawn_groups(&groups[skipped..], cmps, opts);
    let (variation, group_pages) = if paged {
        let drawn: Vec<&StoredRun> = groups[skipped..].iter().flatten().copied().collect();
        (variation::from_runs(&drawn), group_pages(&groups))
    } else {
        (variation::from_runs(runs), Vec::new())
    };
    let mut sources: Vec<i64> = runs.iter().map(|r| r.source_id).collect();
    sources.sort_unstable();
    sources.dedup();
    let mut formats: Vec<String> = runs.iter().map(|r| r.format.clone()).collect();
    formats.sort_unstable();
    formats.dedup();
    let (curves, curves_left_out) = curves(runs, opts);
    let changes = changes::series_of(runs);
    SuitePage {
        suite: suite.to_string(),
        runs: runs.len(),
        sources: sources.len(),
        formats,
        groups: groups.len(),
        drawn,
        variation,
        pages: group_pages.iter().map(GroupPage::entry).collect(),
        group_pages,
        curves,
        curves_left_out,
        histories: history::from_runs(runs),
        changes: changes.series,
        changes_left_out: changes.left_out,
        printed: groups[skipped..]
            .iter()
            .flat_map(|g| printed_rows(g))
            .collect(),
        replicates: replicates(&groups[skipped..]),
    }
}

/// The replicate strips of the groups' single-value metrics: one per metric and unit,
/// one row per group holding it.
fn replicates(groups: &[Vec<&StoredRun>]) -> Vec<Replicates> {
    let mut out: Vec<Replicates> = Vec::new();
    // Each row's source, to tell apart rows that share a name.
    let mut sources: Vec<Vec<String>> = Vec::new();
    let mut index: BTreeMap<(String, String), usize> = BTreeMap::new();
    for group in groups {
        let Some(first) = group.first() else { continue };
        let holder = group
            .iter()
            .find(|r| !r.printed.is_empty())
            .copied()
            .unwrap_or(first);
        let bench = group_name(first);
        for (metric, kind) in metrics_of(group) {
            if kind != "value" {
                continue;
            }
            let mut unit = String::new();
            let mut points = Vec::new();
            for r in group {
                let Some(s) = r.series(&metric) else { continue };
                let Data::Value { value: Some(v) } = s.data else {
                    continue;
                };
                if !v.is_finite() {
                    continue;
                }
                unit = s.unit.clone();
                points.push(ReplicatePoint {
                    value: v,
                    about: super::charts::about_run(r),
                });
            }
            if points.is_empty() {
                continue;
            }
            let values: Vec<f64> = points.iter().map(|p| p.value).collect();
            let q = |p: f64| crate::stats::describe::quantile(&values, p).unwrap_or(f64::NAN);
            let printed = super::printed::headline(holder, &metric, None)
                // A value with neither ± nor interval (k6's counters) is the run itself.
                .filter(|h| h.error.is_some() || h.low.is_some() || h.high.is_some())
                .filter(|h| h.unit == unit && h.value.is_finite())
                .map(|h| {
                    let (low, high) = match (h.low, h.high, h.error) {
                        (Some(l), Some(hi), _) => (Some(l), Some(hi)),
                        (_, _, Some(e)) => (Some(h.value - e), Some(h.value + e)),
                        _ => (None, None),
                    };
                    PrintedMark {
                        value: h.value,
                        low,
                        high,
                        text: format!(
                            "{} {} {}",
                            h.tool,
                            h.name,
                            h.text(|v| crate::numfmt::sig(v, 5))
                        ),
                    }
                });
            let row = ReplicateRow {
                bench: bench.clone(),
                quartiles: (q(0.25), q(0.5), q(0.75)),
                points,
                printed,
            };
            let key = (metric.clone(), unit.clone());
            let at = *index.entry(key).or_insert_with(|| {
                out.push(Replicates {
                    metric: metric.clone(),
                    unit: unit.clone(),
                    prefixes: prefixes_of(&first.format),
                    rows: Vec::new(),
                });
                sources.push(Vec::new());
                out.len() - 1
            });
            out[at].rows.push(row);
            sources[at].push(first.source.clone());
        }
    }
    for (chart, sources) in out.iter_mut().zip(&sources) {
        let names: Vec<String> = chart.rows.iter().map(|r| r.bench.clone()).collect();
        for (k, row) in chart.rows.iter_mut().enumerate() {
            let twins: Vec<&str> = names
                .iter()
                .zip(sources)
                .filter(|(n, _)| **n == names[k])
                .map(|(_, s)| s.as_str())
                .collect();
            if twins.len() > 1 {
                row.bench = format!("{} · {}", row.bench, distinct_part(&sources[k], &twins));
            }
        }
    }
    // A strip of single runs without a printed summary shows nothing a table does not.
    out.retain(|c| {
        c.rows
            .iter()
            .any(|r| r.points.len() >= MIN_REPLICATES || r.printed.is_some())
    });
    out
}

/// The path components of `source` that its `twins` (itself among them) do not all
/// share at their start and end: `run2` of `…/run2/criterion/fib/new` beside
/// `…/run3/criterion/fib/new`; the whole path when nothing is left.
fn distinct_part(source: &str, twins: &[&str]) -> String {
    let split = |s: &str| s.split(['/', '\\']).map(str::to_string).collect::<Vec<_>>();
    let own = split(source);
    let all: Vec<Vec<String>> = twins.iter().map(|t| split(t)).collect();
    let shortest = all.iter().map(Vec::len).min().unwrap_or(0);
    let head = (0..shortest)
        .take_while(|&i| all.iter().all(|p| p[i] == own[i]))
        .count();
    let tail = (0..shortest - head)
        .take_while(|&i| {
            all.iter()
                .all(|p| p[p.len() - 1 - i] == own[own.len() - 1 - i])
        })
        .count();
    let middle = own[head..own.len() - tail].join("/");
    if middle.is_empty() {
        source.to_string()
    } else {
        middle
    }
}

/// A replicate strip is drawn when a benchmark has this many runs (or a printed summary).
pub const MIN_REPLICATES: usize = 3;

/// The printed-summary rows of one group: one per single-value metric whose tool printed
/// a headline with an error or interval for it.
fn printed_rows(group: &[&StoredRun]) -> Vec<PrintedRow> {
    // The report keeps a block's printed numbers on one of its runs.
    let Some(first) = group
        .iter()
        .find(|r| !r.printed.is_empty())
        .or(group.first())
    else {
        return Vec::new();
    };
    // Its group's name and where it comes from: two files' rows of one benchmark are told
    // apart by their source, two commits' by their commit.
    let bench = format!("{}{}", group_name(first), origin(first));
    metrics_of(group)
        .into_iter()
        .filter(|(_, kind)| *kind == "value")
        .filter_map(|(metric, _)| {
            let h = super::printed::headline(first, &metric, None)
                // A value with neither ± nor interval (k6's counters) is the run itself.
                .filter(|h| h.error.is_some() || h.low.is_some() || h.high.is_some())?;
            let values: Vec<f64> = group
                .iter()
                .filter_map(|r| match r.series(&metric)?.data {
                    Data::Value { value } => value,
                    _ => None,
                })
                .collect();
            let fmt = |v: f64| crate::numfmt::sig(v, 5);
            let ours = match crate::stats::describe::mean(&values) {
                Some(m) => format!(
                    "{} {}, mean of {}",
                    fmt(m),
                    h.unit,
                    crate::numfmt::plural(values.len(), "run")
                ),
                None => "-".to_string(),
            };
            Some(PrintedRow {
                bench: bench.clone(),
                printed: format!("{} {} {}", h.tool, h.name, h.text(fmt)),
                ours,
                metric,
            })
        })
        .collect()
}

/// Every metric of the runs in first-seen order, with its data kind.
fn metrics_of(runs: &[&StoredRun]) -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &'static str)> = Vec::new();
    for s in runs.iter().flat_map(|r| r.run.series.iter()) {
        if !out.iter().any(|m| m.0 == s.metric) {
            out.push((s.metric.clone(), s.kind()));
        }
    }
    out
}

fn run_rows(group: &[&StoredRun]) -> Vec<RunRow> {
    let mut rows: Vec<RunRow> = Vec::with_capacity(group.len());
    for r in group {
        // What equals the previous row's is shared with it.
        let prev = rows.last();
        let (tags, other_tags) = match prev {
            Some(p) if *p.tags == r.run.tags => (Arc::clone(&p.tags), Arc::clone(&p.other_tags)),
            _ => (Arc::new(r.run.tags.clone()), Arc::new(r.other_tags())),
        };
        let params = match prev {
            Some(p) if *p.params == r.run.params => Arc::clone(&p.params),
            _ => Arc::new(r.run.params.clone()),
        };
        let source = match prev {
            Some(p) if *p.source == *r.source => Arc::clone(&p.source),
            _ => Arc::from(r.source.as_str()),
        };
        rows.push(RunRow {
            index: r.run.index,
            tags,
            other_tags,
            params,
            source,
            first_line: r.run.first_line,
            last_line: r.run.last_line,
        });
    }
    rows
}

/// Where a run comes from: ` · branch main · commit abc` (what it has of the two).
fn origin(run: &StoredRun) -> String {
    ["branch", "commit"]
        .iter()
        .filter_map(|key| Some(format!(" · {key} {}", run.run.tags.get(*key)?)))
        .collect()
}

/// A drawn group: its spectra, its time series unless `timeseries_charted` (drawn
/// before and after already), and its single values.
fn group_of(group: &[&StoredRun], opts: &Options, timeseries_charted: bool) -> Group {
    let first = group[0];
    let origin = origin(first);
    let metrics = metrics_of(group);
    let mut charts = Vec::new();
    let mut values = Vec::new();
    for (metric, kind) in &metrics {
        match *kind {
            "ladder" | "histogram" => {
                let unit = group
                    .iter()
                    .find_map(|r| r.series(metric))
                    .map_or("", |s| s.unit.as_str());
                let slo = slo::in_unit(&opts.slo, unit);
                if let Some(input) = spectrum::from_runs(group, metric, &slo) {
                    charts.push(GroupChart::Spectrum(input));
                }
            }
            "timeseries" if timeseries_charted => {}
            "timeseries" => {
                if let Some(input) = timeseries::from_runs(group, metric, false) {
                    charts.push(GroupChart::TimeSeries(input));
                }
            }
            _ => values.push(value_row(group, metric)),
        }
    }
    Group {
        title: group_name(first),
        origin,
        format: first.format.clone(),
        runs: run_rows(group),
        timeseries_drawn_above: timeseries_charted && metrics.iter().any(|m| m.1 == "timeseries"),
        charts,
        values,
    }
}

fn value_row(group: &[&StoredRun], metric: &str) -> ValueRow {
    let s = group.iter().find_map(|r| r.series(metric));
    let cells: Vec<Option<ValueCell>> = group
        .iter()
        .map(|r| match r.series(metric) {
            Some(s) => match s.data {
                Data::Value { value: Some(v) } => Some(ValueCell {
                    value: v,
                    unit: s.unit.clone(),
                    prefixes: prefixes_of(&r.format),
                }),
                _ => None,
            },
            None => None,
        })
        .collect();
    let values: Vec<f64> = cells.iter().flatten().map(|c| c.value).collect();
    let q = |p: f64| crate::stats::describe::quantile(&values, p);
    let summary = match (q(0.0), q(0.25), q(0.5), q(0.75), q(1.0)) {
        (Some(a), Some(b), Some(c), Some(d), Some(e)) => Some((values.len(), [a, b, c, d, e])),
        _ => None,
    };
    ValueRow {
        name: s.map_or(metric, |s| s.display.as_str()).to_string(),
        cells,
        summary,
    }
}

/// The group pages of a suite with more groups than a page.
fn group_pages(groups: &[Vec<&StoredRun>]) -> Vec<GroupPage> {
    groups
        .chunks(GROUPS_PER_PAGE)
        .enumerate()
        .map(|(k, chunk)| GroupPage {
            first: k * GROUPS_PER_PAGE + 1,
            last: k * GROUPS_PER_PAGE + chunk.len(),
            groups: chunk.iter().map(|group| paged_group(group)).collect(),
        })
        .collect()
}

/// A group as its group page lists it: its runs and variation table.
fn paged_group(group: &[&StoredRun]) -> PagedGroup {
    PagedGroup {
        title: group_name(group[0]),
        format: group[0].format.clone(),
        block_id: group[0].block_id,
        runs: run_rows(group),
        variation: variation::from_runs(group),
    }
}

/// Throughput/latency curves of the ladder metrics, as `bench-db curve` draws them: the
/// same runs (late runs and JLBH's warm-up runs left out), one curve per benchmark and
/// configuration less the rate ([`analysis_curve::CurveKey`], labels that each name one
/// rate joined), x the target rate where set. A curve of one throughput is not drawn.
/// An SLO whose unit does not fit a metric is left off that chart.
/// A suite's curves and the one-commit branches left out of them.
fn curves(runs: &[&StoredRun], opts: &Options) -> (Vec<CurveChart>, Vec<String>) {
    let mut c = SuiteCurves::new(opts);
    for r in runs {
        c.add(r);
    }
    c.finish()
}

/// A suite's curves, fed one run at a time: per ladder metric, its curves with the SLO
/// and without (the fallback when the SLO does not fit it); values are kept, not runs.
struct SuiteCurves {
    slo: Option<String>,
    /// Each ladder metric in first-seen order with its display name and builders.
    metrics: Vec<(String, String, MetricCurves)>,
    /// Whether every run fed has a target rate (the x axis's caption).
    all_targets: bool,
}

struct MetricCurves {
    with_slo: Option<analysis_curve::CurvesBuilder>,
    plain: analysis_curve::CurvesBuilder,
}

impl SuiteCurves {
    fn new(opts: &Options) -> SuiteCurves {
        let slo: Vec<&str> = opts.slo.iter().map(|t| t.text.as_str()).collect();
        SuiteCurves {
            slo: (!slo.is_empty()).then(|| slo.join(",")),
            metrics: Vec::new(),
            all_targets: true,
        }
    }

    fn add(&mut self, r: &StoredRun) {
        if analysis_curve::missed_schedule(r) || super::warmup::is_warmup(r) {
            return;
        }
        if analysis_curve::throughput(r).is_none() {
            return;
        }
        self.all_targets &= r.param_f64("target_throughput").is_some();
        for s in &r.run.series {
            let kind = s.kind();
            if (kind == "ladder" || kind == "histogram")
                && !self.metrics.iter().any(|m| m.0 == s.metric)
            {
                let new = |slo: Option<&str>| {
                    analysis_curve::CurvesBuilder::new(s.metric.clone(), &CURVE_PERCENTILES, slo)
                };
                let Ok(plain) = new(None) else { continue };
                let with_slo = self.slo.as_deref().and_then(|t| new(Some(t)).ok());
                self.metrics.push((
                    s.metric.clone(),
                    s.display.clone(),
                    MetricCurves { with_slo, plain },
                ));
            }
        }
        for (_, _, m) in &mut self.metrics {
            if let Some(b) = &mut m.with_slo {
                // Errors only on a malformed SLO, refused when built.
                let _ = b.add(r);
            }
            let _ = m.plain.add(r);
        }
    }

    /// The curves, and the branches left out of them (sorted).
    fn finish(self) -> (Vec<CurveChart>, Vec<String>) {
        let mut out = Vec::new();
        let mut left_out = std::collections::BTreeSet::new();
        for (_, display, mut m) in self.metrics {
            // A pull request's one commit is no curve of its own beside main's (its runs
            // are in the branch comparisons).
            for b in m.with_slo.iter_mut().chain([&mut m.plain]) {
                left_out.extend(b.leave_out_one_commit_branches());
            }
            let found = match m.with_slo.map(|b| b.finish()) {
                Some(Ok(found)) => Ok(found),
                _ => m.plain.finish(),
            };
            let Ok(found) = found else { continue };
            for (key, c) in &found {
                if distinct_rates(c) < 2 {
                    continue;
                }
                let title = key.title();
                let name = if title.is_empty() {
                    display.clone()
                } else {
                    format!("{title} · {display}")
                };
                let Some(mut input) = curve_input::from_curve(c, &name, "/s") else {
                    continue;
                };
                input.throughput_caption = if self.all_targets {
                    "Target throughput"
                } else {
                    "Throughput"
                }
                .to_string();
                out.push(CurveChart {
                    knee_note: knee_note(c),
                    input,
                });
            }
        }
        (out, left_out.into_iter().collect())
    }
}

/// The throughputs a curve was measured at.
fn distinct_rates(c: &analysis_curve::Curve) -> usize {
    let mut rates: Vec<f64> = c.points.iter().map(|p| p.throughput).collect();
    rates.sort_by(f64::total_cmp);
    rates.dedup();
    rates.len()
}

/// Where a curve's knee is, or why it has none, and whether its runs measured several
/// servers.
fn knee_note(c: &analysis_curve::Curve) -> String {
    let note = knee_of(c);
    match analysis_curve::servers_note(&c.servers) {
        Some(servers) => format!("{note} Note: {servers}."),
        None => note,
    }
}

/// Where a curve's knee is, or why it has none.
fn knee_of(c: &analysis_curve::Curve) -> String {
    let rates = distinct_rates(c);
    let drawn = format!(
        "One point per throughput: the median of its runs, their range shaded. {} measured.",
        crate::numfmt::plural(rates, "throughput")
    );
    match c.knee {
        Some(k) => format!(
            "{drawn} Knee at {}/s on p{}: beyond it latency grows faster than throughput.",
            crate::numfmt::sig(k, 4),
            c.knee_percentile
                .map_or("?".to_string(), |p| crate::numfmt::percentile_name(p)
                    .trim_end_matches('%')
                    .to_string())
        ),
        None if rates < analysis_curve::KNEE_MIN_RATES => format!(
            "{drawn} No knee: a knee needs at least {} throughputs.",
            analysis_curve::KNEE_MIN_RATES
        ),
        None => format!("{drawn} No knee: latency never grows faster than throughput here."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::demo;

    #[test]
    fn a_curve_leaves_out_jlbh_warm_up_runs_as_bench_db_curve_does() {
        use crate::analysis::testdata::rate_runs;
        // Two JLBH outputs of one source at two rates; each run 1 is a slow warm-up.
        let mut runs = rate_runs(1000.0, "end_to_end", &[(50.0, &[90.0, 10.0, 12.0])], 1);
        let mut second = rate_runs(2000.0, "end_to_end", &[(50.0, &[95.0, 20.0, 22.0])], 1);
        for r in &mut second {
            r.id += 10;
            r.block_id = 2;
            r.block_index = 1;
        }
        runs.extend(second);
        let refs: Vec<&StoredRun> = runs.iter().collect();
        let (charts, _) = curves(&refs, &Options::default());
        assert_eq!(charts.len(), 1);
        let p50 = &charts[0].input.lines[0];
        assert_eq!(p50.percentile, 50.0);
        let spans: Vec<(f64, f64, f64)> = p50
            .points
            .iter()
            .map(|p| (p.throughput, p.min, p.max))
            .collect();
        assert_eq!(spans, [(1000.0, 10.0, 12.0), (2000.0, 20.0, 22.0)]);
    }

    #[test]
    fn a_sweep_is_one_curve_at_its_target_rates_as_bench_db_curve_draws_it() {
        use crate::analysis::testdata::rate_runs;
        // `run loopback --sweep 5000,10000`: one source and label per rate, each run
        // short of its target rate; p50 under 100 µs at 5000/s only.
        let mut runs = Vec::new();
        for (k, (rate, achieved, p50)) in [(5000.0, 4999.0, 80.0), (10000.0, 9996.0, 1167.0)]
            .into_iter()
            .enumerate()
        {
            let mut side = rate_runs(rate, "end_to_end", &[(50.0, &[p50, p50, p50])], 1);
            for r in &mut side {
                r.id += 10 * k as i64;
                r.source_id = k as i64 + 1;
                r.block_id = k as i64 + 1;
                r.label = format!("loopback {rate}/s");
                r.run.config.insert("target_throughput".into());
                r.run
                    .params
                    .insert("achieved_throughput".into(), Param::Num(achieved));
            }
            runs.extend(side);
        }
        let refs: Vec<&StoredRun> = runs.iter().collect();
        let opts = Options {
            slo: slo::parse("p50<=100us").unwrap(),
        };
        let (charts, _) = curves(&refs, &opts);
        assert_eq!(charts.len(), 1, "{charts:#?}");
        let input = &charts[0].input;
        let xs: Vec<f64> = input.lines[0].points.iter().map(|p| p.throughput).collect();
        assert_eq!(xs, [5000.0, 10000.0]);
        assert_eq!(input.max_within_slo, Some(5000.0));
        assert_eq!(input.throughput_caption, "Target throughput");
        assert!(charts[0].knee_note.contains("2 throughputs measured"));
    }

    #[test]
    fn pages_hold_what_is_drawn() {
        let runs = demo::runs();
        let comparisons = demo::comparisons(&runs);
        let site = build(&runs, &comparisons, &Options::default());
        let names: Vec<&str> = site.suites.iter().map(|s| s.suite.as_str()).collect();
        assert_eq!(names, ["jgroups", "jlbh", "tsar", "zookeeper"]);
        assert_eq!(site.runs, runs.len());
        let jlbh = &site.suites[1];
        assert_eq!(jlbh.groups, jlbh.drawn.len());
        assert!(jlbh.group_pages.is_empty());
        // Each JLBH group draws its End to End spectrum, one line per run.
        let GroupChart::Spectrum(s) = &jlbh.drawn[0].charts[0] else {
            panic!("{:?}", jlbh.drawn[0].charts)
        };
        assert_eq!(s.runs.len(), jlbh.drawn[0].runs.len());
        // tsar's time series are drawn before and after, not again per group.
        let tsar = &site.suites[2];
        assert!(tsar.drawn.iter().all(|g| g.timeseries_drawn_above));
        assert!(tsar.drawn.iter().all(|g| {
            !g.charts
                .iter()
                .any(|c| matches!(c, GroupChart::TimeSeries(_)))
        }));
    }

    #[test]
    fn replicates_are_drawn_per_group_with_what_each_run_is() {
        let runs = demo::runs();
        let site = build(&runs, &[], &Options::default());
        let jgroups = &site.suites[0];
        assert!(!jgroups.replicates.is_empty());
        for chart in &jgroups.replicates {
            for row in &chart.rows {
                let (q1, med, q3) = row.quartiles;
                assert!(q1 <= med && med <= q3, "{row:?}");
                let values: Vec<f64> = row.points.iter().map(|p| p.value).collect();
                assert_eq!(
                    crate::stats::describe::median(&values),
                    Some(med),
                    "{row:?}"
                );
                assert!(row.points.iter().all(|p| p.about.starts_with("run ")));
            }
        }
        // Every run of a group with the metric is a point of its row.
        let group = &jgroups.drawn[0];
        let first = &jgroups.replicates[0];
        let row = first
            .rows
            .iter()
            .find(|r| r.bench.contains(&group.title))
            .unwrap_or(&first.rows[0]);
        assert!(row.points.len() <= group.runs.len());
        assert!(row.points.iter().any(|p| p.about.contains("(id ")));
        // Single values of many runs are also summarised for the table.
        let summary = group.values.iter().find_map(|v| v.summary);
        assert!(summary.is_some_and(|(n, q)| n >= 1 && q[0] <= q[2] && q[2] <= q[4]));
    }

    #[test]
    fn twin_rows_are_told_apart_by_their_sources() {
        let twins = [
            "fixtures/real/criterion/run2/criterion/fib/fib 10/new",
            "fixtures/real/criterion/run3/criterion/fib/fib 10/new",
            "fixtures/real/criterion/baselines/criterion/fib/fib 10/new",
        ];
        assert_eq!(distinct_part(twins[0], &twins), "run2");
        assert_eq!(distinct_part(twins[2], &twins), "baselines");
        assert_eq!(distinct_part("a/b", &["a/b", "a/b"]), "a/b");
        assert_eq!(distinct_part("x/a/b", &["x/a/b", "a/b"]), "x");
    }

    /// Puts run `i` of [`demo::many`] in block `i / 50`, at one target rate per block: a
    /// group of 50 runs.
    fn in_block_of_50(i: usize, r: &mut StoredRun) {
        r.block_index = (i / 50) as u32;
        r.block_id = (i / 50) as i64;
        let rate = [5_000.0, 10_000.0, 20_000.0][i / 50 % 3];
        r.run.params.insert(
            "target_throughput".into(),
            bench_db_parsers::Param::Num(rate),
        );
    }

    #[test]
    fn a_streamed_suite_is_the_page_of_all_its_runs() {
        let runs: Vec<StoredRun> = demo::many(6_000)
            .into_iter()
            .enumerate()
            .map(|(i, mut r)| {
                // 120 groups of 50 runs; one commit per source, every fifth on a branch,
                // the first three sources without a commit (drawn over ingests).
                in_block_of_50(i, &mut r);
                let c = i / 100;
                let tags = &mut r.run.tags;
                if c >= 3 {
                    tags.insert("commit".into(), format!("c{c:03}"));
                }
                let branch = if c % 5 == 4 { "fix" } else { "main" };
                tags.insert("branch".into(), branch.into());
                tags.insert(
                    "time".into(),
                    format!("2026-11-01T{:02}:{:02}:00Z", c / 60, c % 60),
                );
                r
            })
            .collect();
        let all: Vec<&StoredRun> = runs.iter().collect();
        let opts = Options::default();
        let whole = suite_page("load", &all, &[], &opts);
        assert!(!whole.changes.is_empty() && !whole.histories.is_empty());
        assert!(!whole.curves.is_empty() && whole.pages.len() == 3);

        let mut plan = SuitePlan::default();
        for r in &runs {
            plan.add(r);
        }
        let history = HistoryOptions::default();
        let mut b = SuiteBuilder::new("load", plan, &opts, &history);
        assert_eq!(b.planned_pages(), (120, 3));
        let mut early = Vec::new();
        for r in &runs {
            b.add(r.clone());
            early.extend(b.take_group_pages());
        }
        // Pages are cut as their groups become whole, before the last run.
        assert_eq!(early.len(), 3);
        // The branch comparisons read main's latest commits and the branch's latest only.
        let pair_runs = b.take_pair_runs();
        assert_eq!(pair_runs.len(), 11 * 100);
        let (few, every) = (
            super::super::pairing::branch_pairs(&pair_runs),
            super::super::pairing::branch_pairs(&runs),
        );
        assert_eq!(few.comparisons.len(), 1);
        assert_eq!(few.comparisons, every.comparisons);
        let mut streamed = b.finish(&[]);
        assert!(streamed.group_pages.is_empty());
        streamed.group_pages = early;
        assert_eq!(streamed, whole);
    }

    #[test]
    fn many_groups_go_to_group_pages() {
        let runs: Vec<StoredRun> = demo::many(6_000)
            .into_iter()
            .enumerate()
            .map(|(i, mut r)| {
                // One group per 50 runs: 120 groups.
                in_block_of_50(i, &mut r);
                r
            })
            .collect();
        let site = build(&runs, &[], &Options::default());
        let load = &site.suites[0];
        assert_eq!(load.groups, 120);
        assert_eq!(load.drawn.len(), MAX_GROUPS_DRAWN);
        assert_eq!(load.skipped(), 90);
        let pages: Vec<(usize, usize)> =
            load.group_pages.iter().map(|p| (p.first, p.last)).collect();
        assert_eq!(pages, [(1, 50), (51, 100), (101, 120)]);
    }
}
