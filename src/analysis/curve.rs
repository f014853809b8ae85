//! Throughput versus latency: for each throughput, the latency at each percentile (median
//! over the runs at that rate, with min and max), the knee, the highest throughput within
//! an SLO, and Little's-law concurrency where a mean latency is known.
//!
//! A run's throughput is its `target_throughput` parameter (JLBH, the loopback runner,
//! wrk2 `-R`), else `achieved_throughput`, else the mean of a rate series (`qps`, `tps`,
//! `rps`, any throughput metric). Runs with none are skipped and counted.

use super::littles_law::concurrency_metric;
use super::polarity::{Kind, is_rate_unit, kind};
use super::samples::ConfigValue;
use crate::dataset::StoredRun;
use crate::stats::describe::{mean, median};
use crate::units::{convert, seconds_per, split_quantity};
use bench_db_parsers::{Data, LadderPoint, Param, Series};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use thiserror::Error;

/// Curve errors (exit code 2).
#[derive(Debug, Error, PartialEq)]
pub enum CurveError {
    #[error(
        "SLO term {0:?} is not pPERCENTILE<=VALUE[UNIT] (e.g. \"p99<=200us\"; terms joined by ',')"
    )]
    BadSlo(String),
    #[error(
        "SLO term {term:?}: unit {unit:?} does not convert to the metric's unit {metric_unit:?}"
    )]
    SloUnit {
        term: String,
        unit: String,
        metric_unit: String,
    },
    #[error(
        "SLO term {0:?} has no unit: write one, e.g. \"p99<=200us\" (ns, us, ms, s, or the metric's own unit)"
    )]
    SloNoUnit(String),
    #[error(
        "SLO term {term:?} names a percentile, but {metric} has single values, no percentiles: choose a metric with percentiles (--metric)"
    )]
    SloWithoutPercentiles { term: String, metric: String },
    #[error("no selected run has a latency metric{0}")]
    NoMetric(String),
    #[error(
        "no selected run with {0} has a throughput (target_throughput, achieved_throughput or a qps series)"
    )]
    NoThroughput(String),
}

/// A run that achieved less than this fraction of its target rate missed its schedule
/// badly: it did not run at the rate it is filed under, so curves leave it out unless
/// asked.
pub const MIN_ACHIEVED_FRACTION: f64 = 0.9;

/// Whether a run missed its schedule: marked so by the runner (`missed_schedule`), or
/// with an achieved rate under [`MIN_ACHIEVED_FRACTION`] of its target.
pub fn missed_schedule(run: &StoredRun) -> bool {
    if let Some(bench_db_parsers::Param::Bool(b)) = run.run.params.get("missed_schedule") {
        return *b;
    }
    match (
        run.param_f64("achieved_throughput"),
        run.param_f64("target_throughput"),
    ) {
        (Some(a), Some(t)) => t > 0.0 && a < MIN_ACHIEVED_FRACTION * t,
        _ => false,
    }
}

/// One SLO term: the percentile must stay at or below the limit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SloTerm {
    pub text: String,
    pub percentile: f64,
    pub limit: f64,
    /// Unit as written (never empty).
    pub unit: String,
    /// `<` rather than `<=`.
    pub strict: bool,
}

/// Parses `p99<=200us` terms joined by `,` (`pmax`/`max` is the worst, percentile 100).
pub fn parse_slo(text: &str) -> Result<Vec<SloTerm>, CurveError> {
    text.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| {
            let bad = || CurveError::BadSlo(t.to_string());
            let (lhs, rhs, strict) = if let Some((l, r)) = t.split_once("<=") {
                (l, r, false)
            } else if let Some((l, r)) = t.split_once('<') {
                (l, r, true)
            } else {
                return Err(bad());
            };
            let lhs = lhs.trim().to_ascii_lowercase();
            let p = match lhs.as_str() {
                "max" | "pmax" | "worst" => 100.0,
                l => l
                    .strip_prefix('p')
                    .and_then(|p| p.parse::<f64>().ok())
                    .filter(|p| (0.0..=100.0).contains(p))
                    .ok_or_else(bad)?,
            };
            let (limit, unit) = split_quantity(rhs).ok_or_else(bad)?;
            if unit.trim().is_empty() {
                return Err(CurveError::SloNoUnit(t.to_string()));
            }
            Ok(SloTerm {
                text: t.to_string(),
                percentile: p,
                limit,
                unit: unit.to_string(),
                strict,
            })
        })
        .collect()
}

/// One point of the curve.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CurvePoint {
    pub throughput: f64,
    /// `None` for a metric without percentiles (its mean is used).
    pub percentile: Option<f64>,
    /// Median over the runs at this throughput.
    pub value: f64,
    pub min: f64,
    pub max: f64,
    pub runs: usize,
    /// Little's law: throughput × mean latency (s), when a mean latency is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<f64>,
}

/// Which benchmark a curve follows: its cell less the rate, the x axis. Runs of other
/// suites, benchmarks, labels or configurations are never on one curve. The rate
/// configuration is the target rate when the user set one (a configuration key, [`RATE_KEYS`]: every
/// other setting, such as an interval or a message size, splits the curves); when the rate
/// is measured (an achieved rate, a `qps` column), the numeric settings are what moved the
/// load (a thread count), so only the others (a protocol, a flag) split.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct CurveKey {
    pub suite: String,
    pub bench: Option<String>,
    /// `(key, value)` pairs in key order, values as stored.
    pub config: Vec<(String, ConfigValue)>,
    /// The given label ([`StoredRun::given_label`]).
    pub label: Option<String>,
    /// The runs' `branch` tag: a branch's runs are never points of another's curve.
    pub branch: Option<String>,
}

