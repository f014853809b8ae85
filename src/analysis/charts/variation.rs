//! What the run-to-run variation tables show: per group of runs (one source block) and
//! metric, JLBH's `% Variation` per percentile across the runs, beside what the tool
//! printed.

use crate::analysis::variation as analysis;
use crate::dataset::StoredRun;
use crate::numfmt as fmt;
use std::collections::BTreeMap;

/// One metric's row.
#[derive(Debug, Clone, PartialEq)]
pub struct VariationRow {
    /// Display name as printed.
    pub metric: String,
    pub unit: String,
    /// One cell per column of the group; `None` where the metric has no value.
    pub cells: Vec<Option<f64>>,
    /// The tool's own printed variation for the same cells, when it printed one.
    pub printed: Vec<Option<f64>>,
}

/// One group of runs.
#[derive(Debug, Clone, PartialEq)]
pub struct VariationGroup {
    pub title: String,
    /// Runs in the group, and which were used.
    pub runs: usize,
    pub note: String,
    /// Column names (`50%`, …, `max`, `value`).
    pub columns: Vec<String>,
    pub rows: Vec<VariationRow>,
}

/// Every group's table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VariationTable {
    pub groups: Vec<VariationGroup>,
}

/// A group's title: its label, else its source and block number.
pub fn group_title(run: &StoredRun) -> String {
    if run.label.is_empty() {
        format!("{} · block {}", run.source, run.block_index + 1)
    } else {
        run.label.clone()
    }
}

/// The table of every group (source block) with two or more runs, from the same
/// computation as `bench-db variation` (run 1 left out, as JLBH does by default).
pub fn from_runs(runs: &[&StoredRun]) -> VariationTable {
    let rows = analysis::variation(runs, None, false);
    let by_id: std::collections::HashMap<i64, &StoredRun> =
        runs.iter().map(|r| (r.id, *r)).collect();
    let mut out = VariationTable::default();
    let mut start = 0;
    while start < rows.len() {
        // Rows of one group are adjacent and share their run ids.
        let ids = &rows[start].run_ids;
        let end = start
            + rows[start..]
                .iter()
                .take_while(|r| &r.run_ids == ids)
                .count();
        let first = ids.first().and_then(|id| by_id.get(id).copied());
        if let (true, Some(first)) = (ids.len() >= 2, first) {
            out.groups.push(group_table(first, &rows[start..end]));
        }
        start = end;
    }
    out
}

fn group_table(first: &StoredRun, rows: &[analysis::VariationRow]) -> VariationGroup {
    let key = |p: Option<f64>| p.map(|p| (p * 1e6).round() as i64);
    let mut columns: BTreeMap<Option<i64>, String> = BTreeMap::new();
    let mut metrics: Vec<(String, String, String)> = Vec::new();
    for r in rows {
        columns.entry(key(r.percentile)).or_insert_with(|| {
            r.percentile
                .map_or("value".to_string(), fmt::percentile_name)
        });
        if !metrics.iter().any(|m| m.0 == r.metric) {
            metrics.push((r.metric.clone(), r.display.clone(), r.unit.clone()));
        }
    }
    // Percentile columns ascending, the value column last.
    let mut keys: Vec<Option<i64>> = columns.keys().copied().filter(Option::is_some).collect();
    if columns.contains_key(&None) {
        keys.push(None);
    }
    let out_rows = metrics
        .into_iter()
        .map(|(metric, display, unit)| {
            let find = |k: &Option<i64>| {
                rows.iter()
                    .find(|r| r.metric == metric && key(r.percentile) == *k)
            };
            VariationRow {
                metric: display,
                unit,
                cells: keys
                    .iter()
                    .map(|k| find(k).and_then(|r| r.variation_pct))
                    .collect(),
                printed: keys
                    .iter()
                    .map(|k| find(k).and_then(|r| r.printed_variation_pct))
                    .collect(),
            }
        })
        .collect();
    let runs = rows.first().map_or(0, |r| r.run_ids.len());
    VariationGroup {
        title: group_title(first),
        runs,
        note: format!("{runs} runs; run 1 left out, as JLBH does"),
        columns: keys
            .iter()
            .filter_map(|k| columns.get(k).cloned())
            .collect(),
        rows: out_rows,
    }
}
