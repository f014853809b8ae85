//! Before/after comparison: one cell per metric (and percentile) present on both sides,
//! with central values, the relative delta, the tested shift with its interval, raw and
//! family-adjusted p-values, and a verdict.
//!
//! Methods:
//! - replicates: runs. The warm-up rule ([`super::warmup`]) drops JLBH's run 1 first. A
//!   ladder percentile or a single value gives one replicate per run; a time series gives
//!   its run's mean. With one run on a side, a time series is tested on its samples with
//!   an autocorrelation-aware variance instead ([`crate::stats::autocorr`]), and its
//!   replicate count is the effective sample size;
//! - central value: median across runs for a ladder percentile; the percentile of the
//!   merged histogram for histograms (never an average of percentiles); the mean for
//!   time-series samples and single values. `central_delta_pct` compares these;
//! - estimate: `delta_pct` is the change the test is about, and lies inside its interval:
//!   the tested shift (`shift_pct`) where a test ran, else the change of the central
//!   values;
//! - test: Yuen's studentized 20%-trimmed (from 8 runs a side) mean difference of log values (raw values when
//!   any is ≤ 0), recomputed on every rearrangement of whole runs
//!   ([`crate::stats::shift`]): exact when the rearrangements can be enumerated, sampled
//!   beyond (p = (k + 1)/(B + 1)). Nothing is dropped beforehand; outliers by the modified
//!   z-score are counted and reported ([`crate::stats::outliers`]). Latencies are
//!   right-skewed and change multiplicatively: the log makes a shift symmetric;
//! - interval: the shifts the same permutation test does not reject (test inversion), so
//!   it is of the same statistic on the same scale and excludes 0 exactly when the test
//!   rejects; shown as the percent change of the trimmed geometric mean (`shift_pct`).
//!   Series use the t interval of their test, on raw samples: their estimate is the
//!   change of the means, the number tsar's readers compute by hand;
//! - family: Westfall–Young step-down max-T over the rearrangements of whole runs, within
//!   each group of tested cells measured by the same runs (one benchmark's metrics and
//!   percentiles; two-sided), Bonferroni across the groups; time series tested within one
//!   run, and cells of one invocation against several, are each Holm-adjusted among
//!   themselves, and when more than one kind is present each kind's adjusted p is
//!   multiplied by their number (Bonferroni over the kinds);
//! - verdict: `better`/`worse` when the adjusted p is below α; `same` when it is not and
//!   the interval lies within ± the equivalence margin (default 10%); `inconclusive`
//!   otherwise, including replicate counts whose smallest possible p is not below α;
//!   `insufficient` with fewer than two replicates a side (single values).
//!
//! Beside its own estimate, each cell carries what the tool printed for it on each side
//! (`printed_*`, [`super::printed`]): only for a side whose runs come from one block (one
//! invocation), as a printed summary describes one invocation. It takes no part in the
//! test or the verdict.

use super::polarity::{Kind, Polarity, kind, known_polarity};
use super::printed::{self, Headline, Side};
use super::samples::{
    Axis, CellKey, Identity, Shape, SideCell, gather, gather_per_run, unnumbered,
};
use crate::dataset::StoredRun;
use crate::numfmt::percentile_number;
use crate::stats::autocorr::series_test;
use crate::stats::correction::holm;
use crate::stats::describe::{mean, median, trimmed_mean, variance};
use crate::stats::dist::{student_t_quantile, student_t_sf};
use crate::stats::histogram;
use crate::stats::outliers::outlier_count;
use crate::stats::shift::{FamilyCell, Method, Plan, family_test, shift_ci};
use crate::stats::variation::robust_cv_pct;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Equivalence margin of `compare`'s `same`, in percent.
pub const DEFAULT_MARGIN_PCT: f64 = 10.0;

/// Knobs of a comparison.
#[derive(Debug, Clone)]
pub struct CompareOptions {
    /// Family-wise significance level (two-sided).
    pub alpha: f64,
    /// Two-sided interval coverage.
    pub confidence: f64,
    /// Whether to compute intervals (the gate's decision does not need them).
    pub interval: bool,
    /// `same` needs the interval within ± this many percent.
    pub margin_pct: f64,
    /// Keep JLBH's warm-up run 1.
    pub include_first: bool,
    /// Rearrangements of the permutation test (seeded, so output is reproducible).
    pub plan: Plan,
    /// Per-metric polarity overrides.
    pub polarity: BTreeMap<String, Polarity>,
    /// The identity fields the comparison compares rather than matches.
    pub axis: Axis,
    /// Earlier invocations of the sides' cells (runs of the same suites and labels outside
    /// both sides): for a cell compared within one invocation a side, the spread of their
    /// centres is the noise floor its change must exceed.
    pub earlier: Vec<StoredRun>,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            alpha: 0.05,
            confidence: 0.95,
            interval: true,
            margin_pct: DEFAULT_MARGIN_PCT,
            include_first: false,
            plan: Plan::default(),
            polarity: BTreeMap::new(),
            axis: Axis::default(),
            earlier: Vec::new(),
        }
    }
}

/// The effective samples a side a series tested within one run needs for a verdict. The
/// calibration (README) holds the level there: the gate's A/A on 30 minutes of AR(1) at
/// ρ 0.8 (about 3.3 effective samples) is 0.1%, the test alone at 1% one-sided 0.67%, and
/// 0.91% at ρ 0.85 (about 2.4); below 2 (ρ 0.9: 1.54%) it no longer holds. Between this and
/// [`crate::stats::autocorr::ESS_FLOOR`] a gate verdict carries a caveat.
pub const SERIES_MIN_ESS: f64 = 2.0;

/// The verdict on one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Better,
    Worse,
    Same,
    /// Not significant, but the interval is wider than the margin (or the replicate
    /// counts cannot reach α): no evidence either way.
    Inconclusive,
    Insufficient,
    /// Significant, but the metric has no known better direction (`ts.rpc`).
    Changed,
}

impl Verdict {
    /// The word printed for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Better => "better",
            Verdict::Worse => "worse",
            Verdict::Same => "same",
            Verdict::Inconclusive => "inconclusive",
            Verdict::Insufficient => "insufficient",
            Verdict::Changed => "changed",
        }
    }
}

/// What a cell's replicates are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Replicates {
    /// One value per run.
    Runs,
    /// The samples of one run a side (a time series), counted by their effective size.
    Samples,
    /// One value per invocation (one process's output: a block, a JMH fork), its runs' centre.
    Invocations,
}

impl Replicates {
    /// The plural noun for counts of them.
    pub fn noun(self) -> &'static str {
        match self {
            Replicates::Runs => "runs",
            Replicates::Samples => "samples",
            Replicates::Invocations => "invocations",
        }
    }

    /// One replicate's noun, for [`crate::numfmt::plural`].
    pub fn noun_one(self) -> &'static str {
        self.noun().trim_end_matches('s')
    }
}

/// How a cell was tested.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TestMethod {
    ExactPermutation,
    SampledPermutation,
    /// Welch's t on series means with autocorrelation-aware variances.
    SeriesT,
    /// One invocation against several: where a t prediction interval of the several
    /// invocations' centres puts the one.
    PredictionT,
    None,
}

impl TestMethod {
    /// A short description.
    pub fn describe(self) -> &'static str {
        match self {
            TestMethod::ExactPermutation => "exact permutation of runs",
            TestMethod::SampledPermutation => "sampled permutations of runs",
            TestMethod::SeriesT => "autocorrelation-aware t on samples",
            TestMethod::PredictionT => "t prediction interval of invocation centres",
            TestMethod::None => "untested",
        }
    }
}