/// The configuration key that is a curve's x axis when a run sets it.
const RATE_KEY: &str = "target_throughput";
/// Configuration keys that restate the rate: JLBH's interval between messages.
const RATE_KEYS: &[&str] = &[RATE_KEY, "interval_us"];

impl CurveKey {
    pub fn of(run: &StoredRun) -> CurveKey {
        let rate_set = run.run.config.contains(RATE_KEY);
        // A setting that moves the load is a count (threads, connections); a protocol or a
        // flag never does, so it splits curves of measured rates too (sockperf over TCP
        // and over UDP).
        let config = run
            .run
            .config_params()
            .into_iter()
            .filter(|(k, v)| {
                if rate_set {
                    !RATE_KEYS.contains(k)
                } else {
                    !matches!(v, Param::Num(_))
                }
            })
            .map(|(k, v)| (k.to_string(), ConfigValue(v.clone())))
            .collect();
        CurveKey {
            suite: run.suite.clone(),
            bench: run.run.bench.clone(),
            config,
            label: run.given_label().map(str::to_string),
            branch: run.run.tags.get("branch").cloned(),
        }
    }

    /// The curve's name after its suite: bench, configuration, label and branch, as one
    /// line.
    pub fn title(&self) -> String {
        let text = super::samples::identity_text(
            self.bench.as_deref(),
            self.config.iter().map(|(k, v)| (k, v)),
            self.label.as_deref(),
        );
        match &self.branch {
            Some(b) if text.is_empty() => format!("branch {b}"),
            Some(b) => format!("{text} · branch {b}"),
            None => text,
        }
    }
}

/// One curve per [`CurveKey`], built one run at a time.
#[derive(Debug)]
pub struct CurvesBuilder {
    metric: String,
    percentiles: Vec<f64>,
    slo: Option<String>,
    curves: BTreeMap<CurveKey, CurveBuilder>,
    /// Each curve's commits (the runs' `commit` tags).
    commits: BTreeMap<CurveKey, BTreeSet<String>>,
}

impl CurvesBuilder {
    /// Curves of `metric` at `percentiles`; errors on a malformed SLO.
    pub fn new(
        metric: String,
        percentiles: &[f64],
        slo: Option<&str>,
    ) -> Result<CurvesBuilder, CurveError> {
        slo.map(parse_slo).transpose()?;
        Ok(CurvesBuilder {
            metric,
            percentiles: percentiles.to_vec(),
            slo: slo.map(str::to_string),
            curves: BTreeMap::new(),
            commits: BTreeMap::new(),
        })
    }

    /// Adds one run's values to its benchmark's curve.
    pub fn add(&mut self, run: &StoredRun) -> Result<(), CurveError> {
        let key = CurveKey::of(run);
        if !self.curves.contains_key(&key) {
            let b = CurveBuilder::new(self.metric.clone(), &self.percentiles, self.slo.as_deref())?;
            self.curves.insert(key.clone(), b);
        }
        if let Some(c) = run.run.tags.get("commit") {
            match self.commits.get_mut(&key) {
                Some(commits) if commits.contains(c) => {}
                Some(commits) => {
                    commits.insert(c.clone());
                }
                None => {
                    self.commits
                        .insert(key.clone(), BTreeSet::from([c.clone()]));
                }
            }
        }
        if let Some(b) = self.curves.get_mut(&key) {
            b.add(run);
        }
        Ok(())
    }

    /// Leaves out the curve of a branch that holds one commit where the same curve is
    /// drawn over two or more commits on another branch (a pull request's one commit
    /// beside `main`), as `history` leaves its series out; returns those branches, sorted.
    pub fn leave_out_one_commit_branches(&mut self) -> Vec<String> {
        let unbranched = |k: &CurveKey| CurveKey {
            branch: None,
            ..k.clone()
        };
        let commits = |k: &CurveKey| self.commits.get(k).map_or(0, BTreeSet::len);
        let followed: BTreeSet<CurveKey> = self
            .curves
            .keys()
            .filter(|k| commits(k) >= 2)
            .map(unbranched)
            .collect();
        let gone: Vec<CurveKey> = self
            .curves
            .keys()
            .filter(|k| k.branch.is_some() && commits(k) == 1)
            .filter(|k| followed.contains(&unbranched(k)))
            .cloned()
            .collect();
        let mut branches = BTreeSet::new();
        for k in gone {
            self.curves.remove(&k);
            branches.extend(k.branch);
        }
        branches.into_iter().collect()
    }

    /// The curves of the benchmarks that have the metric, in suite and bench order; an
    /// error when none has it.
    pub fn finish(mut self) -> Result<Vec<(CurveKey, Curve)>, CurveError> {
        self.join_labels_naming_rates();
        let metric = self.metric.clone();
        let mut skipped_elsewhere = 0;
        let (mut any_metric, mut no_rate) = (false, None);
        let mut out = Vec::new();
        for (k, b) in self.curves {
            any_metric |= b.seen_metric;
            let skipped = b.skipped;
            match b.finish() {
                Ok(c) => out.push((k, c)),
                // A benchmark whose runs hold the metric but no rate draws no curve; its
                // runs are counted as skipped.
                Err(e @ CurveError::NoThroughput(_)) => {
                    skipped_elsewhere += skipped;
                    no_rate = Some(e);
                }
                Err(CurveError::NoMetric(_)) => skipped_elsewhere += skipped,
                Err(e) => return Err(e),
            }
        }
        if out.is_empty() {
            return Err(match (any_metric, no_rate) {
                (true, Some(e)) => e,
                _ => CurveError::NoMetric(format!(" named {metric:?}")),
            });
        }
        // Runs of benchmarks without the metric or a rate are counted on the first curve.
        out[0].1.skipped_runs += skipped_elsewhere;
        Ok(out)
    }
}

