//! Run-to-run variation tables: for each group of runs (same suite, benchmark,
//! configuration, label and source block), each metric and each percentile, the per-run values, JLBH's `% Variation`,
//! a robust spread, and the variation the tool printed.

use crate::dataset::{GroupKey, StoredRun};
use crate::stats::variation::{jlbh_variation, robust_cv_pct};
use bench_db_parsers::{Data, Param};
use serde::Serialize;
use std::borrow::Borrow;
use std::collections::{BTreeMap, HashMap};

/// One row of a variation table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VariationRow {
    pub suite: String,
    /// The benchmark the runs measure (`null` for a format that names none).
    pub bench: Option<String>,
    /// Its configuration.
    pub config: BTreeMap<String, Param>,
    pub label: String,
    pub metric: String,
    /// Percentile (worst = 100) for ladders; `None` for single values.
    pub percentile: Option<f64>,
    /// One value per run of the group, in run order (`None` where the run has none).
    pub values: Vec<Option<f64>>,
    /// JLBH's `100·(max−min)/(max+min/2)` over the included runs.
    pub variation_pct: Option<f64>,
    /// The `% Variation` the source printed for this row, if any.
    pub printed_variation_pct: Option<f64>,
    /// The tool's own summary of the row (JMH's score ± error, hyperfine's mean ± σ,
    /// Criterion's estimate and interval, a printed percentile), when it printed one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub printed: Option<super::printed::Headline>,
    /// Robust CV over the included runs: `100·1.4826·MAD/median`.
    pub spread: Option<f64>,
    pub unit: String,
    /// The metric's printed name.
    #[serde(skip)]
    pub display: String,
    /// Run ids, in the order of `values`.
    #[serde(skip)]
    pub run_ids: Vec<i64>,
    /// Run indexes within the block, in the order of `values`.
    #[serde(skip)]
    pub run_indexes: Vec<u32>,
}

/// Builds the variation rows of `runs`, groups in order of their first run.
///
/// Run 1 of each block is left out of the variation and the spread unless
/// `include_first` ([`super::warmup`]: JLBH-layout blocks only).
pub fn variation<R: Borrow<StoredRun>>(
    runs: &[R],
    metric: Option<&str>,
    include_first: bool,
) -> Vec<VariationRow> {
    let mut rows = Vec::new();
    for (key, members) in groups(runs) {
        let config: BTreeMap<String, Param> = members[0]
            .run
            .config_params()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        let run_ids: Vec<i64> = members.iter().map(|r| r.id).collect();
        let run_indexes: Vec<u32> = members.iter().map(|r| r.run.index).collect();
        for m in group_cells(&members, metric, include_first) {
            for c in m.cells {
                rows.push(VariationRow {
                    suite: key.suite.clone(),
                    bench: key.bench.clone(),
                    config: config.clone(),
                    label: key.label.clone(),
                    metric: m.metric.clone(),
                    percentile: c.percentile,
                    values: c.values,
                    variation_pct: c.variation_pct,
                    printed_variation_pct: c.printed_variation_pct,
                    printed: super::printed::beside_variation(&members, &m.metric, c.percentile),
                    spread: c.spread,
                    unit: m.unit.clone(),
                    display: m.display.clone(),
                    run_ids: run_ids.clone(),
                    run_indexes: run_indexes.clone(),
                });
            }
        }
    }
    rows
}

/// How far a recomputed `% Variation` may lie from the printed one: JLBH computes it from
/// values it rounds differently from the ones it prints.
const PRINTED_TOLERANCE: f64 = 0.15;

/// Whether a cell's printed `% Variation` is the one of all its runs (`values`, run 1
/// included), where ours (run 1 left out) differs from it: JLBH run with
/// `skipFirstRun(false)`.
pub fn printed_counts_run_one(
    values: &[Option<f64>],
    ours: Option<f64>,
    printed: Option<f64>,
) -> bool {
    let (Some(printed), Some(ours)) = (printed, ours) else {
        return false;
    };
    let all: Vec<f64> = values.iter().flatten().copied().collect();
    (ours - printed).abs() > PRINTED_TOLERANCE
        && jlbh_variation(&all).is_some_and(|v| (v - printed).abs() <= PRINTED_TOLERANCE)
}

/// What a table says of its `rows` whose printed figure counts run 1
/// ([`printed_counts_run_one`]).
pub fn printed_counts_run_one_note(rows: usize) -> String {
    format!(
        "printed ≠ % Variation on {}: the printed figure counts run 1 (JLBH run with skipFirstRun(false)); --include-first reproduces it",
        crate::numfmt::plural(rows, "row")
    )
}

