//! The gate's policy: which cells are gated and at what threshold, from the policy file
//! (TOML) and `--max` terms (`TERM=+N%`, TERM: METRIC, METRIC@PERCENTILE or pPERCENTILE).
//! Grammar and lookup only; the verdict is [`super::gate`].

use super::compare::Cell;
use super::polarity::{Kind, Polarity};
use serde::Deserialize;
use std::collections::BTreeMap;
use thiserror::Error;

/// Threshold of the default policy, in percent worsening.
pub const DEFAULT_THRESHOLD_PCT: f64 = 10.0;
/// Family-wise significance level of the default policy.
pub const DEFAULT_ALPHA: f64 = 0.01;
/// Minimum replicates per side of the default policy (runs after the warm-up rule, or
/// the effective sample size of a series tested within one run); at least 2.
pub const DEFAULT_MIN_RUNS: usize = 5;
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
    /// What is wrong with the policy file's text (several lines for a TOML syntax error,
    /// which quotes the line and marks the column); the caller names the file.
    #[error("{0}")]
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
    pub fn matches(&self, c: &Cell) -> bool {
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
/// min_runs = 5            # minimum runs per side after the warm-up run (at least 2)
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
        let min_runs = f.min_runs.unwrap_or(d.min_runs);
        if min_runs < 2 {
            // One run a side has no run-to-run variance: any worsening would pass untested.
            return Err(GateError::Policy(format!(
                "min_runs must be at least 2, got {min_runs}"
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
            min_runs,
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
    /// A metric of unknown polarity is gated only when a term names it or the policy
    /// gives its polarity.
    pub fn threshold(&self, c: &Cell) -> Threshold {
        if self.ignored(&c.metric) {
            return Threshold::Ignored;
        }
        let named = self.polarity.contains_key(&c.metric)
            || self.terms.iter().any(|t| match &t.target {
                Target::Metric(m) | Target::MetricAt(m, _) => *m == c.metric && t.target.matches(c),
                Target::Percentile(_) => false,
            });
        let found = if self.terms.is_empty() {
            matches!(c.kind, Kind::Latency | Kind::Throughput).then_some(DEFAULT_THRESHOLD_PCT)
        } else {
            // `max_by_key` returns the last of equal maxima: later terms (`--max`) win.
            self.terms
                .iter()
                .filter(|t| t.target.matches(c))
                .max_by_key(|t| t.target.specificity())
                .map(|t| t.max_pct)
        };
        match found {
            None if !c.polarity_known => Threshold::UnknownPolarity,
            None => Threshold::None,
            Some(_) if !c.polarity_known && !named => Threshold::UnknownPolarity,
            Some(p) => Threshold::Pct(p),
        }
    }
}

/// A cell's threshold under a policy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Threshold {
    /// Gated at this allowed worsening (percent).
    Pct(f64),
    /// No term (or default) applies.
    None,
    /// Listed in `ignore`.
    Ignored,
    /// The metric's polarity is unknown and the policy does not name it.
    UnknownPolarity,
}

impl Threshold {
    /// The allowed worsening when gated.
    pub fn pct(self) -> Option<f64> {
        match self {
            Threshold::Pct(p) => Some(p),
            _ => None,
        }
    }
}