impl CurvesBuilder {
    /// Given labels that each hold one rate, a different one, and say it
    /// (`-Dthroughput=150000` before each output of a sweep), name the rate rather than a
    /// condition: the curves of one benchmark that differ only by such labels are one
    /// curve, without a label. Labels that say no rate (`PUT`, `GET` at 1001 and 1000/s)
    /// stay curves of their own.
    fn join_labels_naming_rates(&mut self) {
        let mut by_cell: BTreeMap<CurveKey, Vec<CurveKey>> = BTreeMap::new();
        for k in self.curves.keys().filter(|k| k.label.is_some()) {
            let cell = CurveKey {
                label: None,
                ..k.clone()
            };
            by_cell.entry(cell).or_default().push(k.clone());
        }
        for (cell, keys) in by_cell {
            let mut rates: Vec<u64> = Vec::new();
            let one_rate_each = keys.iter().all(|k| {
                let b = &self.curves[k];
                let mine: Vec<u64> = b.by_rate.keys().copied().collect();
                let ok = mine.len() == 1
                    && !rates.contains(&mine[0])
                    && k.label
                        .as_deref()
                        .is_some_and(|l| names_rate(l, f64::from_bits(mine[0])));
                rates.extend(mine);
                ok
            });
            // Unlabelled runs of the benchmark join too when they state no rate (a sweep's
            // unmarked outputs): they stay counted as skipped. With rates of their own they
            // are another curve.
            let unlabelled_rates = self.curves.get(&cell).map(|b| !b.by_rate.is_empty());
            if keys.len() < 2 || !one_rate_each || unlabelled_rates == Some(true) {
                continue;
            }
            let mut joined: Option<CurveBuilder> = self.curves.remove(&cell);
            for k in keys {
                if let Some(b) = self.curves.remove(&k) {
                    match joined.as_mut() {
                        Some(j) => j.absorb(b),
                        None => joined = Some(b),
                    }
                }
            }
            if let Some(j) = joined {
                self.curves.insert(cell, j);
            }
        }
    }
}

/// Whether `label` says `rate`: one of its numbers (digits, with `_` or `,` between
/// groups, and an optional `k` or `M`) is the rate to within 1%.
fn names_rate(label: &str, rate: f64) -> bool {
    let chars: Vec<char> = label.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let mut digits = String::new();
        while i < chars.len()
            && (chars[i].is_ascii_digit()
                || chars[i] == '.'
                || (matches!(chars[i], '_' | ',')
                    && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
        {
            if chars[i] != '_' && chars[i] != ',' {
                digits.push(chars[i]);
            }
            i += 1;
        }
        let scale = match chars.get(i) {
            Some('k' | 'K') => 1e3,
            Some('M') => 1e6,
            _ => 1.0,
        };
        if let Ok(v) = digits.trim_end_matches('.').parse::<f64>()
            && (v * scale - rate).abs() <= 0.01 * rate.abs()
        {
            return true;
        }
    }
    false
}

/// The whole curve.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    pub metric: String,
    pub unit: String,
    /// Sorted by throughput, then percentile.
    pub points: Vec<CurvePoint>,
    /// Throughput at the knee (see [`knee`]); `None` with no knee among the points.
    pub knee: Option<f64>,
    /// The percentile the knee was found on.
    pub knee_percentile: Option<f64>,
    pub slo: Vec<SloTerm>,
    /// Highest throughput meeting every SLO term; `None` without an SLO or when none does.
    pub max_throughput_within_slo: Option<f64>,
    /// Runs without a throughput or without the metric.
    pub skipped_runs: usize,
    /// The servers its runs measured (wrk's URL) when there are several: runs of other
    /// benchmarks, perhaps, on one curve; empty for one.
    pub servers: Vec<String>,
}

/// Builds the curve of `metric` (default: `end_to_end`, else `latency`, else the first
/// ladder metric) at `percentiles`, with an optional SLO.
pub fn curve(
    runs: &[StoredRun],
    metric: Option<&str>,
    percentiles: &[f64],
    slo: Option<&str>,
) -> Result<Curve, CurveError> {
    // A malformed SLO is reported before anything about the runs.
    slo.map(parse_slo).transpose()?;
    let metric = match metric {
        Some(m) => m.to_string(),
        None => {
            let mut chooser = MetricChooser::default();
            for r in runs {
                chooser.see(r);
            }
            chooser
                .choice()
                .ok_or_else(|| CurveError::NoMetric(String::new()))?
        }
    };
    let mut b = CurveBuilder::new(metric, percentiles, slo)?;
    for run in runs {
        b.add(run);
    }
    b.finish()
}

/// Throughput bits → (throughput, percentile key → values, mean latencies in seconds).
type ByRate = BTreeMap<u64, (f64, BTreeMap<Option<i64>, Vec<f64>>, Vec<f64>)>;

/// A curve built one run at a time ([`curve`] over a stream): it keeps the values at
/// the wanted percentiles per throughput, never the runs.
#[derive(Debug)]
pub struct CurveBuilder {
    metric: String,
    percentiles: Vec<f64>,
    slo: Vec<SloTerm>,
    wanted: Vec<f64>,
    unit: Option<String>,
    by_rate: ByRate,
    skipped: usize,
    seen_metric: bool,
    /// The servers its runs measured ([`SERVER_PARAMS`]).
    servers: BTreeSet<String>,
}

/// Parameters naming the server a run measured: wrk's URL. Not configuration (an
/// ephemeral port or a container's address changes from one CI run to the next), so a
/// curve of runs against several is said to be one.
const SERVER_PARAMS: &[&str] = &["url"];