/// The groups of `runs` (same [`GroupKey`]) in order of their first run, each group's
/// runs in run order.
pub fn groups<R: Borrow<StoredRun>>(runs: &[R]) -> Vec<(GroupKey, Vec<&StoredRun>)> {
    let mut groups: Vec<(GroupKey, Vec<&StoredRun>)> = Vec::new();
    // Group key → position in `groups`: one look-up per run, however many groups.
    let mut index: HashMap<GroupKey, usize> = HashMap::new();
    // The last run's group: the next run is most often of the same one.
    let mut last: Option<(&StoredRun, usize)> = None;
    for r in runs {
        let r = r.borrow();
        let i = match last {
            Some((prev, i)) if prev.same_group(r) => i,
            _ => {
                let key = r.group_key();
                match index.get(&key) {
                    Some(&i) => i,
                    None => {
                        index.insert(key.clone(), groups.len());
                        groups.push((key, Vec::new()));
                        groups.len() - 1
                    }
                }
            }
        };
        groups[i].1.push(r);
        last = Some((r, i));
    }
    for (_, members) in &mut groups {
        members.sort_by_key(|r| (r.run.index, r.id));
    }
    groups
}

/// One metric of a group and its cells, one per percentile (ascending; the single
/// value last).
pub struct MetricCells {
    pub metric: String,
    pub display: String,
    pub unit: String,
    pub cells: Vec<Cell>,
}

/// One percentile (or the single value) of a metric over a group's runs.
pub struct Cell {
    pub percentile: Option<f64>,
    /// One value per run, in run order.
    pub values: Vec<Option<f64>>,
    pub variation_pct: Option<f64>,
    pub printed_variation_pct: Option<f64>,
    pub spread: Option<f64>,
}

/// The cells of one group's runs (`members`, in run order) for each of its metrics
/// (`metric` alone when given): see [`variation`].
pub fn group_cells(
    members: &[&StoredRun],
    metric: Option<&str>,
    include_first: bool,
) -> Vec<MetricCells> {
    // Every run of a block carries the block's printed numbers, or (streamed reads)
    // only one of them does.
    let printed = members
        .iter()
        .find(|r| !r.printed.is_empty())
        .map_or(&[][..], |r| r.printed.as_slice());
    metrics_of(members, metric)
        .into_iter()
        .map(|(name, display, unit)| {
            let cells = percentiles_of(members, &name)
                .into_iter()
                .map(|p| {
                    let values: Vec<Option<f64>> =
                        members.iter().map(|r| r.value_at(&name, p)).collect();
                    let included: Vec<f64> = members
                        .iter()
                        .zip(&values)
                        .filter(|(r, _)| include_first || !super::warmup::is_warmup(r))
                        .filter_map(|(_, v)| *v)
                        .collect();
                    let printed_variation_pct = printed
                        .iter()
                        .find(|s| {
                            s.name == "variation_pct" && s.metric == name && s.percentile == p
                        })
                        .and_then(|s| s.value);
                    Cell {
                        percentile: p,
                        values,
                        // A spread needs two runs: with fewer left (two runs, run 1
                        // skipped) there is none, rather than a misleading 0.
                        variation_pct: (included.len() >= 2)
                            .then(|| jlbh_variation(&included))
                            .flatten(),
                        printed_variation_pct,
                        spread: (included.len() >= 2)
                            .then(|| robust_cv_pct(&included))
                            .flatten(),
                    }
                })
                .collect();
            MetricCells {
                metric: name,
                display,
                unit,
                cells,
            }
        })
        .collect()
}

/// Ladder, histogram and single-value metrics of the group, in first-seen order.
fn metrics_of(members: &[&StoredRun], only: Option<&str>) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = Vec::new();
    for r in members {
        for s in &r.run.series {
            if matches!(s.data, Data::TimeSeries { .. }) || only.is_some_and(|m| m != s.metric) {
                continue;
            }
            if !out.iter().any(|(m, _, _)| *m == s.metric) {
                out.push((s.metric.clone(), s.display.clone(), s.unit.clone()));
            }
        }
    }
    out
}

/// The sorted union of the metric's percentiles over the group (`[None]` for values).
fn percentiles_of(members: &[&StoredRun], metric: &str) -> Vec<Option<f64>> {
    let mut ps: Vec<f64> = Vec::new();
    let mut scalar = false;
    for r in members {
        match r.series(metric).map(|s| (s.ladder(), &s.data)) {
            Some((Some(points), _)) => ps.extend(points.iter().map(|p| p.percentile)),
            Some((None, Data::Value { .. })) => scalar = true,
            _ => {}
        }
    }
    ps.sort_by(f64::total_cmp);
    ps.dedup();
    let mut out: Vec<Option<f64>> = ps.into_iter().map(Some).collect();
    if scalar {
        out.push(None);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_run_left_has_no_variation() {
        let runs: Vec<StoredRun> = crate::analysis::demo::runs()
            .into_iter()
            .filter(|r| r.source_id == 1 && r.run.index <= 2)
            .collect();
        let rows = variation(&runs, Some("end_to_end"), false);
        assert!(!rows.is_empty());
        assert!(
            rows.iter()
                .all(|r| r.variation_pct.is_none() && r.spread.is_none())
        );
        // With run 1 included there are two values again.
        let rows = variation(&runs, Some("end_to_end"), true);
        assert!(rows.iter().all(|r| r.variation_pct.is_some()));
    }
}
