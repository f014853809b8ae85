//! What a history over ingests draws: for each label, target rate and metric of a suite
//! whose runs come from several sources, the value at each percentile run after run in
//! ingest order, with its noise band.

use crate::dataset::StoredRun;
use crate::numfmt as fmt;
use crate::stats::variation::median_in_place;
use std::collections::BTreeSet;

/// Percentiles a history follows, when the ladder has them.
pub const PERCENTILES: [f64; 5] = [50.0, 90.0, 99.0, 99.9, 100.0];

/// One followed value (a percentile, or the value itself).
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryLine {
    pub name: String,
    /// Values in ingest order (`None` where a run lacks it).
    pub values: Vec<Option<f64>>,
    /// Noise band (low, high); `None` when it cannot be estimated.
    pub band: Option<(f64, f64)>,
}

/// What a history chart draws.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryInput {
    pub title: String,
    /// What the values are (the metric's display name): the value axis' caption.
    pub quantity: String,
    pub unit: String,
    pub lines: Vec<HistoryLine>,
    /// What each run in order is (see [`super::about_run`]), for its points' hover text.
    pub runs: Vec<String>,
}

/// The noise band of a value's history: median ± 2 · 1.4826 · MAD (Hampel 1974; the
/// factor makes MAD estimate σ under normality, and ±2σ holds about 95% of the runs).
pub fn noise_band(values: &[f64]) -> Option<(f64, f64)> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.len() < 3 {
        return None;
    }
    let med = median_in_place(&mut v)?;
    let mut dev: Vec<f64> = v.iter().map(|x| (x - med).abs()).collect();
    let sigma = 1.4826 * median_in_place(&mut dev)?;
    Some((med - 2.0 * sigma, med + 2.0 * sigma))
}

/// One history per metric of the runs (one suite's), for metrics whose runs come
/// from at least two sources; runs are ordered by ingest time, then source, block, run.
pub fn from_runs(runs: &[&StoredRun]) -> Vec<HistoryInput> {
    let mut ordered: Vec<&StoredRun> = runs.to_vec();
    ordered.sort_by(|a, b| {
        (&a.ingested_at, a.source_id, a.block_index, a.run.index).cmp(&(
            &b.ingested_at,
            b.source_id,
            b.block_index,
            b.run.index,
        ))
    });
    let mut metrics: Vec<(String, String, String, bool)> = Vec::new();
    for r in &ordered {
        for s in &r.run.series {
            if !metrics.iter().any(|m| m.0 == s.metric) {
                metrics.push((
                    s.metric.clone(),
                    s.display.clone(),
                    s.unit.clone(),
                    s.ladder().is_some(),
                ));
            }
        }
    }
    // The same experiment: one label at one target rate.
    let experiment = |r: &StoredRun| {
        (
            r.label.clone(),
            r.param_f64("target_throughput").map(|t| t.to_bits()),
        )
    };
    // Experiments in first-seen order, each with its runs in order: one pass over the
    // runs, however many experiments there are.
    type Experiment = (String, Option<u64>);
    let mut experiments: Vec<(Experiment, Vec<&StoredRun>)> = Vec::new();
    let mut index: std::collections::HashMap<Experiment, usize> = std::collections::HashMap::new();
    for r in &ordered {
        let e = experiment(r);
        match index.get(&e) {
            Some(&i) => experiments[i].1.push(r),
            None => {
                index.insert(e.clone(), experiments.len());
                experiments.push((e, vec![r]));
            }
        }
    }
    let mut out = Vec::new();
    for (exp, runs) in &experiments {
        for (metric, display, unit, is_ladder) in &metrics {
            let with: Vec<&StoredRun> = runs
                .iter()
                .copied()
                .filter(|r| r.series(metric).is_some())
                .collect();
            if let Some(h) = history_of(&with, metric, display, unit, *is_ladder, exp) {
                out.push(h);
            }
        }
    }
    out
}

/// The history of one metric over one experiment's runs, when they span two sources.
fn history_of(
    with: &[&StoredRun],
    metric: &str,
    display: &str,
    unit: &str,
    is_ladder: bool,
    exp: &(String, Option<u64>),
) -> Option<HistoryInput> {
    let sources: BTreeSet<i64> = with.iter().map(|r| r.source_id).collect();
    if sources.len() < 2 {
        return None;
    }
    let wanted: Vec<Option<f64>> = if is_ladder {
        PERCENTILES.iter().map(|p| Some(*p)).collect()
    } else {
        vec![None]
    };
    let lines: Vec<HistoryLine> = wanted
        .into_iter()
        .filter_map(|p| {
            let values: Vec<Option<f64>> = with.iter().map(|r| r.value_at(metric, p)).collect();
            let present: Vec<f64> = values.iter().flatten().copied().collect();
            if present.len() < 2 {
                return None;
            }
            let name = p.map_or_else(
                || display.to_string(),
                |p| {
                    let n = fmt::percentile_name(p);
                    if p >= 100.0 {
                        n
                    } else {
                        format!("p{}", n.trim_end_matches('%'))
                    }
                },
            );
            Some(HistoryLine {
                name,
                band: noise_band(&present),
                values,
            })
        })
        .collect();
    if lines.is_empty() {
        return None;
    }
    let mut name = exp.0.clone();
    if let Some(t) = exp.1.map(f64::from_bits) {
        if !name.is_empty() {
            name.push_str(" · ");
        }
        name.push_str(&fmt::human(t, "/s"));
    }
    if !name.is_empty() {
        name.push_str(" · ");
    }
    Some(HistoryInput {
        title: format!("{name}{display}: history over {} runs", with.len()),
        quantity: display.to_string(),
        unit: unit.to_string(),
        lines,
        runs: with.iter().map(|r| super::about_run(r)).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn band_is_robust() {
        let (lo, hi) = noise_band(&[10.0, 11.0, 9.0, 10.0, 500.0]).unwrap();
        // median 10, MAD 1 → 10 ± 2.9652
        assert!(
            (lo - 7.0348).abs() < 1e-9 && (hi - 12.9652).abs() < 1e-9,
            "{lo} {hi}"
        );
        assert_eq!(noise_band(&[1.0, 2.0]), None);
    }
}