impl CurveBuilder {
    /// A curve of `metric` at `percentiles`; errors on a malformed SLO.
    pub fn new(
        metric: String,
        percentiles: &[f64],
        slo: Option<&str>,
    ) -> Result<CurveBuilder, CurveError> {
        let slo = slo.map(parse_slo).transpose()?.unwrap_or_default();
        let mut wanted: Vec<f64> = percentiles.to_vec();
        wanted.extend(slo.iter().map(|t| t.percentile));
        wanted.sort_by(f64::total_cmp);
        wanted.dedup();
        Ok(CurveBuilder {
            metric,
            percentiles: percentiles.to_vec(),
            slo,
            wanted,
            unit: None,
            by_rate: BTreeMap::new(),
            skipped: 0,
            seen_metric: false,
            servers: BTreeSet::new(),
        })
    }

    /// Takes in `other`'s values (converted to this curve's unit) and counts.
    fn absorb(&mut self, other: CurveBuilder) {
        self.skipped += other.skipped;
        self.seen_metric |= other.seen_metric;
        self.servers.extend(other.servers);
        let from = other.unit.unwrap_or_default();
        let to = self.unit.get_or_insert_with(|| from.clone()).clone();
        for (bits, (rate, values, means)) in other.by_rate {
            let entry = self
                .by_rate
                .entry(bits)
                .or_insert_with(|| (rate, BTreeMap::new(), Vec::new()));
            for (p, vs) in values {
                let slot = entry.1.entry(p).or_default();
                slot.extend(vs.into_iter().filter_map(|v| convert(v, &from, &to)));
            }
            entry.2.extend(means);
        }
    }

    /// Adds one run's values.
    pub fn add(&mut self, run: &StoredRun) {
        let Some(s) = run.series(&self.metric) else {
            self.skipped += 1;
            return;
        };
        self.seen_metric = true;
        let Some(rate) = throughput(run) else {
            self.skipped += 1;
            return;
        };
        for key in SERVER_PARAMS {
            if let Some(server) = run.run.params.get(*key) {
                self.servers.insert(server.to_string());
            }
        }
        let u = self.unit.get_or_insert_with(|| s.unit.clone()).clone();
        let entry = self
            .by_rate
            .entry(rate.to_bits())
            .or_insert_with(|| (rate, BTreeMap::new(), Vec::new()));
        let printed = run.series(&format!("{}_distribution", s.metric));
        for (p, v) in run_values(s, printed, &self.wanted) {
            if let Some(v) = convert(v, &s.unit, &u) {
                entry.1.entry(p.map(key)).or_default().push(v);
            }
        }
        // A printed distribution's mean is its histogram's (wrk2's `latency`).
        let mean = mean_seconds(s).or_else(|| {
            let histogram = s.metric.strip_suffix("_distribution")?;
            mean_seconds(run.series(histogram)?)
        });
        if let Some(w) = mean {
            entry.2.push(w);
        }
    }

    /// The curve of the runs added.
    pub fn finish(self) -> Result<Curve, CurveError> {
        let CurveBuilder {
            metric,
            percentiles,
            slo,
            unit,
            by_rate,
            skipped,
            seen_metric,
            servers,
            ..
        } = self;
        if !seen_metric {
            return Err(CurveError::NoMetric(format!(" named {metric:?}")));
        }
        if by_rate.is_empty() {
            return Err(CurveError::NoThroughput(metric));
        }
        let unit = unit.unwrap_or_default();
        let mut rates: Vec<_> = by_rate.values().collect();
        rates.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut points = Vec::new();
        for (rate, cells, means) in rates {
            let concurrency = median(means).map(|w| rate * w);
            for (p, values) in cells {
                if values.is_empty() {
                    continue;
                }
                points.push(CurvePoint {
                    throughput: *rate,
                    percentile: p.map(unkey),
                    value: median(values).unwrap_or(f64::NAN),
                    min: values.iter().copied().fold(f64::INFINITY, f64::min),
                    max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                    runs: values.len(),
                    concurrency,
                });
            }
        }
        let knee_percentile = knee_percentile(&points, &percentiles);
        // Runs against several servers may be several benchmarks: no knee across them.
        let knee = if servers.len() > 1 {
            None
        } else {
            knee(&series_at(&points, knee_percentile))
        };
        if let Some(t) = slo.first()
            && points.iter().all(|p| p.percentile.is_none())
        {
            // An SLO names percentiles; a single value (a mean `rt`) is none of them.
            return Err(CurveError::SloWithoutPercentiles {
                term: t.text.clone(),
                metric,
            });
        }
        let max_throughput_within_slo = if slo.is_empty() {
            None
        } else {
            max_within(&points, &slo, &unit)?
        };
        Ok(Curve {
            metric,
            unit,
            points,
            knee,
            knee_percentile,
            slo,
            max_throughput_within_slo,
            skipped_runs: skipped,
            servers: if servers.len() > 1 {
                servers.into_iter().collect()
            } else {
                Vec::new()
            },
        })
    }
}

/// What a curve of runs against several servers says of them ([`Curve::servers`]);
/// `None` for one.
pub fn servers_note(servers: &[String]) -> Option<String> {
    let first = servers.first()?;
    let names = crate::numfmt::first_names(servers, 3);
    Some(format!(
        "its runs measured {} servers ({names}): different benchmarks, perhaps, on one curve; select one with param.url={first}",
        servers.len()
    ))
}

