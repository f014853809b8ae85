//! The CI gate: which cells are gated and at what threshold (policy file and `--max`
//! terms), the verdict per cell, and the overall outcome with its exit code.
//!
//! A gated cell regresses only when all three hold (criterion's and asv's rule, plus a
//! measured noise floor):
//! 1. its worsening (the delta in the metric's bad direction) exceeds the threshold;
//! 2. the worsening exceeds `noise_multiplier` × the baseline's own noise: the robust CV
//!    of the baseline replicates (run-to-run spread of a ladder percentile across runs,
//!    spread of the samples of a time series), so tail percentiles get wider bands;
//! 3. the one-sided test in the bad direction (exact permutation test or Welch's t on log
//!    values after outlier rejection, see [`super::compare`]) is significant at `alpha`
//!    after the Benjamini–Hochberg correction across the gated cells (under the A/A null
//!    this bounds the chance of any false alarm at `alpha`).
//!
//! A worsening past the threshold that fails 2 or 3 is a warning. A worsening past the
//! threshold and the noise, with replicate counts that can never reach significance
//! (4 runs a side: the exact test's smallest p-value is 1/70 > 0.01), is undecided, not
//! passed. Outcome: any regression → exit 1; else any gated cell with too few replicates
//! (or nothing to gate) → exit 3; else exit 0. Identical sides have a zero delta and so
//! can never regress.

use super::compare::{Cell, CompareOptions, compare, fmt_p, fmt_percentile};
use super::polarity::{Kind, Polarity};
use super::samples::Shape;
use crate::dataset::StoredRun;
use crate::stats::correction::benjamini_hochberg;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use thiserror::Error;

/// Threshold of the default policy, in percent worsening.
pub const DEFAULT_THRESHOLD_PCT: f64 = 10.0;
/// Family-wise significance level of the default policy.
pub const DEFAULT_ALPHA: f64 = 0.01;
/// Minimum replicates per side of the default policy.
pub const DEFAULT_MIN_RUNS: usize = 3;
/// Noise multiplier of the default policy.
pub const DEFAULT_NOISE_MULTIPLIER: f64 = 1.0;

/// Errors in the policy or the `--max` terms (exit code 2).
#[derive(Debug, Error, PartialEq)]
pub enum GateError {
    #[error(
        "threshold {0:?} is not TERM=+N% (TERM: METRIC, METRIC@PERCENTILE or pPERCENTILE; N ≥ 0)"
    )]
    BadTerm(String),
    #[error("threshold {term:?} names nothing in the compared runs; present: {present}")]
    UnknownTarget { term: String, present: String },
    #[error("policy file: {0}")]
    Policy(String),
}

/// What a threshold applies to.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// Every cell of the metric (every percentile of a ladder).
    Metric(String),
    /// One percentile of one ladder metric.
    MetricAt(String, f64),
    /// That percentile of every ladder metric.
    Percentile(f64),
}

impl Target {
    fn matches(&self, c: &Cell) -> bool {
        let same_p = |p: f64| c.percentile.is_some_and(|q| (q - p).abs() < 1e-9);
        match self {
            Target::Metric(m) => c.metric == *m,
            Target::MetricAt(m, p) => c.metric == *m && same_p(*p),
            Target::Percentile(p) => same_p(*p),
        }
    }

    /// Higher is more specific: METRIC@P over METRIC over pP.
    fn specificity(&self) -> u8 {
        match self {
            Target::MetricAt(..) => 2,
            Target::Metric(_) => 1,
            Target::Percentile(_) => 0,
        }
    }
}

/// One threshold: the allowed worsening of a target, in percent.
#[derive(Debug, Clone, PartialEq)]
pub struct Term {
    /// The term as written (for messages).
    pub text: String,
    pub target: Target,
    pub max_pct: f64,
}

fn parse_percentile(s: &str) -> Option<f64> {
    s.parse::<f64>().ok().filter(|p| (0.0..=100.0).contains(p))
}