/// One compared metric (and percentile).
#[derive(Debug, Clone)]
pub struct Cell {
    /// Suites of the runs behind the cell (joined with `+` when several).
    pub suite: String,
    /// The benchmark (absent when the format names none, or when it is the axis).
    pub bench: Option<String>,
    /// The benchmark's configuration less the axis: `(key, value)` pairs in key order.
    pub config: Vec<(String, String)>,
    /// The configuration keys no selector names in which the paired sides differ (each
    /// side held one configuration, so its cells were paired across them,
    /// [`super::samples::Axis::paired_config`]): each side's values, in key order.
    pub config_baseline: Vec<(String, String)>,
    pub config_candidate: Vec<(String, String)>,
    /// The label someone gave the runs (absent when none was given, or when it is the
    /// axis).
    pub label: Option<String>,
    pub metric: String,
    pub percentile: Option<f64>,
    pub unit: String,
    pub shape: Shape,
    pub kind: Kind,
    pub polarity: Polarity,
    /// Whether the name rules (or an override) know the polarity.
    pub polarity_known: bool,
    pub replicates: Replicates,
    /// Replicates per side (runs; samples for a series tested within one run;
    /// invocations when a side's runs come from several).
    pub n_baseline: usize,
    pub n_candidate: usize,
    /// Invocations (one process's output each: a block, a JMH fork) holding the cell, per side.
    pub invocations_baseline: usize,
    pub invocations_candidate: usize,
    /// Both sides are one invocation each: the test covers the variation within one
    /// invocation only, not from one process to the next.
    pub within_invocation: bool,
    /// Runs (after the warm-up rule) per side holding the cell.
    pub runs_baseline: usize,
    pub runs_candidate: usize,
    /// Compared within one invocation a side: the spread (percent, of the log centres) of
    /// the earlier invocations of the same cell and the baseline's, and how many earlier
    /// ones there were; the change must exceed it to be better or worse.
    pub invocation_noise_pct: Option<f64>,
    pub earlier_invocations: usize,
    /// Effective sample sizes of a series tested on its samples.
    pub ess_baseline: Option<f64>,
    pub ess_candidate: Option<f64>,
    pub baseline: Option<f64>,
    pub candidate: Option<f64>,
    /// The cell's one estimate, in percent: [`Cell::shift_pct`] where a test ran (so
    /// `ci_low_pct ≤ delta_pct ≤ ci_high_pct`), else [`Cell::central_delta_pct`].
    pub delta_pct: Option<f64>,
    /// `100·(candidate/baseline − 1)` of the central values; `None` when the baseline is 0.
    pub central_delta_pct: Option<f64>,
    /// The tested statistic's change: trimmed geometric means (series: geometric means),
    /// in percent; on raw values, relative to the baseline's central value.
    pub shift_pct: Option<f64>,
    /// Interval of `shift_pct` at the comparison's confidence.
    pub ci_low_pct: Option<f64>,
    pub ci_high_pct: Option<f64>,
    pub method: TestMethod,
    /// Two-sided p-value, raw and family-adjusted.
    pub p_value: Option<f64>,
    pub p_adjusted: Option<f64>,
    /// One-sided p-value for "the candidate is worse", raw and family-adjusted (the
    /// gate's family, when one was tested).
    pub p_worse: Option<f64>,
    pub p_worse_adjusted: Option<f64>,
    /// The smallest one-sided p-value the test can reach with these replicate counts
    /// (1/C for the exact test, 1/(B + 1) sampled, 0 for series).
    pub p_floor: Option<f64>,
    /// Robust CV (%) of the baseline replicates: its own run-to-run (or sample) noise.
    pub noise_pct: Option<f64>,
    /// Replicates flagged by the modified z-score (reported, never removed).
    pub outliers_baseline: usize,
    pub outliers_candidate: usize,
    pub verdict: Verdict,
    /// Replicates in the baseline's unit (samples for a series tested within one run).
    pub baseline_values: Vec<f64>,
    pub candidate_values: Vec<f64>,
    /// Test inputs: transformed value per pooled run (baseline runs first), or the
    /// transformed samples of each side.
    pub(crate) per_run: Option<Vec<Option<f64>>>,
    pub(crate) samples: Option<(Vec<f64>, Vec<f64>)>,
    /// One invocation against several: the transformed centres (baseline, candidate).
    pub(crate) prediction: Option<PredictionTest>,
    /// Whether the test ran on log values (all positive) rather than raw ones.
    pub logs: bool,
    /// What the tool printed for this cell on the baseline's side (JMH score ± error,
    /// hyperfine mean ± σ, …), when the side's runs come from one invocation.
    pub printed_baseline: Option<Headline>,
    pub printed_candidate: Option<Headline>,
    /// Why a side's printed summary is not shown: it pools several invocations.
    pub printed_note: Option<String>,
    /// The change the tool itself printed between these two sides (Criterion's change of
    /// the candidate against the base it ran against, when that is the baseline).
    pub printed_change: Vec<printed::PrintedChange>,
}

impl Cell {
    /// The change in the bad direction, in percent (positive = worse): of the cell's one
    /// estimate, `delta_pct`.
    pub fn worsening_pct(&self) -> Option<f64> {
        self.delta_pct.map(|d| match self.polarity {
            Polarity::Lower => d,
            Polarity::Higher => -d,
        })
    }

    /// `metric` or `metric@percentile`.
    pub fn name(&self) -> String {
        match self.percentile {
            Some(p) => format!("{}@{}", self.metric, percentile_number(p)),
            None => self.metric.clone(),
        }
    }

    /// [`Cell::name`] after the benchmark and its configuration, where the cell has them.
    pub fn display_name(&self) -> String {
        match self.bench_text() {
            b if b.is_empty() => self.name(),
            b => format!("{b} {}", self.name()),
        }
    }

    /// The metric after the benchmark and its configuration, where the cell has them.
    pub fn metric_with_bench(&self) -> String {
        match self.bench_text() {
            b if b.is_empty() => self.metric.clone(),
            b => format!("{b} {}", self.metric),
        }
    }

    /// The benchmark, its configuration and its given label as one line; empty when the
    /// cell has none of them. A key the sides were paired across reads `key=baseline →
    /// candidate` (`–` where a side lacks it).
    pub fn bench_text(&self) -> String {
        let mut config = self.config.clone();
        config.extend(self.config_change());
        config.sort();
        super::samples::identity_text(
            self.bench.as_deref(),
            config.iter().map(|(k, v)| (k, v)),
            self.label.as_deref(),
        )
    }

    /// The configuration keys the sides were paired across, each with `baseline →
    /// candidate` (`–` where a side lacks the key); empty when the sides' configurations
    /// agree.
    pub fn config_change(&self) -> Vec<(String, String)> {
        let value = |side: &[(String, String)], key: &str| {
            side.iter()
                .find(|(k, _)| k == key)
                .map_or("–".to_string(), |(_, v)| v.clone())
        };
        let mut keys: Vec<&String> = self
            .config_baseline
            .iter()
            .chain(&self.config_candidate)
            .map(|(k, _)| k)
            .collect();
        keys.sort();
        keys.dedup();
        keys.into_iter()
            .map(|k| {
                let change = format!(
                    "{} → {}",
                    value(&self.config_baseline, k),
                    value(&self.config_candidate, k)
                );
                (k.clone(), change)
            })
            .collect()
    }

    /// The replicate count checked against a minimum: runs, or the smaller effective
    /// sample size of a series tested on its samples.
    pub fn replicate_count(&self) -> f64 {
        if self.prediction.is_some() {
            // One invocation against several: the several's invocations count, once the
            // one has at least 2 runs.
            let (reference, single_runs) = if self.n_baseline >= self.n_candidate {
                (self.n_baseline, self.runs_candidate)
            } else {
                (self.n_candidate, self.runs_baseline)
            };
            return if single_runs < 2 {
                single_runs as f64
            } else {
                reference as f64
            };
        }
        match (self.ess_baseline, self.ess_candidate) {
            (Some(b), Some(c)) => b.min(c),
            _ => self.n_baseline.min(self.n_candidate) as f64,
        }
    }

    /// Whether each side has the two replicates a test needs (for one invocation against
    /// several: two invocations on the one side, two runs on the other; for a series
    /// tested on its samples, [`SERIES_MIN_ESS`] effective samples a side).
    pub fn testable(&self) -> bool {
        if self.prediction.is_some() || self.ess_baseline.is_some() {
            let needed = if self.prediction.is_some() {
                2.0
            } else {
                SERIES_MIN_ESS
            };
            return self.replicate_count() >= needed;
        }
        self.n_baseline >= 2 && self.n_candidate >= 2
    }
}

/// Cells of both sides before any family is tested.
#[derive(Debug, Clone)]
pub struct Comparison {
    pub cells: Vec<Cell>,
    /// Runs per side after the warm-up rule.
    pub baseline_runs: usize,
    pub candidate_runs: usize,
}

/// Compares `candidate` against `baseline` on every cell present on both sides (only the
/// given `metrics` when not empty). Cells come sorted by metric, then percentile.
pub fn compare(
    baseline: &[StoredRun],
    candidate: &[StoredRun],
    metrics: &[String],
    opts: &CompareOptions,
) -> Vec<Cell> {
    let mut cmp = prepare(baseline, candidate, metrics, opts);
    let members = vec![true; cmp.cells.len()];
    test_family(&mut cmp, &members, &opts.plan);
    for c in &mut cmp.cells {
        c.verdict = verdict(c, opts);
    }
    cmp.cells
}

/// A metric both sides hold whose cells do not pair: each side's benchmarks and
/// configurations holding it, which no cell of the other side matches.
#[derive(Debug, Clone, PartialEq)]
pub struct Unpaired {
    pub metric: String,
    /// Each side's identities holding the metric, in order.
    pub baseline: Vec<Identity>,
    pub candidate: Vec<Identity>,
    /// The configuration keys whose values differ among those identities, with their
    /// values in order (`param.KEY=VALUE` selects one).
    pub keys: Vec<(String, Vec<String>)>,
}

/// Both sides as a comparison reads them: the measured runs (JLBH's warm-up left out
/// unless kept), the axis widened to them, and each side's cells.
struct Sides {
    baseline: Vec<StoredRun>,
    candidate: Vec<StoredRun>,
    axis: Axis,
    base: BTreeMap<CellKey, SideCell>,
    cand: BTreeMap<CellKey, SideCell>,
}

impl Sides {
    fn of(
        baseline: &[StoredRun],
        candidate: &[StoredRun],
        metrics: &[String],
        opts: &CompareOptions,
    ) -> Sides {
        let baseline = super::warmup::measured(baseline, opts.include_first);
        let candidate = super::warmup::measured(candidate, opts.include_first);
        let axis = opts.axis.widened(&baseline, &candidate);
        let base = gather(&baseline, metrics, &axis);
        let cand = gather(&candidate, metrics, &axis);
        Sides {
            baseline,
            candidate,
            axis,
            base,
            cand,
        }
    }
}