/// The default metric of a curve, found one run at a time: `end_to_end` if any run has
/// it, else `latency`, else the first ladder metric, else the first metric named a
/// latency (zk-latencies' per-operation `created_permanent_latency`), else the first
/// latency metric (one that is only a time, such as zk-latencies'
/// `created_permanent_total`, the wall time of all its operations).
/// Runs without their points (heads) do: only names, units and shapes are read.
#[derive(Debug, Default)]
pub struct MetricChooser {
    end_to_end: bool,
    latency: bool,
    first_ladder: Option<String>,
    first_named_latency: Option<String>,
    first_latency: Option<String>,
}

impl MetricChooser {
    pub fn see(&mut self, run: &StoredRun) {
        for s in &run.run.series {
            self.end_to_end |= s.metric == "end_to_end";
            self.latency |= s.metric == "latency";
            if self.first_ladder.is_none() && s.ladder().is_some() {
                self.first_ladder = Some(s.metric.clone());
            }
            if kind(&s.metric, &s.unit, false) != Kind::Latency {
                continue;
            }
            if self.first_named_latency.is_none() && names_a_latency(&s.metric) {
                self.first_named_latency = Some(s.metric.clone());
            }
            if self.first_latency.is_none() {
                self.first_latency = Some(s.metric.clone());
            }
        }
    }

    pub fn choice(&self) -> Option<String> {
        if self.end_to_end {
            return Some("end_to_end".to_string());
        }
        if self.latency {
            return Some("latency".to_string());
        }
        self.first_ladder
            .clone()
            .or_else(|| self.first_named_latency.clone())
            .or_else(|| self.first_latency.clone())
    }
}

/// Whether a metric's name says it is a latency (`latency`, `set_latency`, `lat.avg`).
fn names_a_latency(metric: &str) -> bool {
    metric
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| w.eq_ignore_ascii_case("latency") || w.eq_ignore_ascii_case("lat"))
}

fn key(p: f64) -> i64 {
    (p * 1e6).round() as i64
}

fn unkey(k: i64) -> f64 {
    k as f64 / 1e6
}

/// A run's throughput (see the module doc).
pub fn throughput(run: &StoredRun) -> Option<f64> {
    if let Some(t) = run
        .param_f64("target_throughput")
        .or_else(|| run.param_f64("achieved_throughput"))
    {
        return Some(t);
    }
    let rates: Vec<&Series> = run
        .run
        .series
        .iter()
        .filter(|s| !s.metric.ends_with(&concurrency_metric("")))
        .filter(|s| s.ladder().is_none() && kind(&s.metric, &s.unit, false) == Kind::Throughput)
        .collect();
    // A whole run's rate per second first: wrk prints its threads' `Req/Sec` and its
    // request count before the run's `Requests/sec` (threads × the first).
    rates
        .iter()
        .min_by_key(|s| (s.metric.contains("per_thread"), !is_rate_unit(&s.unit)))
        .and_then(|s| series_mean(s))
}

fn series_mean(s: &Series) -> Option<f64> {
    match &s.data {
        Data::TimeSeries { points } => {
            mean(&points.iter().filter_map(|p| p.value).collect::<Vec<_>>())
        }
        Data::Value { value } => *value,
        _ => None,
    }
}

/// (percentile or None, value) pairs of one run's series. A percentile a spectrum has no
/// row at is read from the distribution printed from the same histogram (`printed`:
/// wrk2's `latency_distribution` beside its spectrum `latency`), as the gate reads `p99`,
/// else from the spectrum ([`at_percentile`]).
fn run_values(s: &Series, printed: Option<&Series>, wanted: &[f64]) -> Vec<(Option<f64>, f64)> {
    let exact = |points: &[LadderPoint], p: f64| {
        points
            .iter()
            .find(|lp| (lp.percentile - p).abs() < 1e-9)
            .and_then(|lp| lp.value)
    };
    match s.ladder() {
        Some(points) => wanted
            .iter()
            .filter_map(|&p| {
                let v = exact(points, p)
                    .or_else(|| {
                        let rows = printed?.ladder()?;
                        convert(exact(rows, p)?, &printed?.unit, &s.unit)
                    })
                    .or_else(|| at_percentile(points, p))?;
                v.is_finite().then_some((Some(p), v))
            })
            .collect(),
        None => series_mean(s).map(|v| vec![(None, v)]).unwrap_or_default(),
    }
}

/// The value of a ladder at percentile `p` where it has no row at `p`: in a spectrum (wrk2's detailed spectrum and HdrHistogram's dumps list 99.0625, not 99),
/// the value of its first row at or above `p`, as HdrHistogram reads a value at a
/// percentile (the exact value lies between that row and the one before, never above
/// it); `None` in a sparse ladder (wrk's 50, 75, 90, 99 has no p95), told by the row's
/// distance: its tail must hold at least half of `p`'s.
fn at_percentile(points: &[LadderPoint], p: f64) -> Option<f64> {
    let below = points.iter().any(|lp| lp.percentile < p);
    let above = points
        .iter()
        .filter(|lp| lp.percentile > p && lp.value.is_some())
        .min_by(|a, b| a.percentile.total_cmp(&b.percentile))?;
    (below && 100.0 - above.percentile >= (100.0 - p) / 2.0)
        .then_some(above.value)
        .flatten()
}

/// The run's mean latency in seconds: the printed `mean` (k6: `avg`) of a ladder, the mean of a
/// response-time series (an `rt` without unit is in ms, as in Little's-law derivation).
fn mean_seconds(s: &Series) -> Option<f64> {
    let per = if s.unit.trim().is_empty() && s.metric.rsplit('.').next() == Some("rt") {
        Some(1e-3)
    } else {
        // A time per operation (`ms/op`, zk-latencies) is a latency like a bare time.
        let unit = s.unit.trim();
        seconds_per(unit.strip_suffix("/op").unwrap_or(unit))
    }?;
    let m = match s.ladder() {
        Some(_) => s.stats.get("mean").or_else(|| s.stats.get("avg")).copied(),
        None => series_mean(s),
    }?;
    Some(m * per)
}