/// Parses a TERM (`METRIC`, `METRIC@PERCENTILE`, `pPERCENTILE`).
pub fn parse_target(s: &str) -> Option<Target> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    if let Some((m, p)) = s.split_once('@') {
        let m = m.trim();
        return (!m.is_empty())
            .then(|| Some(Target::MetricAt(m.to_string(), parse_percentile(p.trim())?)))
            .flatten();
    }
    if let Some(p) = s.strip_prefix('p').and_then(parse_percentile) {
        return Some(Target::Percentile(p));
    }
    Some(Target::Metric(s.to_string()))
}

/// Parses an allowed worsening: `+10%`, `10%` or `10`.
pub fn parse_pct(s: &str) -> Option<f64> {
    let s = s.trim();
    let s = s.strip_suffix('%').unwrap_or(s).trim();
    let s = s.strip_prefix('+').unwrap_or(s);
    s.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0)
}

/// Parses a `--max` value: `TERM=+N%`.
pub fn parse_max(s: &str) -> Result<Term, GateError> {
    let bad = || GateError::BadTerm(s.to_string());
    let (t, v) = s.split_once('=').ok_or_else(bad)?;
    Ok(Term {
        text: t.trim().to_string(),
        target: parse_target(t).ok_or_else(bad)?,
        max_pct: parse_pct(v).ok_or_else(bad)?,
    })
}

/// A threshold in the policy file: a number (percent) or a string like `"+5%"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum ThresholdValue {
    Pct(f64),
    Text(String),
}

/// The policy file (TOML). Example:
///
/// ```toml
/// alpha = 0.01            # family-wise significance level
/// min_runs = 5            # minimum replicates per side (runs, or samples of a time series)
/// noise_multiplier = 1.5  # the worsening must exceed this × the baseline's robust CV
/// ignore = ["ts.cons", "cpu.*"]
///
/// [thresholds]            # TERM = allowed worsening
/// "p99" = "+10%"
/// "end_to_end@99.9" = 25
/// "ts.rt" = "+5%"
///
/// [polarity]              # override the name rules: "lower" or "higher" is better
/// "ts.cons" = "higher"
/// ```
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicyFile {
    alpha: Option<f64>,
    min_runs: Option<usize>,
    noise_multiplier: Option<f64>,
    #[serde(default)]
    ignore: Vec<String>,
    #[serde(default)]
    thresholds: BTreeMap<String, ThresholdValue>,
    #[serde(default)]
    polarity: BTreeMap<String, Polarity>,
}

/// The effective gate policy.
#[derive(Debug, Clone)]
pub struct Policy {
    pub alpha: f64,
    pub min_runs: usize,
    pub noise_multiplier: f64,
    /// Metric names (a trailing `*` matches a prefix) that are never gated.
    pub ignore: Vec<String>,
    pub polarity: BTreeMap<String, Polarity>,
    /// Thresholds, policy file first then `--max` (later wins at equal specificity).
    pub terms: Vec<Term>,
}

impl Default for Policy {
    /// The default policy: with no thresholds named, every latency metric (every
    /// percentile) and every throughput metric is gated at [`DEFAULT_THRESHOLD_PCT`].
    fn default() -> Self {
        Policy {
            alpha: DEFAULT_ALPHA,
            min_runs: DEFAULT_MIN_RUNS,
            noise_multiplier: DEFAULT_NOISE_MULTIPLIER,
            ignore: Vec::new(),
            polarity: BTreeMap::new(),
            terms: Vec::new(),
        }
    }
}

impl Policy {
    /// Reads a policy file's text.
    pub fn from_toml(text: &str) -> Result<Policy, GateError> {
        let f: PolicyFile = toml::from_str(text).map_err(|e| GateError::Policy(e.to_string()))?;
        let d = Policy::default();
        let alpha = f.alpha.unwrap_or(d.alpha);
        if !(alpha > 0.0 && alpha < 1.0) {
            return Err(GateError::Policy(format!(
                "alpha must be in (0, 1), got {alpha}"
            )));
        }
        let noise_multiplier = f.noise_multiplier.unwrap_or(d.noise_multiplier);
        if !(noise_multiplier >= 0.0 && noise_multiplier.is_finite()) {
            return Err(GateError::Policy(format!(
                "noise_multiplier must be ≥ 0, got {noise_multiplier}"
            )));
        }
        let mut terms = Vec::new();
        for (t, v) in f.thresholds {
            let max_pct = match &v {
                ThresholdValue::Pct(p) => Some(*p).filter(|p| p.is_finite() && *p >= 0.0),
                ThresholdValue::Text(s) => parse_pct(s),
            };
            let bad = || GateError::BadTerm(format!("{t} = {v:?}"));
            terms.push(Term {
                target: parse_target(&t).ok_or_else(bad)?,
                max_pct: max_pct.ok_or_else(bad)?,
                text: t,
            });
        }
        Ok(Policy {
            alpha,
            min_runs: f.min_runs.unwrap_or(d.min_runs).max(1),
            noise_multiplier,
            ignore: f.ignore,
            polarity: f.polarity,
            terms,
        })
    }