/// The metrics (only the given `metrics` when not empty) held by both sides of which no
/// cell pairs: a side of several configurations is not pooled into one, so they pair only
/// with the same configuration on the other side ([`super::samples::Axis::widened`]).
pub fn unpaired(
    baseline: &[StoredRun],
    candidate: &[StoredRun],
    metrics: &[String],
    opts: &CompareOptions,
) -> Vec<Unpaired> {
    let Sides { base, cand, .. } = Sides::of(baseline, candidate, metrics, opts);
    let held = |cells: &BTreeMap<CellKey, SideCell>, metric: &str| {
        let mut ids: Vec<Identity> = cells
            .keys()
            .filter(|k| k.metric == metric)
            .map(|k| k.identity.clone())
            .collect();
        ids.dedup();
        ids
    };
    let mut names: Vec<&String> = base.keys().map(|k| &k.metric).collect();
    names.sort();
    names.dedup();
    names
        .into_iter()
        .filter(|m| !base.keys().any(|k| &k.metric == *m && cand.contains_key(k)))
        .filter_map(|m| {
            let (b, c) = (held(&base, m), held(&cand, m));
            if c.is_empty() {
                return None;
            }
            let mut keys: BTreeMap<String, Vec<String>> = BTreeMap::new();
            for (k, v) in b.iter().chain(&c).flat_map(|i| &i.config) {
                let values = keys.entry(k.clone()).or_default();
                if !values.contains(v) {
                    values.push(v.clone());
                }
            }
            let all = b.len() + c.len();
            let differ = |k: &String, n: usize| {
                n > 1
                    || b.iter()
                        .chain(&c)
                        .filter(|i| i.config.iter().any(|(x, _)| x == k))
                        .count()
                        < all
            };
            // The keys the two sides differ in (benchstat's `note:` lines), else every key
            // that varies: not those both sides vary in alike (`size=` in the names).
            let values = |ids: &[Identity], k: &str| -> BTreeSet<Option<String>> {
                ids.iter()
                    .map(|i| {
                        i.config
                            .iter()
                            .find(|(x, _)| x == k)
                            .map(|(_, v)| v.clone())
                    })
                    .collect()
            };
            let varying: Vec<(String, Vec<String>)> = keys
                .into_iter()
                .filter(|(k, v)| differ(k, v.len()))
                .collect();
            let between: Vec<(String, Vec<String>)> = varying
                .iter()
                .filter(|(k, _)| values(&b, k) != values(&c, k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            Some(Unpaired {
                metric: m.clone(),
                keys: if between.is_empty() { varying } else { between },
                baseline: b,
                candidate: c,
            })
        })
        .collect()
}

/// The benchmarks (identities: suite, bench, configuration, label) of which one side
/// holds cells and the other none, of any metric: a benchmark renamed, added or dropped
/// (benchstat lists them too). Empty when no cell pairs at all ([`unpaired`] says why).
/// Beside them, the (benchmark, metric) pairs that make no cell because a side's output
/// printed no number for them (JMH's `≈ 10⁻⁴`), with the sides that printed none: such a
/// benchmark is neither new nor dropped.
#[derive(Debug, Default, PartialEq)]
pub struct OneSided {
    pub baseline: Vec<Identity>,
    pub candidate: Vec<Identity>,
    pub unnumbered: Vec<Unnumbered>,
}

/// A benchmark's metric that one side or both printed without a number.
#[derive(Debug, Clone, PartialEq)]
pub struct Unnumbered {
    pub identity: Identity,
    pub metric: String,
    /// Which sides printed no number for it.
    pub baseline: bool,
    pub candidate: bool,
}

/// See [`OneSided`].
pub fn one_sided(
    baseline: &[StoredRun],
    candidate: &[StoredRun],
    metrics: &[String],
    opts: &CompareOptions,
) -> OneSided {
    let Sides {
        baseline: base_runs,
        candidate: cand_runs,
        axis,
        base,
        cand,
    } = Sides::of(baseline, candidate, metrics, opts);
    let (no_b, no_c) = (
        unnumbered(&base_runs, metrics, &axis),
        unnumbered(&cand_runs, metrics, &axis),
    );
    // A pair makes a cell on a side when that side holds a number for it.
    let held = |cells: &BTreeMap<CellKey, SideCell>, (id, metric): &(Identity, String)| {
        cells
            .keys()
            .any(|k| &k.identity == id && &k.metric == metric)
    };
    let unnumbered: Vec<Unnumbered> = no_b
        .union(&no_c)
        .filter(|pair| !(held(&base, pair) && held(&cand, pair)))
        .map(|pair| Unnumbered {
            identity: pair.0.clone(),
            metric: pair.1.clone(),
            baseline: !held(&base, pair) && no_b.contains(pair),
            candidate: !held(&cand, pair) && no_c.contains(pair),
        })
        .filter(|u| u.baseline || u.candidate)
        .collect();
    if !base.keys().any(|k| cand.contains_key(k)) {
        return OneSided {
            unnumbered,
            ..OneSided::default()
        };
    }
    let ids = |cells: &BTreeMap<CellKey, SideCell>| -> BTreeSet<Identity> {
        cells.keys().map(|k| k.identity.clone()).collect()
    };
    let (b, c) = (ids(&base), ids(&cand));
    // A benchmark the other side printed without numbers is not new or dropped.
    let unprinted =
        |no: &BTreeSet<(Identity, String)>, id: &Identity| no.iter().any(|p| &p.0 == id);
    OneSided {
        baseline: b
            .difference(&c)
            .filter(|id| !unprinted(&no_c, id))
            .cloned()
            .collect(),
        candidate: c
            .difference(&b)
            .filter(|id| !unprinted(&no_b, id))
            .cloned()
            .collect(),
        unnumbered,
    }
}

/// Gathers both sides' cells with their central values, deltas and intervals.
pub fn prepare(
    baseline: &[StoredRun],
    candidate: &[StoredRun],
    metrics: &[String],
    opts: &CompareOptions,
) -> Comparison {
    let Sides {
        baseline,
        candidate,
        axis,
        base,
        cand,
    } = Sides::of(baseline, candidate, metrics, opts);
    let base_runs = gather_per_run(&baseline, metrics, &axis);
    let cand_runs = gather_per_run(&candidate, metrics, &axis);
    let earlier = super::warmup::measured(&opts.earlier, opts.include_first);
    let earlier_runs = gather_per_run(&earlier, metrics, &axis);
    let blocks = |runs: &[StoredRun]| {
        runs.iter()
            .map(|r| Origin {
                block: r.invocation(),
                order: (crate::selector::run_time(r), r.id),
            })
            .collect::<Vec<Origin>>()
    };
    let (base_blocks, cand_blocks) = (blocks(&baseline), blocks(&candidate));
    let earlier_blocks = blocks(&earlier);
    let cells = base
        .iter()
        .filter_map(|(key, b)| {
            let c = cand.get(key)?;
            let mut cell = cell(
                key,
                (b, c),
                (&base_runs, &cand_runs),
                (&base_blocks, &cand_blocks),
                opts,
            );
            add_printed(&mut cell, key, (b, &baseline), (c, &candidate));
            for (k, (b, c)) in &axis.paired_config {
                let sides = [
                    (b, &mut cell.config_baseline),
                    (c, &mut cell.config_candidate),
                ];
                for (v, side) in sides {
                    if let Some(v) = v {
                        side.push((k.clone(), v.clone()));
                    }
                }
            }
            if cell.within_invocation && !earlier_runs.is_empty() {
                noise_floor(
                    &mut cell,
                    per_run(&earlier_runs, key, &b.unit),
                    &earlier_blocks,
                );
            }
            Some(cell)
        })
        .collect();
    Comparison {
        cells,
        baseline_runs: baseline.len(),
        candidate_runs: candidate.len(),
    }
}

/// One value per run of a side, in `unit`: the run's value, or its series' mean.
fn per_run(runs: &[RunCells], key: &CellKey, unit: &str) -> Vec<Option<f64>> {
    runs.iter()
        .map(|r| {
            let s = r.get(key)?;
            let v: Vec<f64> = s
                .values
                .iter()
                .filter_map(|&v| crate::units::convert(v, &s.unit, unit))
                .collect();
            mean(&v)
        })
        .collect()
}

/// One run's cells, as [`gather_per_run`] gives them.
type RunCells = BTreeMap<CellKey, SideCell>;

/// One cell from both sides' gathered values, per-run values and runs' blocks.
fn cell(
    key: &CellKey,
    (b, c): (&SideCell, &SideCell),
    (base_runs, cand_runs): (&[RunCells], &[RunCells]),
    blocks: (&[Origin], &[Origin]),
    opts: &CompareOptions,
) -> Cell {
    let percentile = key.percentile();
    // Candidate values in the baseline's unit (time units convert; others must match).
    let cand_values: Vec<f64> = c
        .values
        .iter()
        .filter_map(|&v| crate::units::convert(v, &c.unit, &b.unit))
        .collect();
    // Units that do not convert leave the candidate empty (verdict `insufficient`) and
    // show both units, so the mismatch is visible rather than silently compared.
    let unit = if cand_values.is_empty() && !c.values.is_empty() {
        format!("{}≠{}", b.unit, c.unit)
    } else {
        b.unit.clone()
    };
    let rb = per_run(base_runs, key, &b.unit);
    let rc = per_run(cand_runs, key, &b.unit);
    let present = |v: &[Option<f64>]| v.iter().flatten().copied().collect::<Vec<f64>>();
    let (pb, pc) = (present(&rb), present(&rc));
    let series = b.shape == Shape::TimeSeries && (pb.len() < 2 || pc.len() < 2);
    let central = |side: &SideCell, runs: &[f64], samples: &[f64]| -> Option<f64> {
        match side.shape {
            Shape::Histogram => merged_percentile(side, percentile?)
                .and_then(|v| crate::units::convert(v, &side.unit, &b.unit)),
            Shape::Ladder => median(runs),
            Shape::TimeSeries => mean(samples),
            Shape::Value => mean(runs),
        }
    };
    let baseline = central(b, &pb, &b.values);
    let candidate = central(c, &pc, &cand_values);
    let central_delta_pct = match (baseline, candidate) {
        (Some(x), Some(y)) if x != 0.0 => Some(100.0 * (y / x - 1.0)),
        _ => None,
    };
    // Replicates: a side whose runs come from several invocations (blocks, forks) is represented by
    // its invocations' centres, since runs of one process move together from one process to
    // the next.
    let positive = pb.iter().chain(&pc).all(|&v| v > 0.0);
    let (inv_b, inv_c) = (invocations(&rb, blocks.0), invocations(&rc, blocks.1));
    let (kb, kc) = (inv_b.len(), inv_c.len());
    let centres = |inv: &[(usize, Vec<f64>)]| -> Vec<f64> {
        inv.iter().map(|(_, v)| centre(v, positive)).collect()
    };
    // Several invocations whose centres do not vary give the one no spread to be
    // predicted with: a t interval of no width and p = 0 on any change. Their runs are
    // then the replicates, as for one invocation against one; but not across a step,
    // whose runs before it are not the baseline now: then there is no test.
    let runs_instead = |inv: &[(usize, Vec<f64>)]| {
        let c: Vec<f64> = centres(inv)
            .into_iter()
            .map(|v| if positive { v.ln() } else { v })
            .collect();
        PredictionTest::new(&c, &[0.0]).is_some_and(|t| !t.varies && !t.stepped)
    };
    let level = if series {
        Level::Samples
    } else if kb >= 2 && kc >= 2 {
        Level::Invocations
    } else if kb.min(kc) == 1 && kb.max(kc) >= 2 {
        if runs_instead(if kb >= 2 { &inv_b } else { &inv_c }) {
            Level::Runs
        } else {
            Level::Prediction
        }
    } else {
        Level::Runs
    };
    let (runs_baseline, runs_candidate) = (pb.len(), pc.len());
    let (bv, cv) = match level {
        Level::Samples => (b.values.clone(), cand_values.clone()),
        Level::Runs => (pb, pc),
        Level::Invocations | Level::Prediction => (centres(&inv_b), centres(&inv_c)),
    };
    // A series is tested on its raw samples: the change of the means, the number a reader
    // of a minute table computes; runs are tested on logs (latencies change multiplicatively).
    let logs =
        !series && bv.iter().chain(&cv).all(|&v| v > 0.0) && !(bv.is_empty() && cv.is_empty());
    let tx = |v: f64| if logs { v.ln() } else { v };
    let to_pct = |x: f64| -> Option<f64> {
        if logs {
            // `+ 0.0` turns −0 into 0.
            Some(100.0 * x.exp_m1() + 0.0)
        } else {
            baseline
                .filter(|m| *m != 0.0)
                .map(|m| 100.0 * x / m.abs() + 0.0)
        }
    };
    let pol_override = opts.polarity.get(&key.metric).copied();
    let known = pol_override.or_else(|| known_polarity(&key.metric, &b.unit));
    let pol = known.unwrap_or(Polarity::Lower);
    let (mut shift, mut ci, mut ess) = (None, None, (None, None));
    let mut prediction = None;
    // The baseline noise of one invocation against several: their spread, within the
    // segments when the several hold a step.
    let mut spread = None;
    let (per_run_tx, samples) = if series {
        let (sb, sc): (Vec<f64>, Vec<f64>) = (
            bv.iter().map(|v| tx(*v)).collect(),
            cv.iter().map(|v| tx(*v)).collect(),
        );
        if let Some(t) = series_test(&sb, &sc) {
            shift = Some(t.diff);
            ess = (Some(t.ess.0), Some(t.ess.1));
            if opts.interval {
                // The percentage is the ratio of means less 1: its interval is the ratio's
                // (Fieller), kept as differences from the baseline mean, and none where
                // the ratio's is unbounded; the difference's t interval where the
                // baseline mean is not positive.
                let m = t.baseline.mean;
                ci = if m > 0.0 {
                    let nonneg = sb.iter().chain(&sc).all(|v| *v >= 0.0);
                    t.ratio_ci(opts.confidence, nonneg)
                        .map(|(lo, hi)| ((lo - 1.0) * m, (hi - 1.0) * m))
                } else {
                    Some(t.ci(opts.confidence))
                };
            }
        }
        (None, Some((sb, sc)))
    } else if level == Level::Prediction {
        let (sb, sc): (Vec<f64>, Vec<f64>) = (
            bv.iter().map(|v| tx(*v)).collect(),
            cv.iter().map(|v| tx(*v)).collect(),
        );
        let test = PredictionTest::new(&sb, &sc);
        if let Some(t) = &test {
            // The change from the segment after a step even where nothing can test it.
            shift = Some(t.diff);
            spread = Some(t.sd);
            if opts.interval && t.varies {
                ci = Some(t.ci(opts.confidence));
            }
        }
        prediction = test.filter(|t| t.varies);
        (None, None)
    } else {
        let pooled: Vec<Option<f64>> = if level == Level::Invocations {
            // Each invocation's centre sits at its first run's pooled position.
            let mut pooled = vec![None; rb.len() + rc.len()];
            for (pos, v) in inv_b.iter().zip(&bv) {
                pooled[pos.0] = Some(tx(*v));
            }
            for (pos, v) in inv_c.iter().zip(&cv) {
                pooled[rb.len() + pos.0] = Some(tx(*v));
            }
            pooled
        } else {
            rb.iter().chain(&rc).map(|v| v.map(tx)).collect()
        };
        let (sb, sc): (Vec<f64>, Vec<f64>) = (
            bv.iter().map(|v| tx(*v)).collect(),
            cv.iter().map(|v| tx(*v)).collect(),
        );
        if opts.interval
            && let Some((est, lo, hi)) = shift_ci(&sb, &sc, opts.confidence, &opts.plan)
        {
            shift = Some(est);
            ci = Some((lo, hi));
        }
        if shift.is_none() && sb.len() >= 2 && sc.len() >= 2 {
            shift = crate::stats::shift::trimmed_shift(&sb, &sc);
        }
        (Some(pooled), None)
    };
    let suites: std::collections::BTreeSet<&String> = b.suites.iter().chain(&c.suites).collect();
    let txv = |v: &[f64]| v.iter().map(|x| tx(*x)).collect::<Vec<f64>>();
    Cell {
        suite: suites
            .into_iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join("+"),
        bench: key.identity.bench.clone(),
        config: key.identity.config.clone(),
        config_baseline: Vec::new(),
        config_candidate: Vec::new(),
        label: key.identity.label.clone(),
        metric: key.metric.clone(),
        percentile,
        unit,
        shape: b.shape,
        kind: kind(
            &key.metric,
            &b.unit,
            matches!(b.shape, Shape::Ladder | Shape::Histogram),
        ),
        polarity: pol,
        polarity_known: known.is_some() || matches!(b.shape, Shape::Ladder | Shape::Histogram),
        replicates: match level {
            Level::Samples => Replicates::Samples,
            Level::Runs => Replicates::Runs,
            Level::Invocations | Level::Prediction => Replicates::Invocations,
        },
        n_baseline: bv.len(),
        n_candidate: cv.len(),
        invocations_baseline: kb,
        invocations_candidate: kc,
        within_invocation: kb == 1 && kc == 1,
        runs_baseline,
        runs_candidate,
        invocation_noise_pct: None,
        earlier_invocations: 0,
        ess_baseline: ess.0,
        ess_candidate: ess.1,
        baseline,
        candidate,
        delta_pct: shift.and_then(to_pct).or(central_delta_pct),
        central_delta_pct,
        shift_pct: shift.and_then(to_pct),
        ci_low_pct: ci.and_then(|c| to_pct(c.0)),
        ci_high_pct: ci.and_then(|c| to_pct(c.1)),
        method: TestMethod::None,
        p_value: None,
        p_adjusted: None,
        p_worse: None,
        p_worse_adjusted: None,
        p_floor: None,
        noise_pct: match spread {
            Some(sd) => to_pct(sd).map(f64::abs),
            None => robust_cv_pct(&bv),
        },
        outliers_baseline: outlier_count(&txv(&bv)),
        outliers_candidate: outlier_count(&txv(&cv)),
        verdict: Verdict::Insufficient,
        baseline_values: bv,
        candidate_values: cv,
        per_run: per_run_tx,
        samples,
        prediction,
        logs,
        printed_baseline: None,
        printed_candidate: None,
        printed_note: None,
        printed_change: Vec::new(),
    }
}

/// Level of the step detector on a history of invocation centres: at most this share of
/// flat histories is cut.
pub const STEP_ALPHA: f64 = 0.01;

/// Where the last segment of `centres` (oldest first, at least 6) begins, when they hold a
/// step: the split into two segments of at least 2 whose two-sample t (pooled within-segment
/// spread, n − 2 degrees of freedom) is largest, kept when its two-sided p times the number
/// of splits (Bonferroni) is below [`STEP_ALPHA`]. It sees a step 2 or 3 commits before
/// head, where a permutation of the history cannot (2 of 10 high centres fall at the end
/// in 1 of 45 orders) and a detector needing longer segments does not look. Assumes the
/// centres roughly normal (each is a trimmed mean of its runs).
fn last_step(centres: &[f64]) -> Option<usize> {
    let n = centres.len();
    if n < 6 {
        return None;
    }
    let mut best: Option<(f64, usize)> = None;
    for s in 2..=n - 2 {
        let (a, b) = centres.split_at(s);
        let (ma, mb) = (mean(a)?, mean(b)?);
        let ss: f64 = a.iter().map(|v| (v - ma).powi(2)).sum::<f64>()
            + b.iter().map(|v| (v - mb).powi(2)).sum::<f64>();
        let se = (ss / (n - 2) as f64).sqrt() * (1.0 / s as f64 + 1.0 / (n - s) as f64).sqrt();
        let t = if se > 0.0 {
            (mb - ma).abs() / se
        } else if mb != ma {
            f64::INFINITY
        } else {
            0.0
        };
        if best.is_none_or(|(bt, _)| t > bt) {
            best = Some((t, s));
        }
    }
    let (t, cut) = best?;
    let splits = (n - 3) as f64;
    let p = 2.0 * student_t_sf(t, (n - 2) as f64) * splits;
    (t > 0.0 && p < STEP_ALPHA).then_some(cut)
}

/// What a cell's replicates are, before the test is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Runs,
    Samples,
    Invocations,
    /// One invocation against several.
    Prediction,
}

/// An invocation's key ([`StoredRun::invocation`]).
type Invocation = (i64, u32);

/// Where a run came from: its invocation ([`StoredRun::invocation`]: its block, and its
/// fork within a block of forks) and its place in time (time, id).
#[derive(Debug, Clone, Copy)]
struct Origin {
    block: Invocation,
    order: (Option<chrono::DateTime<chrono::Utc>>, i64),
}

/// A side's invocations holding a value, oldest first (by their first run's time, then
/// id): per block, the position of its first run and its runs' values.
fn invocations(values: &[Option<f64>], blocks: &[Origin]) -> Vec<(usize, Vec<f64>)> {
    type Order = (Option<chrono::DateTime<chrono::Utc>>, i64);
    let mut out: Vec<(Invocation, Order, usize, Vec<f64>)> = Vec::new();
    for (pos, (v, origin)) in values.iter().zip(blocks).enumerate() {
        let Some(v) = v else { continue };
        match out.iter_mut().find(|o| o.0 == origin.block) {
            Some(o) => {
                o.1 = o.1.min(origin.order);
                o.3.push(*v);
            }
            None => out.push((origin.block, origin.order, pos, vec![*v])),
        }
    }
    out.sort_by_key(|o| o.1);
    out.into_iter().map(|(_, _, pos, v)| (pos, v)).collect()
}

/// An invocation's centre: the 20%-trimmed geometric mean of its runs (arithmetic when a
/// value is not positive), so one wild run of seven does not move it.
pub(crate) fn centre(values: &[f64], positive: bool) -> f64 {
    if positive {
        let logs: Vec<f64> = values.iter().map(|v| v.ln()).collect();
        trimmed_mean(&logs, 0.2).map_or(f64::NAN, f64::exp)
    } else {
        trimmed_mean(values, 0.2).unwrap_or(f64::NAN)
    }
}

/// One invocation against several (transformed centres): where the several's t prediction
/// interval puts the one. `diff` is candidate − baseline.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PredictionTest {
    diff: f64,
    /// Spread of one invocation's centre (within the segments, after a step).
    sd: f64,
    /// Standard error of a new invocation's centre around the several's mean.
    se: f64,
    df: f64,
    /// The several hold a step: the one is predicted from the segment after it.
    stepped: bool,
    /// The several's centres vary (within their segments) by more than rounding: with no
    /// spread the interval has no width and any change has p = 0, which is no test.
    varies: bool,
}