/// The percentile the knee is read on: among the shown percentiles below the worst, the
/// one measured at the most throughputs; on ties p99, then the highest. `None` for a
/// metric without percentiles (its points have none either).
fn knee_percentile(points: &[CurvePoint], shown: &[f64]) -> Option<f64> {
    let rates = |p: f64| points.iter().filter(|c| c.percentile == Some(p)).count();
    shown
        .iter()
        .copied()
        .filter(|&p| p < 100.0 && rates(p) > 0)
        .max_by(|&a, &b| {
            (rates(a), a == 99.0)
                .cmp(&(rates(b), b == 99.0))
                .then(a.total_cmp(&b))
        })
}

fn series_at(points: &[CurvePoint], p: Option<f64>) -> Vec<(f64, f64)> {
    points
        .iter()
        .filter(|c| c.percentile == p)
        .map(|c| (c.throughput, c.value))
        .collect()
}

/// The knee of a (throughput, latency) series sorted by throughput: the point of maximum
/// *power* throughput/latency (Kleinrock 1979, "Power and deterministic rules of thumb for
/// probabilistic problems in computer communications", ICC; Jain 1991, *The Art of
/// Computer Systems Performance Analysis*, §3.3 "knee capacity"). Past it latency grows
/// faster than throughput (elasticity d ln L / d ln T > 1). `None` when the maximum is the
/// last point (latency never outgrew throughput), with fewer than [`KNEE_MIN_RATES`]
/// points, or with a non-positive latency.
pub fn knee(series: &[(f64, f64)]) -> Option<f64> {
    if series.len() < KNEE_MIN_RATES || series.iter().any(|&(_, l)| l <= 0.0) {
        return None;
    }
    let (i, _) = series
        .iter()
        .enumerate()
        .max_by(|a, b| (a.1.0 / a.1.1).total_cmp(&(b.1.0 / b.1.1)))?;
    (i + 1 < series.len()).then_some(series[i].0)
}

/// The fewest throughputs a knee is called on: with two or three, the maximum of
/// throughput/latency is an artefact of where the rates were put, not a bend of the curve.
pub const KNEE_MIN_RATES: usize = 4;