    /// Adds `--max` terms (they override the file's at equal specificity).
    pub fn with_max(mut self, max: &[String]) -> Result<Policy, GateError> {
        for m in max {
            self.terms.push(parse_max(m)?);
        }
        Ok(self)
    }

    fn ignored(&self, metric: &str) -> bool {
        self.ignore.iter().any(|i| match i.strip_suffix('*') {
            Some(prefix) => metric.starts_with(prefix),
            None => metric == i,
        })
    }

    /// The threshold of a cell: the most specific matching term (the last one among
    /// equals); with no terms at all, the default for latency and throughput metrics.
    fn threshold(&self, c: &Cell) -> Option<f64> {
        if self.ignored(&c.metric) {
            return None;
        }
        if self.terms.is_empty() {
            return matches!(c.kind, Kind::Latency | Kind::Throughput)
                .then_some(DEFAULT_THRESHOLD_PCT);
        }
        // `max_by_key` returns the last of equal maxima: later terms (`--max`) win.
        self.terms
            .iter()
            .filter(|t| t.target.matches(c))
            .max_by_key(|t| t.target.specificity())
            .map(|t| t.max_pct)
    }
}

/// Status of one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Regression,
    /// Worse than the threshold, but within noise or not significant.
    Warning,
    /// Too few replicates to decide.
    Undecided,
    /// Not gated: shown for information.
    Info,
}

impl Status {
    /// The word printed for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Regression => "regression",
            Status::Warning => "warning",
            Status::Undecided => "undecided",
            Status::Info => "info",
        }
    }
}

/// One cell with its gate verdict.
#[derive(Debug, Clone)]
pub struct GateCell {
    pub cell: Cell,
    pub threshold_pct: Option<f64>,
    /// Benjamini–Hochberg adjusted one-sided p-value within the gated family.
    pub p_adjusted_worse: Option<f64>,
    pub status: Status,
    pub reason: String,
}

/// The overall outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Pass,
    Regression,
    Undecided,
}

impl Outcome {
    /// The process exit code (`crate::exit`).
    pub fn exit_code(self) -> u8 {
        match self {
            Outcome::Pass => crate::exit::OK,
            Outcome::Regression => crate::exit::REGRESSION,
            Outcome::Undecided => crate::exit::UNDECIDED,
        }
    }

    /// The word printed for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Regression => "regression",
            Outcome::Undecided => "undecided",
        }
    }
}

/// Everything the gate decided.
#[derive(Debug, Clone)]
pub struct GateReport {
    pub outcome: Outcome,
    /// Why, in one line.
    pub summary: String,
    pub alpha: f64,
    pub min_runs: usize,
    pub noise_multiplier: f64,
    pub baseline_runs: usize,
    pub candidate_runs: usize,
    /// Gated cells first (worst first), then the informational ones.
    pub cells: Vec<GateCell>,
}

impl GateReport {
    /// Gated cells.
    pub fn gated(&self) -> impl Iterator<Item = &GateCell> {
        self.cells.iter().filter(|c| c.status != Status::Info)
    }

    /// Cells with this status.
    pub fn count(&self, s: Status) -> usize {
        self.cells.iter().filter(|c| c.status == s).count()
    }
}