impl PredictionTest {
    /// The several's centres oldest first. When they hold a step ([`last_step`]), the one is
    /// predicted from the segment after it, with the spread within the segments.
    fn new(baseline: &[f64], candidate: &[f64]) -> Option<PredictionTest> {
        let (reference, single, sign) = match (baseline.len(), candidate.len()) {
            (k, 1) if k >= 2 => (baseline, candidate[0], 1.0),
            (1, k) if k >= 2 => (candidate, baseline[0], -1.0),
            _ => return None,
        };
        let step = last_step(reference);
        let (m, sd, k, df) = match step {
            Some(cut) => {
                let (before, after) = reference.split_at(cut);
                let ss = |x: &[f64]| {
                    let m = mean(x).unwrap_or(0.0);
                    x.iter().map(|v| (v - m).powi(2)).sum::<f64>()
                };
                let df = reference.len() as f64 - 2.0;
                let sd = ((ss(before) + ss(after)) / df).sqrt();
                (mean(after)?, sd, after.len() as f64, df)
            }
            None => {
                let k = reference.len() as f64;
                (mean(reference)?, variance(reference)?.sqrt(), k, k - 1.0)
            }
        };
        // Rounding leaves a spread of 1e-16 where the centres are equal (five Go outputs
        // printing 1016 ns/op): a spread below a billionth of the centres is none.
        let scale = reference.iter().fold(1.0_f64, |s, v| s.max(v.abs()));
        Some(PredictionTest {
            diff: sign * (single - m),
            sd,
            se: sd * (1.0 + 1.0 / k).sqrt(),
            df,
            stepped: step.is_some(),
            varies: sd > 1e-9 * scale,
        })
    }