fn max_within(
    points: &[CurvePoint],
    slo: &[SloTerm],
    unit: &str,
) -> Result<Option<f64>, CurveError> {
    let mut limits = Vec::new();
    for t in slo {
        let from = if t.unit.is_empty() { unit } else { &t.unit };
        let limit = convert(t.limit, from, unit).ok_or_else(|| CurveError::SloUnit {
            term: t.text.clone(),
            unit: t.unit.clone(),
            metric_unit: unit.to_string(),
        })?;
        limits.push((t, limit));
    }
    let mut rates: Vec<f64> = points.iter().map(|c| c.throughput).collect();
    rates.dedup();
    Ok(rates.into_iter().rev().find(|&rate| {
        limits.iter().all(|(t, limit)| {
            points.iter().any(|c| {
                c.throughput == rate
                    && c.percentile
                        .is_some_and(|p| (p - t.percentile).abs() < 1e-9)
                    && if t.strict {
                        c.value < *limit
                    } else {
                        c.value <= *limit
                    }
            })
        })
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::testdata::*;
    use bench_db_parsers::Param;

    /// Four rates; p90 bends hard at 20k/s as in the seed 000 article (62 µs at 5k/s).
    fn sweep() -> Vec<StoredRun> {
        let mut runs = rate_runs(
            5000.0,
            "end_to_end",
            &[
                (50.0, &[20.0, 21.0, 22.0]),
                (90.0, &[60.0, 62.46, 64.0]),
                (99.0, &[90.0, 95.0, 99.0]),
            ],
            1,
        );
        runs.extend(rate_runs(
            10_000.0,
            "end_to_end",
            &[
                (50.0, &[22.0, 23.0, 24.0]),
                (90.0, &[70.0, 75.0, 80.0]),
                (99.0, &[120.0, 130.0, 150.0]),
            ],
            4,
        ));
        runs.extend(rate_runs(
            20_000.0,
            "end_to_end",
            &[
                (50.0, &[35.0, 41.98, 33.79]),
                (90.0, &[300.0, 450.0, 390.0]),
                (99.0, &[900.0, 1100.0, 1000.0]),
            ],
            7,
        ));
        runs.extend(rate_runs(
            40_000.0,
            "end_to_end",
            &[
                (50.0, &[80.0, 90.0, 85.0]),
                (90.0, &[900.0, 1000.0, 950.0]),
                (99.0, &[2900.0, 3000.0, 3100.0]),
            ],
            10,
        ));
        runs
    }

    #[test]
    fn medians_knee_and_slo() {
        let c = curve(&sweep(), None, &[50.0, 90.0, 99.0], Some("p99<=200us")).unwrap();
        assert_eq!(c.metric, "end_to_end");
        assert_eq!(c.points.len(), 12);
        let p90_5k = c
            .points
            .iter()
            .find(|p| p.throughput == 5000.0 && p.percentile == Some(90.0))
            .unwrap();
        assert_eq!(
            (p90_5k.value, p90_5k.min, p90_5k.max, p90_5k.runs),
            (62.46, 60.0, 64.0, 3)
        );
        // Power T/L at p99: 5000/95 = 52.6, 10000/130 = 76.9, 20000/1000 = 20, 40000/3000 =
        // 13.3: knee at 10k/s.
        assert_eq!(c.knee, Some(10_000.0));
        assert_eq!(c.knee_percentile, Some(99.0));
        assert_eq!(c.max_throughput_within_slo, Some(10_000.0));
        let c = curve(&sweep(), None, &[50.0], Some("p99<=0.1ms, p50<25us")).unwrap();
        assert_eq!(c.max_throughput_within_slo, Some(5000.0));
        // p99 is added to the points because the SLO names it.
        assert!(c.points.iter().any(|p| p.percentile == Some(99.0)));
    }

    #[test]
    fn runs_far_behind_their_schedule_are_marked() {
        let mut r = sweep().remove(0);
        let t = r.param_f64("target_throughput").unwrap();
        assert!(!missed_schedule(&r));
        r.run
            .params
            .insert("achieved_throughput".into(), Param::Num(0.95 * t));
        assert!(!missed_schedule(&r));
        r.run
            .params
            .insert("achieved_throughput".into(), Param::Num(0.5 * t));
        assert!(missed_schedule(&r));
        // The runner's own mark wins.
        r.run
            .params
            .insert("missed_schedule".into(), Param::Bool(false));
        assert!(!missed_schedule(&r));
    }

    #[test]
    fn slo_parsing_and_errors() {
        let t = parse_slo("p99<=200us,pmax<1ms").unwrap();
        assert_eq!(t[0].percentile, 99.0);
        assert_eq!(
            (t[0].limit, t[0].unit.as_str(), t[0].strict),
            (200.0, "us", false)
        );
        assert_eq!((t[1].percentile, t[1].strict), (100.0, true));
        for bad in ["p99=200us", "q99<=1", "p99<=fast", "p101<=1ms"] {
            assert!(parse_slo(bad).is_err(), "{bad}");
        }
        // A limit without a unit is ambiguous (µs? ms?): an error, not a guess.
        assert_eq!(
            parse_slo("p99<200"),
            Err(CurveError::SloNoUnit("p99<200".into()))
        );
        assert!(matches!(
            curve(&sweep(), None, &[99.0], Some("p99<=5%")),
            Err(CurveError::SloUnit { .. })
        ));
    }

    #[test]
    fn knee_rules() {
        assert_eq!(
            knee(&[(1.0, 10.0), (2.0, 10.0), (3.0, 10.0), (4.0, 10.0)]),
            None
        );
        assert_eq!(
            knee(&[(1.0, 10.0), (2.0, 10.0), (3.0, 40.0), (4.0, 90.0)]),
            Some(2.0)
        );
        // Two or three rates never make a knee, however they bend.
        assert_eq!(knee(&[(1.0, 10.0), (2.0, 10.0), (3.0, 40.0)]), None);
        assert_eq!(knee(&[(1.0, 10.0), (2.0, 40.0)]), None);
        assert_eq!(knee(&[(1.0, 10.0)]), None);
    }

    #[test]
    fn throughput_from_a_qps_series_and_concurrency() {
        let mut runs = seed003_master();
        runs.extend(seed003_patch());
        let c = curve(&runs, Some("ts.rt"), &[99.0], None).unwrap();
        assert_eq!(c.points.len(), 2);
        assert_eq!(c.points[0].percentile, None);
        // 91.87K/s × 3.388 ms ≈ 319 requests in flight.
        let l = c
            .points
            .iter()
            .find(|p| (p.value - 3.388).abs() < 1e-9)
            .unwrap()
            .concurrency;
        assert!((l.unwrap() - 318.7).abs() < 1.0, "{l:?}");
        assert!(matches!(
            curve(&seed004_before(), Some("latency_avg"), &[99.0], None),
            Err(CurveError::NoThroughput(_))
        ));
        assert!(matches!(
            curve(&runs, Some("nope"), &[99.0], None),
            Err(CurveError::NoMetric(_))
        ));
    }

    /// zk-latencies prints per operation a total (ms for all 10,000 operations), a
    /// per-operation latency and a rate: the latency is the default.
    #[test]
    fn a_metric_named_latency_wins_over_a_time_total() {
        let mut r = seed003_master().remove(0);
        let value = |metric: &str, unit: &str, v: f64| Series {
            metric: metric.into(),
            display: metric.into(),
            unit: unit.into(),
            data: Data::Value { value: Some(v) },
            stats: BTreeMap::new(),
        };
        // fixtures/real/zk-latencies: created_permanent 3280 ms total, 0.32807 ms each.
        r.run.series = vec![
            value("created_permanent_total", "ms", 3280.0),
            value("created_permanent_latency", "ms", 0.32807),
            value("created_permanent_rate", "ops/s", 3048.128008),
        ];
        let mut chooser = MetricChooser::default();
        chooser.see(&r);
        assert_eq!(
            chooser.choice().as_deref(),
            Some("created_permanent_latency")
        );
        assert!(names_a_latency("lat.avg") && !names_a_latency("translation_total"));
        // zk-latencies stores it per operation: a time all the same, for Little's law.
        let per_op = value("created_permanent_latency", "ms/op", 0.32807);
        let secs = mean_seconds(&per_op).unwrap();
        assert!((secs - 0.00032807).abs() < 1e-15, "{secs}");
        assert_eq!(mean_seconds(&value("b_op", "B/op", 10.0)), None);
    }

    /// An SLO names a percentile; a metric of single values has none, and says so rather
    /// than finding no throughput that meets it.
    #[test]
    fn an_slo_on_single_values_says_they_have_no_percentile() {
        let mut runs = seed003_master();
        runs.extend(seed003_patch());
        assert_eq!(
            curve(&runs, Some("ts.rt"), &[99.0], Some("p50<=15ms")),
            Err(CurveError::SloWithoutPercentiles {
                term: "p50<=15ms".into(),
                metric: "ts.rt".into()
            })
        );
        assert!(curve(&runs, Some("ts.rt"), &[99.0], None).is_ok());
    }

    /// A curve is its cell less the rate: the target rate and the interval that restates
    /// it vary along the curve; another setting (a message size) or a given label is
    /// another curve; runs whose rate is measured are not split by their settings.
    #[test]
    fn curves_split_by_configuration_less_the_rate_and_by_given_label() {
        let set = |runs: &mut Vec<StoredRun>, key: &str, v: f64| {
            for r in runs.iter_mut() {
                r.run.params.insert(key.into(), Param::Num(v));
                r.run.config.insert(key.into());
            }
        };
        let mut small = sweep();
        for r in &mut small {
            let interval = 1e6 / r.param_f64(RATE_KEY).unwrap();
            r.run
                .params
                .insert("interval_us".into(), Param::Num(interval));
            r.run.config.extend([RATE_KEY.into(), "interval_us".into()]);
        }
        set(&mut small, "msg_size", 14.0);
        let mut large = small.clone();
        set(&mut large, "msg_size", 1400.0);
        let mut relabelled = small.clone();
        for (i, r) in large.iter_mut().chain(&mut relabelled).enumerate() {
            r.id = 100 + i as i64;
        }
        for r in &mut relabelled {
            r.label = "patched".into();
        }
        let mut b = CurvesBuilder::new("end_to_end".into(), &[90.0], None).unwrap();
        for r in small.iter().chain(&large).chain(&relabelled) {
            b.add(r).unwrap();
        }
        let curves = b.finish().unwrap();
        let titles: Vec<String> = curves.iter().map(|(k, _)| k.title()).collect();
        assert_eq!(
            titles,
            [
                "[msg_size=14] (patched)",
                "[msg_size=14] (runs)",
                "[msg_size=1400] (runs)"
            ]
        );
        for (_, c) in &curves {
            // Each holds its 4 rates of 3 runs, and so finds the knee at 10k/s.
            assert_eq!(c.points.len(), 4);
            assert!(c.points.iter().all(|p| p.runs == 3));
            assert_eq!(c.knee, Some(10_000.0));
        }
        // A measured rate (no target): settings are what moved the load, one curve.
        let mut measured = small.clone();
        for r in measured.iter_mut() {
            let rate = r.run.params.remove(RATE_KEY).unwrap();
            r.run.params.insert("achieved_throughput".into(), rate);
            r.run.config.remove(RATE_KEY);
        }
        for (i, r) in measured.iter_mut().enumerate() {
            r.run
                .params
                .insert("threads".into(), Param::Num(if i < 6 { 1.0 } else { 8.0 }));
            r.run.config.insert("threads".into());
        }
        assert_eq!(CurveKey::of(&measured[0]), CurveKey::of(&measured[11]));
        assert!(CurveKey::of(&measured[0]).config.is_empty());
    }

    /// A sweep whose outputs each carry a lead line naming their rate is one curve: such
    /// labels name the rate, not a condition.
    #[test]
    fn labels_that_each_name_one_rate_are_one_curve() {
        let mut runs = sweep();
        for r in &mut runs {
            r.label = format!("-Dthroughput={}", r.param_f64(RATE_KEY).unwrap());
        }
        let mut b = CurvesBuilder::new("end_to_end".into(), &[90.0], None).unwrap();
        for r in &runs {
            b.add(r).unwrap();
        }
        let curves = b.finish().unwrap();
        assert_eq!(curves.len(), 1);
        assert_eq!(curves[0].0.label, None);
        assert_eq!(curves[0].1.points.len(), 4);
        assert_eq!(curves[0].1.knee, Some(10_000.0));
        // Labels that say no rate (two endpoints at 1001 and 1000/s) stay apart.
        for r in &mut runs {
            r.label = format!("endpoint {}", r.param_f64(RATE_KEY).unwrap() as u64 % 7);
        }
        let mut b = CurvesBuilder::new("end_to_end".into(), &[90.0], None).unwrap();
        for r in &runs {
            b.add(r).unwrap();
        }
        assert!(b.finish().unwrap().len() > 1);
    }

    /// A spectrum (wrk2's rows at 98.9062, 99.0625, …) has no row at 99: its first row at
    /// or above it is read; a sparse ladder (50, 75, 90, 99) gives no p95.
    #[test]
    fn a_spectrum_is_read_at_its_first_row_at_or_above_a_percentile() {
        let rows = |pairs: &[(f64, f64)]| -> Vec<LadderPoint> {
            pairs
                .iter()
                .map(|&(percentile, v)| LadderPoint {
                    percentile,
                    value: Some(v),
                    line_value: None,
                })
                .collect()
        };
        let spectrum = rows(&[
            (98.4375, 2.6),
            (98.9062, 2.9),
            (99.0625, 2.96),
            (100.0, 9.0),
        ]);
        assert_eq!(at_percentile(&spectrum, 99.0), Some(2.96));
        let sparse = rows(&[(50.0, 1.0), (75.0, 1.5), (90.0, 2.0), (99.0, 3.0)]);
        assert_eq!(at_percentile(&sparse, 95.0), None);
        assert_eq!(at_percentile(&sparse, 99.9), None);
        assert_eq!(at_percentile(&sparse, 10.0), None);
    }

    #[test]
    fn a_label_names_a_rate_in_digits_or_with_k_and_m() {
        assert!(names_rate("-Dthroughput=150000", 150_000.0));
        assert!(names_rate("at 20k msgs/s", 20_000.0));
        assert!(names_rate("1.5M/s", 1_500_000.0));
        assert!(names_rate("rate 1,000,000", 1e6));
        assert!(names_rate("-R1001", 1001.0));
        assert!(!names_rate("PUT-запросами", 1001.0));
        assert!(!names_rate("run 2 of 4", 1000.0));
    }
}