/// Runs the gate. `opts` controls the underlying comparison (its α and polarity are
/// replaced by the policy's).
pub fn gate(
    baseline: &[StoredRun],
    candidate: &[StoredRun],
    policy: &Policy,
    opts: &CompareOptions,
) -> Result<GateReport, GateError> {
    let opts = CompareOptions {
        alpha: policy.alpha,
        polarity: policy.polarity.clone(),
        ..opts.clone()
    };
    let cells = compare(baseline, candidate, &[], &opts);
    for t in &policy.terms {
        if !cells.iter().any(|c| t.target.matches(c)) {
            return Err(GateError::UnknownTarget {
                term: t.text.clone(),
                present: present(&cells),
            });
        }
    }
    let thresholds: Vec<Option<f64>> = cells.iter().map(|c| policy.threshold(c)).collect();
    let family: Vec<usize> = (0..cells.len())
        .filter(|&i| thresholds[i].is_some() && cells[i].p_worse.is_some())
        .collect();
    let adj = benjamini_hochberg(
        &family
            .iter()
            .map(|&i| cells[i].p_worse.unwrap_or(1.0))
            .collect::<Vec<_>>(),
    );
    let mut p_adj = vec![None; cells.len()];
    for (&i, a) in family.iter().zip(adj) {
        p_adj[i] = Some(a);
    }
    let mut out: Vec<GateCell> = cells
        .into_iter()
        .zip(thresholds)
        .zip(p_adj)
        .map(|((cell, thr), p)| judge(cell, thr, p, policy))
        .collect();
    let rank = |s: Status| match s {
        Status::Regression => 0,
        Status::Undecided => 1,
        Status::Warning => 2,
        Status::Pass => 3,
        Status::Info => 4,
    };
    // Stable: within a status, cells keep metric/percentile order.
    out.sort_by_key(|c| rank(c.status));
    let gated = out.iter().filter(|c| c.status != Status::Info).count();
    let count = |s: Status| out.iter().filter(|c| c.status == s).count();
    let (outcome, summary) = if baseline.is_empty() || candidate.is_empty() {
        (
            Outcome::Undecided,
            format!(
                "cannot decide: {} baseline run(s), {} candidate run(s)",
                baseline.len(),
                candidate.len()
            ),
        )
    } else if count(Status::Regression) > 0 {
        let names: Vec<String> = out
            .iter()
            .filter(|c| c.status == Status::Regression)
            .map(|c| c.cell.name())
            .collect();
        (
            Outcome::Regression,
            format!(
                "{} regression(s) in {} gated cell(s): {}",
                names.len(),
                gated,
                names.join(", ")
            ),
        )
    } else if gated == 0 {
        (
            Outcome::Undecided,
            "cannot decide: no cell present on both sides is gated".to_string(),
        )
    } else if count(Status::Undecided) > 0 {
        (
            Outcome::Undecided,
            format!(
                "cannot decide: {} of {} gated cell(s) have too few replicates",
                count(Status::Undecided),
                gated
            ),
        )
    } else {
        (
            Outcome::Pass,
            format!(
                "pass: {} gated cell(s), {} warning(s)",
                gated,
                count(Status::Warning)
            ),
        )
    };
    Ok(GateReport {
        outcome,
        summary,
        alpha: policy.alpha,
        min_runs: policy.min_runs,
        noise_multiplier: policy.noise_multiplier,
        baseline_runs: baseline.len(),
        candidate_runs: candidate.len(),
        cells: out,
    })
}

fn present(cells: &[Cell]) -> String {
    let mut names: Vec<String> = cells.iter().map(|c| c.metric.clone()).collect();
    names.dedup();
    let mut pcts: Vec<String> = cells
        .iter()
        .filter_map(|c| c.percentile.map(|p| format!("p{}", fmt_percentile(p))))
        .collect();
    pcts.sort();
    pcts.dedup();
    names.extend(pcts);
    if names.is_empty() {
        "nothing (no metric is on both sides)".to_string()
    } else {
        names.join(", ")
    }
}