    fn ci(&self, confidence: f64) -> (f64, f64) {
        let q = student_t_quantile(1.0 - (1.0 - confidence) / 2.0, self.df);
        (self.diff - q * self.se, self.diff + q * self.se)
    }

    /// One-sided p-values: (candidate greater, candidate less).
    fn p(&self) -> (f64, f64) {
        if self.diff == 0.0 {
            return (1.0, 1.0);
        }
        if self.se <= 0.0 {
            return if self.diff > 0.0 {
                (0.0, 1.0)
            } else {
                (1.0, 0.0)
            };
        }
        let t = self.diff / self.se;
        (student_t_sf(t, self.df), student_t_sf(-t, self.df))
    }
}

/// Sets a within-invocation cell's noise floor from the earlier invocations' values of its
/// cell (`values`, one per earlier run, in the cell's unit): the sample standard deviation of
/// the log centres of those invocations and the baseline's own, as a percent, from at least
/// 2 earlier ones.
fn noise_floor(cell: &mut Cell, values: Vec<Option<f64>>, blocks: &[Origin]) {
    let inv = invocations(&values, blocks);
    if inv.len() < 2 {
        return;
    }
    let own = &cell.baseline_values;
    if own.is_empty() || own.iter().any(|v| *v <= 0.0) {
        return;
    }
    let own = centre(own, true);
    let mut logs: Vec<f64> = inv
        .iter()
        .map(|(_, v)| centre(v, true))
        .filter(|c| c.is_finite() && *c > 0.0)
        .map(f64::ln)
        .collect();
    if logs.len() < 2 || own <= 0.0 {
        return;
    }
    logs.push(own.ln());
    if let Some(v) = variance(&logs) {
        cell.invocation_noise_pct = Some(100.0 * v.sqrt().exp_m1());
        cell.earlier_invocations = inv.len();
    }
}

/// Sets the cell's `printed_*` from the runs of each side that hold it.
fn add_printed(
    cell: &mut Cell,
    key: &CellKey,
    baseline: (&SideCell, &[StoredRun]),
    candidate: (&SideCell, &[StoredRun]),
) {
    fn held<'r>((s, runs): (&SideCell, &'r [StoredRun])) -> Vec<&'r StoredRun> {
        runs.iter().filter(|r| s.run_ids.contains(&r.id)).collect()
    }
    let (held_b, held_c) = (held(baseline), held(candidate));
    let side = |runs: &[&StoredRun]| printed::side(runs, &key.metric, key.percentile());
    if key.percentile().is_none() {
        cell.printed_change = printed::change(&held_b, &held_c, &key.metric);
    }
    let mut notes = Vec::new();
    for (name, sd, slot) in [
        ("baseline", side(&held_b), &mut cell.printed_baseline),
        ("candidate", side(&held_c), &mut cell.printed_candidate),
    ] {
        match sd {
            Side::One(h) => *slot = Some(h),
            Side::Pooled(n) => notes.push(format!(
                "the {name} pools {n} invocations: no one printed summary"
            )),
            Side::None => {}
        }
    }
    cell.printed_note = (!notes.is_empty()).then(|| notes.join("; "));
}

/// Tests the cells: raw p-values for all, family-adjusted ones for the `members` (see the
/// module doc). Returns a one-line description of the family.
pub fn test_family(cmp: &mut Comparison, members: &[bool], plan: &Plan) -> String {
    let runs: Vec<usize> = (0..cmp.cells.len())
        .filter(|&i| cmp.cells[i].per_run.is_some())
        .collect();
    let sign = |c: &Cell| match c.polarity {
        Polarity::Lower => 1.0,
        Polarity::Higher => -1.0,
    };
    let fam: Vec<FamilyCell> = runs
        .iter()
        .map(|&i| FamilyCell {
            values: cmp.cells[i].per_run.clone().unwrap_or_default(),
            worse_sign: sign(&cmp.cells[i]),
            member: members[i],
        })
        .collect();
    let mut run_members = 0;
    let mut description = Vec::new();
    // Replicates are rearranged only among the runs that hold them: cells are tested in
    // groups of equal run sets (one benchmark's metrics and percentiles measured by the
    // same runs), each group's family over its own runs, so no p-value goes below the
    // exact floor of the cell's own replicates. Across groups the adjusted p-values are
    // Bonferroni-corrected.
    // A cell's runs: the pooled positions where it has a value.
    let keys: Vec<Vec<usize>> = fam
        .iter()
        .map(|c| {
            (0..c.values.len())
                .filter(|&p| c.values[p].is_some())
                .collect()
        })
        .collect();
    let groups = run_groups(&fam, &keys, cmp.baseline_runs);
    let tested: Vec<(Vec<usize>, Vec<usize>, usize)> = groups
        .into_iter()
        .filter(|(cells, _, _)| cells.iter().any(|&k| fam[k].member))
        .collect();
    // A group too small to test (one run a side) is no comparison: Bonferroni counts the
    // groups tested.
    let results: Vec<_> = tested
        .iter()
        .filter_map(|(cells, positions, n_base)| {
            let sub: Vec<FamilyCell> = cells
                .iter()
                .map(|&k| FamilyCell {
                    values: positions.iter().map(|&p| fam[k].values[p]).collect(),
                    worse_sign: fam[k].worse_sign,
                    member: fam[k].member,
                })
                .collect();
            let f = family_test(&sub, *n_base, plan)?;
            f.cells
                .iter()
                .any(Option::is_some)
                .then_some((cells, (positions.len(), *n_base), f))
        })
        .collect();
    let g = results.len().max(1) as f64;
    let sizes: Vec<(usize, usize)> = results.iter().map(|r| r.1).collect();
    let (mut total_rearrangements, mut exact_all) = (0u64, true);
    for (cells, _, f) in results {
        total_rearrangements += f.rearrangements;
        exact_all &= f.method == Method::ExactPermutation;
        for (&k, t) in cells.iter().zip(&f.cells) {
            let c = &mut cmp.cells[runs[k]];
            let Some(t) = t else { continue };
            c.method = match f.method {
                Method::ExactPermutation => TestMethod::ExactPermutation,
                Method::SampledPermutation => TestMethod::SampledPermutation,
            };
            let adjust = |p: f64| (p * g).min(1.0);
            c.p_value = Some(t.p_two_sided);
            c.p_worse = Some(t.p_worse);
            c.p_adjusted = t.p_two_sided_adjusted.map(adjust);
            c.p_worse_adjusted = t.p_worse_adjusted.map(adjust);
            c.p_floor = Some(f.p_floor);
            if t.p_worse_adjusted.is_some() {
                run_members += 1;
            }
        }
    }
    if run_members > 0 {
        let within = if let [(n, n_base)] = sizes[..] {
            format!(
                "{} {} of {} baseline and {} candidate runs",
                total_rearrangements,
                if exact_all {
                    "rearrangements (all)"
                } else {
                    "sampled rearrangements"
                },
                n_base,
                n - n_base
            )
        } else {
            format!(
                "each benchmark's runs rearranged among themselves ({} groups, Bonferroni across them)",
                sizes.len()
            )
        };
        description.push(format!(
            "step-down max-T over {}, {within}",
            crate::numfmt::plural(run_members, "cell"),
        ));
    }
    // Cells tested alone (a series on its samples; one invocation against several): their
    // one-sided and two-sided p-values, then Holm within each kind.
    let mut series_members = Vec::new();
    let mut prediction_members = Vec::new();
    for (i, c) in cmp.cells.iter_mut().enumerate() {
        let (method, greater, less, two_sided) = if let Some((b, s)) = &c.samples {
            let Some(t) = series_test(b, s) else { continue };
            (TestMethod::SeriesT, t.p_greater, t.p_less, t.p_two_sided)
        } else if let Some(t) = &c.prediction {
            let (greater, less) = t.p();
            let two = (2.0 * greater.min(less)).min(1.0);
            (TestMethod::PredictionT, greater, less, two)
        } else {
            continue;
        };
        c.method = method;
        c.p_value = Some(two_sided);
        c.p_worse = Some(match c.polarity {
            Polarity::Lower => greater,
            Polarity::Higher => less,
        });
        c.p_floor = Some(0.0);
        if members[i] {
            match method {
                TestMethod::SeriesT => series_members.push(i),
                _ => prediction_members.push(i),
            }
        }
    }
    holm_adjust(&mut cmp.cells, &series_members);
    holm_adjust(&mut cmp.cells, &prediction_members);
    if !series_members.is_empty() {
        description.push(format!(
            "Holm over {} time series tested on their samples",
            series_members.len()
        ));
    }
    if !prediction_members.is_empty() {
        description.push(format!(
            "Holm over {} one invocation against several (t prediction interval)",
            crate::numfmt::plural(prediction_members.len(), "cell"),
        ));
    }
    let families = [
        run_members > 0,
        !series_members.is_empty(),
        !prediction_members.is_empty(),
    ]
    .iter()
    .filter(|&&f| f)
    .count();
    if families > 1 {
        let k = families as f64;
        for c in &mut cmp.cells {
            c.p_adjusted = c.p_adjusted.map(|p| (k * p).min(1.0));
            c.p_worse_adjusted = c.p_worse_adjusted.map(|p| (k * p).min(1.0));
        }
        description.push(if families == 2 {
            "each doubled (Bonferroni over the two)".to_string()
        } else {
            "each tripled (Bonferroni over the three)".to_string()
        });
    }
    if description.is_empty() {
        "no cell tested".to_string()
    } else {
        description.join("; ")
    }
}

