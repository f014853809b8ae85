//! Before/after deltas of two groups of runs, per metric and percentile: the central
//! value of each side and the change in percent. This is the plain computation used
//! when no statistical comparison is supplied: no confidence interval and the
//! verdict `n/a`.

use super::series::by_percentile;
use super::timeseries::points_of;
use crate::dataset::StoredRun;
use crate::stats::variation::median_in_place;
use bench_db_parsers::Data;

/// One compared cell.
#[derive(Debug, Clone, PartialEq)]
pub struct Delta {
    pub metric: String,
    /// Display name as printed by the tool.
    pub display: String,
    pub unit: String,
    /// Percentile for ladder metrics.
    pub percentile: Option<f64>,
    pub baseline: Option<f64>,
    pub candidate: Option<f64>,
    /// `100 · (candidate − baseline) / |baseline|`; `None` when undefined.
    pub delta_pct: Option<f64>,
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
    /// `better`, `worse`, `same`, `insufficient` or `n/a`.
    pub verdict: String,
}

impl Delta {
    /// The row name: the display name, with the percentile for ladder cells.
    pub fn name(&self) -> String {
        match self.percentile {
            Some(p) => format!("{} {}", self.display, super::fmt::percentile_name(p)),
            None => self.display.clone(),
        }
    }
}

/// The per-side central values of one metric: per percentile for ladders (median
/// across runs), else one value (mean of every sample or value of the side).
fn side(runs: &[&StoredRun], metric: &str) -> Vec<(Option<f64>, f64)> {
    let mut ladders: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut samples: Vec<f64> = Vec::new();
    for r in runs {
        let Some(s) = r.series(metric) else { continue };
        match &s.data {
            Data::Ladder { points, .. } | Data::Histogram { points, .. } => ladders.push(
                points
                    .iter()
                    .filter_map(|p| p.value.map(|v| (p.percentile, v)))
                    .collect(),
            ),
            Data::TimeSeries { .. } => samples.extend(
                points_of(r, metric)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|p| p.1),
            ),
            Data::Value { value } => samples.extend(value.filter(|v| v.is_finite())),
        }
    }
    if !ladders.is_empty() {
        return by_percentile(ladders.iter().map(Vec::as_slice))
            .into_iter()
            .filter_map(|(p, mut v)| median_in_place(&mut v).map(|m| (Some(p), m)))
            .collect();
    }
    if samples.is_empty() {
        return Vec::new();
    }
    vec![(None, samples.iter().sum::<f64>() / samples.len() as f64)]
}

/// `100 · (c − b) / |b|`, `None` for a zero or missing baseline.
pub fn delta_pct(b: f64, c: f64) -> Option<f64> {
    (b != 0.0 && b.is_finite() && c.is_finite()).then(|| 100.0 * (c - b) / b.abs())
}

/// Every metric present on both sides (in the baseline's order), cell by cell.
pub fn simple(baseline: &[&StoredRun], candidate: &[&StoredRun]) -> Vec<Delta> {
    let mut metrics: Vec<(String, String, String)> = Vec::new();
    for r in baseline {
        for s in &r.run.series {
            if !metrics.iter().any(|m| m.0 == s.metric) {
                metrics.push((s.metric.clone(), s.display.clone(), s.unit.clone()));
            }
        }
    }
    let mut out = Vec::new();
    for (metric, display, unit) in metrics {
        let b = side(baseline, &metric);
        let c = side(candidate, &metric);
        for (p, bv) in &b {
            let Some((_, cv)) = c.iter().find(|(cp, _)| cp == p) else {
                continue;
            };
            out.push(Delta {
                metric: metric.clone(),
                display: display.clone(),
                unit: unit.clone(),
                percentile: *p,
                baseline: Some(*bv),
                candidate: Some(*cv),
                delta_pct: delta_pct(*bv, *cv),
                ci_low: None,
                ci_high: None,
                verdict: "n/a".to_string(),
            });
        }
    }
    out
}

/// True when both groups have at least one metric in common.
pub fn share_metrics(a: &[&StoredRun], b: &[&StoredRun]) -> bool {
    a.iter()
        .flat_map(|r| r.run.series.iter())
        .any(|s| b.iter().any(|r| r.series(&s.metric).is_some()))
}
