//! Before/after comparisons: two groups of runs, their per-cell deltas and, for time
//! series, both sides' values over time. Without explicit sides, consecutive blocks of
//! one source file that share metrics are paired in order (first = baseline).

use super::delta::{self, Delta};
use super::timeseries::{self, TimeSeriesInput};
use super::variation::group_title;
use crate::dataset::StoredRun;
use std::collections::BTreeMap;

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
}

impl Comparison {
    /// `candidate vs baseline`.
    pub fn title(&self) -> String {
        format!("{} vs {}", self.candidate, self.baseline)
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
    let deltas = delta::compare(baseline, candidate);
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
                .filter_map(|r| timeseries::points_of(r, &s.metric))
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
            title: format!("{}: before and after", s.display),
            unit: s.unit.clone(),
            lines: vec![
                (baseline_name.to_string(), b),
                (candidate_name.to_string(), c),
            ],
            elapsed: true,
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
    }
}

/// Pairs blocks of each source in order: blocks 1 and 2, 3 and 4, … when they share a
/// metric (a block without a partner, or sharing nothing, is left alone).
pub fn auto_pairs(runs: &[StoredRun]) -> Vec<Comparison> {
    let mut blocks: BTreeMap<(i64, u32), Vec<&StoredRun>> = BTreeMap::new();
    for r in runs {
        blocks
            .entry((r.source_id, r.block_index))
            .or_default()
            .push(r);
    }
    let mut by_source: BTreeMap<i64, Vec<Vec<&StoredRun>>> = BTreeMap::new();
    for ((source, _), mut b) in blocks {
        b.sort_by_key(|r| r.run.index);
        by_source.entry(source).or_default().push(b);
    }
    let mut out = Vec::new();
    for blocks in by_source.into_values() {
        let mut i = 0;
        while i + 1 < blocks.len() {
            let (a, b) = (&blocks[i], &blocks[i + 1]);
            if delta::share_metrics(a, b) {
                let (an, bn) = (side_name(a, "before"), side_name(b, "after"));
                out.push(compare(&an, a, &bn, b));
                i += 2;
            } else {
                i += 1;
            }
        }
    }
    out
}

fn side_name(runs: &[&StoredRun], fallback: &str) -> String {
    match runs.first() {
        Some(r) if !r.label.is_empty() => group_title(r),
        _ => fallback.to_string(),
    }
}