/// Holm-adjusts the two-sided and one-sided p-values of the cells at `members`.
fn holm_adjust(cells: &mut [Cell], members: &[usize]) {
    let adjusted = |p: fn(&Cell) -> Option<f64>| {
        holm(
            &members
                .iter()
                .map(|&i| p(&cells[i]).unwrap_or(1.0))
                .collect::<Vec<_>>(),
        )
    };
    let (two, one) = (adjusted(|c| c.p_value), adjusted(|c| c.p_worse));
    for (k, &i) in members.iter().enumerate() {
        cells[i].p_adjusted = Some(two[k]);
        cells[i].p_worse_adjusted = Some(one[k]);
    }
}

/// Cells grouped by equal `keys` (each cell's run positions), in first-seen order: per
/// group, its cells, the positions of the runs that hold any of them (baseline runs
/// first, as pooled) and how many of those are baseline runs.
fn run_groups<K: PartialEq>(
    fam: &[FamilyCell],
    keys: &[K],
    n_baseline: usize,
) -> Vec<(Vec<usize>, Vec<usize>, usize)> {
    let mut groups: Vec<(&K, Vec<usize>)> = Vec::new();
    for (k, key) in keys.iter().enumerate() {
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.1.push(k),
            None => groups.push((key, vec![k])),
        }
    }
    groups
        .into_iter()
        .map(|(_, cells)| {
            let n = fam[cells[0]].values.len();
            let positions: Vec<usize> = (0..n)
                .filter(|&p| cells.iter().any(|&k| fam[k].values[p].is_some()))
                .collect();
            let n_base = positions.iter().filter(|&&p| p < n_baseline).count();
            (cells, positions, n_base)
        })
        .collect()
}

/// The percentile of one side's merged histograms, in the side's unit.
fn merged_percentile(side: &SideCell, percentile: f64) -> Option<f64> {
    let scale = side.histograms.first()?.0;
    let merged = histogram::merge(
        side.histograms
            .iter()
            .flat_map(|(_, iv)| iv.iter().map(|i| &i.encoded)),
    )?;
    Some(histogram::value_at(&merged, percentile) * scale)
}