fn judge(cell: Cell, threshold: Option<f64>, p_adj: Option<f64>, policy: &Policy) -> GateCell {
    let mk = |cell: Cell, status: Status, reason: String| GateCell {
        cell,
        threshold_pct: threshold,
        p_adjusted_worse: p_adj,
        status,
        reason,
    };
    let Some(thr) = threshold else {
        return mk(cell, Status::Info, "not gated".to_string());
    };
    let unit = if cell.shape == Shape::TimeSeries {
        "samples"
    } else {
        "runs"
    };
    if cell.n_baseline < policy.min_runs || cell.n_candidate < policy.min_runs {
        let reason = format!(
            "{} baseline and {} candidate {unit}; the policy needs {} a side",
            cell.n_baseline, cell.n_candidate, policy.min_runs
        );
        return mk(cell, Status::Undecided, reason);
    }
    if cell.baseline == Some(0.0) && cell.candidate == Some(0.0) {
        return mk(
            cell,
            Status::Pass,
            "unchanged (0 on both sides)".to_string(),
        );
    }
    let Some(w) = cell.worsening_pct() else {
        return mk(
            cell,
            Status::Undecided,
            "the baseline is 0: no relative change".to_string(),
        );
    };
    let noise = policy.noise_multiplier * cell.noise_pct.unwrap_or(0.0);
    // Worse beyond threshold and noise, but too few replicates for the test to ever
    // reach alpha: say so instead of passing.
    if w > thr
        && w > noise
        && let Some(floor) = cell.p_floor.filter(|f| *f >= policy.alpha)
    {
        let reason = format!(
            "worse by {w:+.2}% (allowed +{thr}%), but {} baseline and {} candidate {unit} cannot reach p < {} (smallest possible p {}); add runs",
            cell.n_baseline,
            cell.n_candidate,
            policy.alpha,
            fmt_p(floor)
        );
        return mk(cell, Status::Undecided, reason);
    }
    let significant = p_adj.is_some_and(|p| p < policy.alpha);
    let p_txt = p_adj.map_or("n/a".to_string(), fmt_p);
    if w > thr && w > noise && significant {
        let reason = format!(
            "worse by {w:+.2}%: beyond the allowed +{thr}% and the baseline noise {noise:.2}%, p_adj {p_txt} < {}",
            policy.alpha
        );
        mk(cell, Status::Regression, reason)
    } else if w > thr {
        let why = if w <= noise {
            format!("within the baseline noise {noise:.2}%")
        } else {
            format!("not significant (p_adj {p_txt} ≥ {})", policy.alpha)
        };
        let reason = format!("worse by {w:+.2}% (allowed +{thr}%) but {why}");
        mk(cell, Status::Warning, reason)
    } else {
        let reason = if w > 0.0 {
            format!("worse by {w:+.2}%, within the allowed +{thr}%")
        } else if w < 0.0 {
            format!("better by {:.2}%", -w)
        } else {
            "unchanged".to_string()
        };
        mk(cell, Status::Pass, reason)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::compare::compare;
    use crate::analysis::testdata::*;

    fn run(base: &[StoredRun], cand: &[StoredRun], max: &[&str]) -> Result<GateReport, GateError> {
        let max: Vec<String> = max.iter().map(|s| s.to_string()).collect();
        let policy = Policy::default().with_max(&max)?;
        gate(base, cand, &policy, &CompareOptions::default())
    }

    #[test]
    fn parses_terms() {
        let t = parse_max("p99=+10%").unwrap();
        assert_eq!(t.target, Target::Percentile(99.0));
        assert_eq!(t.max_pct, 10.0);
        assert_eq!(
            parse_max("end_to_end@99.9=25").unwrap().target,
            Target::MetricAt("end_to_end".into(), 99.9)
        );
        assert_eq!(
            parse_max("ts.rt=+5%").unwrap().target,
            Target::Metric("ts.rt".into())
        );
        // A metric whose name merely starts with p stays a metric.
        assert_eq!(
            parse_max("probe=5%").unwrap().target,
            Target::Metric("probe".into())
        );
        for bad in ["p99", "=5%", "p99=-5%", "x@abc=5%", "x@101=5%", "x=fast"] {
            assert!(parse_max(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn seed_003_patch_passes_and_master_after_patch_fails() {
        let r = run(&seed003_master(), &seed003_patch(), &["ts.rt=+5%"]).unwrap();
        assert_eq!(r.outcome, Outcome::Pass, "{}", r.summary);
        assert_eq!(r.gated().count(), 1);
        let r = run(&seed003_patch(), &seed003_master(), &["ts.rt=+5%"]).unwrap();
        assert_eq!(r.outcome, Outcome::Regression);
        assert_eq!(r.outcome.exit_code(), 1);
        assert_eq!(r.cells[0].cell.metric, "ts.rt");
        assert!(r.summary.contains("ts.rt"), "{}", r.summary);
        // cpu.util is shown but not gated.
        let cpu = r
            .cells
            .iter()
            .find(|c| c.cell.metric == "cpu.util")
            .unwrap();
        assert_eq!(cpu.status, Status::Info);
    }

    #[test]
    fn same_runs_never_regress() {
        for runs in [seed003_master(), seed002_tcp(), seed004_before()] {
            for max in [&[][..], &["ts.rt=0%"][..]] {
                if let Ok(r) = run(&runs, &runs, max) {
                    assert_ne!(r.outcome, Outcome::Regression);
                }
            }
        }
        // Single values on each side: fewer runs than the minimum → 3.
        let r = run(&seed004_before(), &seed004_before(), &[]).unwrap();
        assert_eq!(r.outcome, Outcome::Undecided);
    }

    #[test]
    fn most_specific_then_latest_term_wins() {
        let policy = Policy::from_toml("[thresholds]\n\"ts.rt\" = 50\n")
            .unwrap()
            .with_max(&["ts.rt=+5%".to_string()])
            .unwrap();
        let r = gate(
            &seed003_patch(),
            &seed003_master(),
            &policy,
            &CompareOptions::default(),
        )
        .unwrap();
        assert_eq!(r.cells[0].threshold_pct, Some(5.0));
        assert_eq!(r.outcome, Outcome::Regression);
        let runs = ladder_runs("end_to_end", "us", &[(99.0, &[1.0, 2.0, 3.0])], 1);
        let cells = compare(&runs, &runs, &[], &CompareOptions::default());
        let policy = Policy::default()
            .with_max(&["end_to_end@99=+1%".into(), "p99=+20%".into()])
            .unwrap();
        assert_eq!(policy.threshold(&cells[0]), Some(1.0));
    }

    #[test]
    fn too_few_runs_to_reach_alpha_cannot_decide() {
        // Four runs a side: the exact test's smallest one-sided p is 1/70 > 0.01.
        let r = run(&seed002_tcp(), &seed002_default(), &["msgs_per_sec=+1%"]).unwrap();
        assert_eq!(r.outcome, Outcome::Undecided, "{}", r.summary);
        assert!(
            r.cells[0].reason.contains("add runs"),
            "{}",
            r.cells[0].reason
        );
        // The same runs the other way round improve: nothing to decide, a pass.
        let r = run(&seed002_default(), &seed002_tcp(), &["msgs_per_sec=+1%"]).unwrap();
        assert_eq!(r.outcome, Outcome::Pass, "{}", r.summary);
    }

    #[test]
    fn five_runs_a_side_catch_a_whole_ladder_slowing_down() {
        // Every percentile of a 5-run ladder doubles: each exact one-sided p is 1/252, and
        // the family correction must not divide alpha by the number of percentiles.
        let base: [&[f64]; 5] = [
            &[10.0, 11.0, 10.5, 9.8, 10.2],
            &[20.0, 21.0, 19.0, 20.5, 19.5],
            &[40.0, 44.0, 38.0, 41.0, 39.0],
            &[80.0, 90.0, 85.0, 70.0, 75.0],
            &[200.0, 260.0, 180.0, 210.0, 240.0],
        ];
        let pcts = [50.0, 90.0, 99.0, 99.9, 100.0];
        let doubled: Vec<Vec<f64>> = base
            .iter()
            .map(|v| v.iter().map(|x| x * 2.0).collect())
            .collect();
        let b_ladder: Vec<(f64, &[f64])> = pcts.iter().copied().zip(base).collect();
        let c_ladder: Vec<(f64, &[f64])> = pcts
            .iter()
            .copied()
            .zip(doubled.iter().map(Vec::as_slice))
            .collect();
        let b = ladder_runs("end_to_end", "us", &b_ladder, 1);
        let c = ladder_runs("end_to_end", "us", &c_ladder, 11);
        let r = run(&b, &c, &[]).unwrap();
        assert_eq!(r.outcome, Outcome::Regression, "{}", r.summary);
        assert_eq!(r.count(Status::Regression), 5);
    }

    #[test]
    fn unknown_targets_are_errors() {
        let e = run(&seed003_master(), &seed003_patch(), &["ts.latency=+5%"]).unwrap_err();
        assert!(matches!(e, GateError::UnknownTarget { .. }), "{e}");
        assert!(e.to_string().contains("ts.rt"));
        let e = run(&seed003_master(), &seed003_patch(), &["p99=+5%"]).unwrap_err();
        assert!(matches!(e, GateError::UnknownTarget { .. }));
    }

    #[test]
    fn no_baseline_cannot_decide() {
        let r = run(&[], &seed003_patch(), &[]).unwrap();
        assert_eq!(r.outcome, Outcome::Undecided);
        assert_eq!(r.outcome.exit_code(), 3);
    }

    #[test]
    fn default_policy_gates_latency_and_throughput() {
        let r = run(&seed003_master(), &seed003_patch(), &[]).unwrap();
        let gated: Vec<&str> = r.gated().map(|c| c.cell.metric.as_str()).collect();
        assert!(
            gated.contains(&"ts.rt") && gated.contains(&"ts.qps"),
            "{gated:?}"
        );
        assert!(!gated.contains(&"cpu.util"));
        assert_eq!(r.outcome, Outcome::Pass);
    }

    #[test]
    fn policy_file() {
        let p = Policy::from_toml(
            r#"
alpha = 0.05
min_runs = 2
noise_multiplier = 2.0
ignore = ["ts.*"]
[thresholds]
"cpu.util" = "+1%"
"p99" = 10
[polarity]
"cpu.util" = "higher"
"#,
        )
        .unwrap();
        assert_eq!(p.alpha, 0.05);
        assert_eq!(p.terms.len(), 2);
        let r = gate(
            &seed003_master(),
            &seed003_patch(),
            &Policy {
                terms: p.terms[..1].to_vec(),
                ..p.clone()
            },
            &CompareOptions::default(),
        )
        .unwrap();
        // With "higher is better", more cpu is an improvement: passes.
        assert_eq!(r.outcome, Outcome::Pass);
        assert!(Policy::from_toml("alpha = 2").is_err());
        assert!(Policy::from_toml("colour = 1").is_err());
        assert!(Policy::from_toml("[thresholds]\n\"x\" = \"-3%\"").is_err());
    }

    proptest::proptest! {
        #[test]
        fn identical_sides_never_regress(
            p99 in proptest::collection::vec(1.0f64..1e6, 1..12),
            threshold in 0.0f64..50.0,
        ) {
            let runs = ladder_runs("end_to_end", "us", &[(99.0, &p99)], 1);
            let policy = Policy::default()
                .with_max(&[format!("p99=+{threshold}%")])
                .unwrap();
            let opts = CompareOptions { resamples: 50, ..CompareOptions::default() };
            let r = gate(&runs, &runs, &policy, &opts).unwrap();
            proptest::prop_assert_ne!(r.outcome, Outcome::Regression);
        }
    }

    #[test]
    fn tail_percentile_within_noise_is_a_warning() {
        // p99.9 moves +20% but its run-to-run spread is wider than that.
        let base = ladder_runs(
            "end_to_end",
            "us",
            &[(99.9, &[100.0, 160.0, 70.0, 130.0, 90.0, 200.0])],
            1,
        );
        let cand = ladder_runs(
            "end_to_end",
            "us",
            &[(99.9, &[130.0, 190.0, 85.0, 150.0, 110.0, 240.0])],
            11,
        );
        let r = run(&base, &cand, &["p99.9=+10%"]).unwrap();
        assert_eq!(
            r.cells[0].status,
            Status::Warning,
            "{:?}",
            r.cells[0].reason
        );
        assert_eq!(r.outcome, Outcome::Pass);
    }
}