fn verdict(c: &Cell, opts: &CompareOptions) -> Verdict {
    if !c.testable() {
        return Verdict::Insufficient;
    }
    // 0 → 0 has no relative delta and nothing to test: the same.
    if c.baseline == Some(0.0) && c.candidate == Some(0.0) {
        return Verdict::Same;
    }
    // Every replicate of both sides is one and the same value (a count such as Go's
    // allocs/op): nothing varies and nothing changed, as benchstat's `~ (all equal)`.
    // The permutation test alone could not say so: 3 runs a side never reach p < 0.05.
    if let Some(first) = c.baseline_values.first()
        && c.baseline_values
            .iter()
            .chain(&c.candidate_values)
            .all(|v| v == first)
    {
        return Verdict::Same;
    }
    let Some(p) = c.p_adjusted else {
        return Verdict::Inconclusive;
    };
    if c.p_floor.is_some_and(|f| f >= opts.alpha) {
        return Verdict::Inconclusive;
    }
    // A change from 0 has no percentage; its direction is the central values'.
    let shift = c
        .delta_pct
        .or(match (c.baseline, c.candidate) {
            (Some(0.0), Some(y)) => Some(y),
            _ => None,
        })
        .unwrap_or(0.0);
    // Within one invocation a side, a change inside the earlier invocations' spread is
    // not the candidate's doing.
    if c.invocation_noise_pct.is_some_and(|f| shift.abs() <= f) {
        return Verdict::Inconclusive;
    }
    if p < opts.alpha && shift != 0.0 {
        if !c.polarity_known {
            return Verdict::Changed;
        }
        let improved = match c.polarity {
            Polarity::Lower => shift < 0.0,
            Polarity::Higher => shift > 0.0,
        };
        return if improved {
            Verdict::Better
        } else {
            Verdict::Worse
        };
    }
    match (c.ci_low_pct, c.ci_high_pct) {
        (Some(lo), Some(hi)) if lo >= -opts.margin_pct && hi <= opts.margin_pct => Verdict::Same,
        _ => Verdict::Inconclusive,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::testdata::*;
    use bench_db_parsers::Series;

    fn find<'a>(cells: &'a [Cell], metric: &str) -> &'a Cell {
        cells.iter().find(|c| c.metric == metric).unwrap()
    }

    fn round2(v: Option<f64>) -> f64 {
        (v.unwrap() * 100.0).round() / 100.0
    }

    /// A rise from 0 has no percentage but a direction: tsar's `retran`, 0 in every
    /// minute of one host and 5.78, 2.53, 3.88, 3.62, 3.99, 3.94 on another, significant,
    /// is worse, not inconclusive.
    #[test]
    fn a_significant_rise_from_zero_is_worse() {
        let cells = compare(
            &tsar_rt(1, &[0.0; 6]),
            &tsar_rt(2, &[5.78, 2.53, 3.88, 3.62, 3.99, 3.94]),
            &[],
            &CompareOptions::default(),
        );
        let c = find(&cells, "ts.rt");
        assert_eq!(c.delta_pct, None);
        assert!(c.p_adjusted.unwrap() < 0.05, "{c:?}");
        assert_eq!(c.verdict, Verdict::Worse);
    }

    #[test]
    fn seed_003_patch_block_as_candidate() {
        let cells = compare(
            &seed003_master(),
            &seed003_patch(),
            &[],
            &CompareOptions::default(),
        );
        let rt = find(&cells, "ts.rt");
        assert!((rt.baseline.unwrap() - 3.388).abs() < 1e-9);
        assert!((rt.candidate.unwrap() - 2.961_818).abs() < 1e-6);
        assert_eq!(round2(rt.delta_pct), -12.58);
        assert_eq!(rt.verdict, Verdict::Better);
        // One run a side: the autocorrelation-aware test on the samples.
        assert_eq!(rt.replicates, Replicates::Samples);
        assert!(rt.p_value.unwrap() < 0.01, "{rt:?}");
        assert!(rt.p_adjusted.unwrap() < 0.01, "{rt:?}");
        assert!(rt.ci_high_pct.unwrap() < 0.0);
        let cpu = find(&cells, "cpu.util");
        assert_eq!(round2(cpu.baseline), 68.36);
        assert_eq!(round2(cpu.candidate), 70.08);
        assert_eq!(round2(cpu.delta_pct), 2.51);
        assert_eq!(cpu.verdict, Verdict::Worse);
        assert!(cpu.p_value.unwrap() < 0.01, "{cpu:?}");
        assert!(cpu.p_adjusted.unwrap() < 0.01);
        // Little's law: 92.0K/s × 3.388 ms ≈ 319 requests in flight before the patch.
        let l = find(&cells, "ts.concurrency");
        assert!(
            l.baseline.unwrap() > 300.0 && l.baseline.unwrap() < 330.0,
            "{l:?}"
        );
        assert_eq!(l.verdict, Verdict::Better);
        // Every cell of the family is adjusted.
        assert!(cells.iter().all(|c| c.p_adjusted >= c.p_value));
    }

    #[test]
    fn seed_004_single_values_give_a_delta_only() {
        let cells = compare(
            &seed004_before(),
            &seed004_after(),
            &["latency_avg".to_string()],
            &CompareOptions::default(),
        );
        assert_eq!(cells.len(), 1);
        let c = &cells[0];
        assert_eq!(round2(c.baseline), 8.88);
        assert_eq!(round2(c.candidate), 2.45);
        assert_eq!(round2(c.delta_pct), -72.41);
        assert_eq!(c.verdict, Verdict::Insufficient);
        assert_eq!(c.p_value, None);
        let zero = |id| {
            stored(
                id,
                "arthas",
                "z",
                vec![Series::value("errors", "", Some(0.0))],
            )
        };
        // One value a side is insufficient even when both are 0, as 17 → 17 is.
        let cells = compare(&[zero(1)], &[zero(2)], &[], &CompareOptions::default());
        assert_eq!(
            (cells[0].delta_pct, cells[0].verdict),
            (None, Verdict::Insufficient)
        );
        let cells = compare(
            &[zero(1), zero(3)],
            &[zero(2), zero(4)],
            &[],
            &CompareOptions::default(),
        );
        assert_eq!(
            (cells[0].delta_pct, cells[0].verdict),
            (None, Verdict::Same)
        );
    }

    /// One run per value, ids from `first` on, each holding `metric` as a single value.
    fn single_values(
        first: i64,
        suite: &str,
        metric: &str,
        unit: &str,
        values: &[f64],
    ) -> Vec<StoredRun> {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                stored(
                    first + i as i64,
                    suite,
                    "z",
                    vec![Series::value(metric, unit, Some(*v))],
                )
            })
            .collect()
    }

    #[test]
    fn a_significant_change_of_unknown_direction_is_changed() {
        let side =
            |first: i64, values: [f64; 5]| single_values(first, "arthas", "ts.cons", "", &values);
        let base = side(1, [10.0, 10.2, 9.9, 10.1, 10.0]);
        let cand = side(10, [13.0, 13.1, 12.9, 13.2, 13.0]);
        let cells = compare(&base, &cand, &[], &CompareOptions::default());
        assert!(!cells[0].polarity_known);
        assert_eq!(cells[0].verdict, Verdict::Changed, "{:?}", cells[0]);
        let cells = compare(&cand, &base, &[], &CompareOptions::default());
        assert_eq!(cells[0].verdict, Verdict::Changed);
    }

    #[test]
    fn seed_002_tcp_against_the_default_transport() {
        let cells = compare(
            &seed002_default(),
            &seed002_tcp(),
            &[],
            &CompareOptions::default(),
        );
        let c = find(&cells, "msgs_per_sec");
        assert_eq!(c.polarity, Polarity::Higher);
        assert_eq!(c.baseline, Some(13252.0));
        assert_eq!(c.candidate, Some(13467.0));
        assert_eq!(round2(c.central_delta_pct), 1.62);
        // The tested estimate: the change of the geometric means (4 runs a side, untrimmed),
        // by hand from the seed: 13466.99 / 13251.42.
        assert_eq!(round2(c.delta_pct), 1.63);
        assert_eq!(c.n_baseline, 4);
        // Every TCP run beats every default run: exact p = 2/C(8,4) = 2/70.
        assert!((c.p_value.unwrap() - 2.0 / 70.0).abs() < 1e-12, "{c:?}");
        assert_eq!(c.p_floor, Some(1.0 / 70.0));
        assert_eq!(c.verdict, Verdict::Better);
    }

    /// Go's allocs/op in fixtures/real/go-bench/bench-count3.txt and bench-count3-b.txt:
    /// BenchmarkJoin 7 in all 3 runs of each file. The test cannot reject with 3 runs a
    /// side, so its interval is unbounded, yet nothing varied: the same, as benchstat's
    /// `~ (all equal)`. A side that varies, even once, keeps the test's verdict.
    #[test]
    fn replicates_all_equal_on_both_sides_are_the_same() {
        let side = |first: i64, values: [f64; 3]| {
            single_values(first, "go-bench", "allocs_op", "allocs/op", &values)
        };
        let cells = compare(
            &side(1, [7.0; 3]),
            &side(10, [7.0; 3]),
            &[],
            &CompareOptions::default(),
        );
        assert_eq!(cells[0].verdict, Verdict::Same, "{:?}", cells[0]);
        assert_eq!(cells[0].delta_pct, Some(0.0));
        let cells = compare(
            &side(1, [7.0; 3]),
            &side(10, [7.0, 7.0, 8.0]),
            &[],
            &CompareOptions::default(),
        );
        assert_eq!(cells[0].verdict, Verdict::Inconclusive, "{:?}", cells[0]);
    }

    #[test]
    fn identical_sides_are_the_same() {
        let runs = seed003_master();
        let cells = compare(&runs, &runs, &[], &CompareOptions::default());
        assert!(!cells.is_empty());
        for c in &cells {
            assert_eq!(c.delta_pct, Some(0.0), "{c:?}");
            assert_eq!(c.verdict, Verdict::Same, "{c:?}");
        }
    }

    #[test]
    fn histograms_compare_merged_percentiles_not_averages() {
        use bench_db_parsers::{Data, HistInterval, LadderPoint, Series};
        use hdrhistogram::Histogram;
        use hdrhistogram::serialization::{Serializer, V2Serializer};
        let run = |id: i64, lo: u64| {
            let mut h = Histogram::<u64>::new(3).unwrap();
            for v in lo..lo + 100 {
                h.record(v).unwrap();
            }
            let mut encoded = Vec::new();
            V2Serializer::new().serialize(&h, &mut encoded).unwrap();
            let point = |p: f64| LadderPoint {
                percentile: p,
                value: Some(h.value_at_percentile(p) as f64),
                line_value: None,
            };
            let data = Data::Histogram {
                intervals: vec![HistInterval {
                    t: None,
                    duration: None,
                    tag: None,
                    encoded,
                }],
                count: Some(100),
                points: vec![point(50.0), point(100.0)],
            };
            stored(
                id,
                "hlog",
                "h",
                vec![Series::new("latency", "latency", "us", data)],
            )
        };
        let base = vec![run(1, 100), run(2, 1000)];
        let cand = vec![run(3, 100), run(4, 1000)];
        let cells = compare(&base, &cand, &[], &CompareOptions::default());
        let p50 = cells.iter().find(|c| c.percentile == Some(50.0)).unwrap();
        assert_eq!(p50.shape, Shape::Histogram);
        // The merged 200 values have their median at 199; the median of the two runs'
        // own medians would be (149 + 1049) / 2 = 599.
        assert_eq!(p50.baseline, Some(199.0));
        assert_eq!(p50.delta_pct, Some(0.0));
        // Two runs a side: 6 rearrangements, the smallest p is 1/6 > 0.05.
        assert_eq!(p50.p_floor, Some(1.0 / 6.0));
        assert_eq!(p50.verdict, Verdict::Inconclusive);
    }

    #[test]
    fn time_units_convert_before_comparing() {
        let base = ladder_runs("end_to_end", "us", &[(99.0, &[100.0, 110.0, 105.0])], 2);
        let cand = ladder_runs("end_to_end", "ms", &[(99.0, &[0.1, 0.11, 0.105])], 10);
        let cells = compare(&base, &cand, &[], &CompareOptions::default());
        assert_eq!(cells.len(), 1);
        assert!(cells[0].delta_pct.unwrap().abs() < 1e-9);
        assert_eq!(cells[0].percentile, Some(99.0));
        assert_eq!(cells[0].name(), "end_to_end@99");
        let pct = ladder_runs("end_to_end", "%", &[(99.0, &[1.0, 2.0])], 20);
        let cells = compare(&base, &pct, &[], &CompareOptions::default());
        assert_eq!(cells[0].unit, "us≠%");
        assert_eq!(cells[0].verdict, Verdict::Insufficient);
    }

    /// Runs of `bench` in `suite` (ids from `first`), one `time` value each.
    fn bench_runs(first: i64, suite: &str, bench: &str, values: &[f64]) -> Vec<StoredRun> {
        values
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                let mut r = stored(
                    first + i as i64,
                    suite,
                    "l",
                    vec![Series::value("time", "ns", Some(v))],
                );
                r.run.bench = Some(bench.to_string());
                r
            })
            .collect()
    }

    #[test]
    fn replicates_are_tested_only_inside_their_benchmark() {
        // Twelve benchmarks of three runs a side, each 30% slower: pooled, their 36 runs
        // would give a tiny p; each alone is 3 against 3, whose exact floor is 2/C(6,3).
        let (mut base, mut cand) = (Vec::new(), Vec::new());
        for b in 0..12 {
            let name = format!("pkg.Bench.m{b}");
            let scale = 10f64.powi(b % 4);
            base.extend(bench_runs(
                100 * b as i64,
                "jmh",
                &name,
                &[1.0 * scale, 1.02 * scale, 0.99 * scale],
            ));
            cand.extend(bench_runs(
                100 * b as i64 + 50,
                "jmh",
                &name,
                &[1.3 * scale, 1.31 * scale, 1.29 * scale],
            ));
        }
        let cells = compare(&base, &cand, &[], &CompareOptions::default());
        assert_eq!(cells.len(), 12);
        for c in &cells {
            assert_eq!(
                (c.n_baseline, c.n_candidate),
                (3, 3),
                "{}",
                c.display_name()
            );
            assert!(c.bench.as_deref().unwrap().starts_with("pkg.Bench.m"));
            assert!(
                c.p_value.unwrap() >= 0.1 - 1e-12,
                "{} p {:?}",
                c.display_name(),
                c.p_value
            );
            assert!(
                !matches!(c.verdict, Verdict::Better | Verdict::Worse),
                "{:?}",
                c.verdict
            );
        }
    }

    /// The runs of one invocation (block `block`, ingested on day `block`): ids from
    /// `first`, one value each.
    fn block(first: i64, values: &[f64], block: i64) -> Vec<StoredRun> {
        let mut runs = bench_runs(first, "x", "b", values);
        for (i, r) in runs.iter_mut().enumerate() {
            (r.block_id, r.run.index) = (block, i as u32 + 1);
            r.ingested_at = format!("2026-01-{block:02}T00:00:00Z");
        }
        runs
    }

    /// One invocation against three whose centres are equal (runs 10, 11 and 12 in other
    /// orders: HdrHistogram's buckets snap real percentiles to such repeats): predicted
    /// with no spread, any change had p = 0 and an interval of no width. The runs are the
    /// replicates instead: 9 against 3, a permutation test whose floor is 2/C(12,3).
    #[test]
    fn invocations_whose_centres_do_not_vary_are_tested_on_their_runs() {
        let mut base = block(1, &[10.0, 11.0, 12.0], 1);
        base.extend(block(4, &[12.0, 11.0, 10.0], 2));
        base.extend(block(7, &[11.0, 10.0, 12.0], 3));
        let cand = block(10, &[11.5, 12.5, 13.5], 4);
        let cells = compare(&base, &cand, &[], &CompareOptions::default());
        let c = &cells[0];
        assert_eq!(c.replicates, Replicates::Runs);
        assert_eq!((c.n_baseline, c.n_candidate), (9, 3));
        assert_eq!((c.invocations_baseline, c.invocations_candidate), (3, 1));
        let (lo, hi) = (c.ci_low_pct.unwrap(), c.ci_high_pct.unwrap());
        let delta = c.delta_pct.unwrap();
        assert!(
            lo < delta && delta < hi && hi - lo > 5.0,
            "{lo} {delta} {hi}"
        );
        assert!(c.p_value.unwrap() >= 2.0 / 220.0 - 1e-12, "{:?}", c.p_value);
    }

    /// Centres equal but for rounding (1016.0 as a mean of different runs leaves a spread
    /// of 1e-16 in logs) are centres that do not vary; and a history whose segments each
    /// hold equal centres (three at 11, then three at 22: a step) has no spread to test
    /// the one against, nor runs that are all the baseline now: no test, and the change is
    /// the one from the segment after the step (22 against 22: 0%, not the +33% of the
    /// pooled median).
    #[test]
    fn centres_equal_to_rounding_or_across_a_step_are_not_a_zero_width_test() {
        let mut base = Vec::new();
        for (k, runs) in [
            [1015.9, 1016.1, 1016.0],
            [1016.0, 1016.2, 1015.8],
            [1016.1, 1015.9, 1016.0],
        ]
        .iter()
        .enumerate()
        {
            base.extend(block(10 * k as i64 + 1, runs, k as i64 + 1));
        }
        let cand = block(100, &[1020.0, 1021.0, 1019.0], 9);
        let c = &compare(&base, &cand, &[], &CompareOptions::default())[0];
        if let (Some(lo), Some(hi)) = (c.ci_low_pct, c.ci_high_pct) {
            assert!(hi - lo > 0.01, "{lo} {hi}");
        }
        assert!(c.p_value.is_none_or(|p| p > 1e-3), "{:?}", c.p_value);
        let mut stepped = Vec::new();
        for (k, level) in [11.0, 11.0, 11.0, 22.0, 22.0, 22.0].iter().enumerate() {
            let runs = [level * 0.9, *level, level * 1.1];
            stepped.extend(block(10 * k as i64 + 1, &runs, k as i64 + 1));
        }
        let cand = block(100, &[22.0 * 0.9, 22.0, 22.0 * 1.1], 9);
        let c = &compare(&stepped, &cand, &[], &CompareOptions::default())[0];
        assert_eq!(c.replicates, Replicates::Invocations);
        assert_eq!((c.ci_low_pct, c.p_value), (None, None));
        assert!(c.delta_pct.unwrap().abs() < 1e-9, "{:?}", c.delta_pct);
    }

    #[test]
    fn suites_are_cells_of_their_own_unless_each_side_is_one_suite() {
        // Two suites on each side: end_to_end of one suite never pools with the other's.
        let mk = |first: i64, suite: &str, v: f64| {
            let mut runs = bench_runs(first, suite, "x", &[v, v * 1.01, v * 0.99, v, v * 1.02]);
            for r in &mut runs {
                r.run.bench = None;
            }
            runs
        };
        let base: Vec<StoredRun> = [mk(1, "a", 10.0), mk(10, "b", 1000.0)].concat();
        let cand: Vec<StoredRun> = [mk(20, "a", 10.0), mk(30, "b", 1300.0)].concat();
        let cells = compare(&base, &cand, &[], &CompareOptions::default());
        assert_eq!(cells.len(), 2);
        assert_eq!(cells[0].suite, "a");
        assert_eq!(cells[1].suite, "b");
        assert_eq!(round2(cells[0].delta_pct), 0.0);
        assert_eq!(round2(cells[1].delta_pct), 30.0);
        // One suite a side, different: that difference is what is compared.
        let cells = compare(
            &mk(1, "sockperf", 10.0),
            &mk(20, "loopback", 12.0),
            &[],
            &CompareOptions::default(),
        );
        assert_eq!(cells.len(), 1);
        assert_eq!(round2(cells[0].delta_pct), 20.0);
    }

    #[test]
    fn a_bench_axis_compares_two_commands_of_one_export() {
        let mut runs = bench_runs(
            1,
            "hyperfine",
            "sleep 0.01",
            &[10.1, 10.2, 10.0, 10.3, 10.1],
        );
        runs.extend(bench_runs(
            10,
            "hyperfine",
            "sleep 0.02",
            &[20.1, 20.2, 20.0, 20.3, 20.1],
        ));
        runs.extend(bench_runs(20, "hyperfine", "sleep 0.03", &[30.0; 5]));
        let base: Vec<StoredRun> = runs
            .iter()
            .filter(|r| r.run.bench.as_deref() == Some("sleep 0.01"))
            .cloned()
            .collect();
        let cand: Vec<StoredRun> = runs
            .iter()
            .filter(|r| r.run.bench.as_deref() == Some("sleep 0.02"))
            .cloned()
            .collect();
        let opts = CompareOptions {
            axis: Axis {
                bench: true,
                ..Axis::default()
            },
            ..CompareOptions::default()
        };
        let cells = compare(&base, &cand, &[], &opts);
        assert_eq!(cells.len(), 1);
        assert_eq!(cells[0].bench, None);
        assert_eq!((cells[0].n_baseline, cells[0].n_candidate), (5, 5));
        assert!(cells[0].delta_pct.unwrap() > 90.0);
        assert_eq!(cells[0].verdict, Verdict::Worse);
    }
    /// Skewed ladders whose median and trimmed geometric mean move apart: the one
    /// estimate stays inside its interval, and the reason quotes it.
    #[test]
    fn the_estimate_lies_inside_its_interval() {
        let mut rng = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut checked = 0;
        for trial in 0..40 {
            let n = 4 + trial % 9;
            let mut side = |scale: f64| -> Vec<f64> {
                (0..n)
                    .map(|_| {
                        // A ×3 wild run one time in five pulls the mean, not the median.
                        let wild = if next() < 0.2 { 3.0 } else { 1.0 };
                        scale * wild * (1.0 + 0.05 * next())
                    })
                    .collect()
            };
            let (b, c) = (side(100.0), side(100.0 + trial as f64));
            let base = ladder_runs("e2e", "us", &[(99.0, &b[..])], 1);
            let cand = ladder_runs("e2e", "us", &[(99.0, &c[..])], 100);
            for cell in compare(&base, &cand, &[], &CompareOptions::default()) {
                let (Some(lo), Some(hi)) = (cell.ci_low_pct, cell.ci_high_pct) else {
                    continue;
                };
                let d = cell.delta_pct.unwrap();
                assert!(lo <= d && d <= hi, "{d} outside [{lo}, {hi}]: {cell:?}");
                assert_eq!(cell.delta_pct, cell.shift_pct);
                checked += 1;
            }
        }
        assert!(checked >= 30, "{checked}");
        // Series: the estimate is the change of the means (seed 003: −12.58%).
        let cells = compare(
            &seed003_master(),
            &seed003_patch(),
            &[],
            &CompareOptions::default(),
        );
        for c in cells.iter().filter(|c| c.ci_low_pct.is_some()) {
            let d = c.delta_pct.unwrap();
            assert!(
                c.ci_low_pct.unwrap() <= d && d <= c.ci_high_pct.unwrap(),
                "{c:?}"
            );
            assert!((d - c.central_delta_pct.unwrap()).abs() < 1e-9, "{c:?}");
        }
    }
    /// The step detector: a flat history of 8 or 10 invocations is cut at about its level,
    /// a +40% step 2 or 3 commits before head (invocations 6% apart) is found.
    #[test]
    fn last_step_sees_recent_steps_and_rarely_cuts_flat_histories() {
        use rand::SeedableRng;
        use rand_distr::Distribution;
        let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(7);
        let noise = rand_distr::Normal::new(0.0, 0.06).unwrap();
        let trials = 300;
        for n in [8, 10] {
            let cuts = (0..trials)
                .filter(|_| {
                    let c: Vec<f64> = (0..n).map(|_| noise.sample(&mut rng)).collect();
                    last_step(&c).is_some()
                })
                .count();
            let rate = cuts as f64 / trials as f64;
            eprintln!("flat history of {n}: cut in {rate:.3}");
            assert!(rate <= 0.03, "{n}: {rate}");
        }
        for back in [2, 3] {
            let found = (0..trials)
                .filter(|_| {
                    let c: Vec<f64> = (0..10)
                        .map(|i| {
                            noise.sample(&mut rng) + if i >= 10 - back { 1.4f64.ln() } else { 0.0 }
                        })
                        .collect();
                    last_step(&c) == Some(10 - back)
                })
                .count();
            let rate = found as f64 / trials as f64;
            eprintln!("+40% step {back} before head: found at it in {rate:.3}");
            assert!(rate >= 0.9, "{back}: {rate}");
        }
    }
}
