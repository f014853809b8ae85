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

/// A group's title: its benchmark and configuration as its tool names them, with the
/// group's label or source and block ([`group_title`]) unless the name holds it.
pub fn group_name(run: &StoredRun) -> String {
    let bench = crate::analysis::samples::run_bench_text(run);
    let title = group_title(run);
    if bench.is_empty() {
        title
    } else if bench.contains(&title) {
        bench
    } else {
        format!("{bench} · {title}")
    }
}

/// The table of every group (source block) with two or more runs, from the same
/// computation as `bench-db variation` (run 1 of a JLBH-layout block left out, as JLBH
/// does by default; see [`crate::analysis::warmup`]).
pub fn from_runs(runs: &[&StoredRun]) -> VariationTable {
    let mut out = VariationTable::default();
    for (_, members) in analysis::groups(runs) {
        if members.len() < 2 {
            continue;
        }
        let mut metrics = analysis::group_cells(&members, None, false);
        // A metric without a percentile or a value has no row.
        metrics.retain(|m| !m.cells.is_empty());
        if !metrics.is_empty() {
            out.groups.push(group_table(&members, metrics));
        }
    }
    out
}

/// How many runs a group has and, where the warm-up rule skipped run 1, that it did: as
/// JLBH does, unless the tool's printed figures count run 1 (JLBH's
/// `skipFirstRun(false)`), said as `bench-db variation` says it.
fn group_note(members: &[&StoredRun], metrics: &[analysis::MetricCells]) -> String {
    let runs = members.len();
    if !members
        .iter()
        .any(|r| crate::analysis::warmup::is_warmup(r))
    {
        return format!("{runs} runs");
    }
    let with_first = metrics
        .iter()
        .flat_map(|m| &m.cells)
        .filter(|c| {
            analysis::printed_counts_run_one(&c.values, c.variation_pct, c.printed_variation_pct)
        })
        .count();
    if with_first > 0 {
        format!(
            "{runs} runs; run 1 left out; {}",
            analysis::printed_counts_run_one_note(with_first)
        )
    } else {
        format!("{runs} runs; run 1 left out, as JLBH does")
    }
}

/// A group's table: a column per percentile any of its metrics has (ascending, the
/// single value last), a row per metric.
fn group_table(members: &[&StoredRun], metrics: Vec<analysis::MetricCells>) -> VariationGroup {
    let key = |p: Option<f64>| p.map(|p| (p * 1e6).round() as i64);
    let mut columns: BTreeMap<Option<i64>, String> = BTreeMap::new();
    for c in metrics.iter().flat_map(|m| &m.cells) {
        columns.entry(key(c.percentile)).or_insert_with(|| {
            c.percentile
                .map_or("value".to_string(), fmt::percentile_name)
        });
    }
    // Percentile columns ascending, the value column last.
    let mut keys: Vec<Option<i64>> = columns.keys().copied().filter(Option::is_some).collect();
    if columns.contains_key(&None) {
        keys.push(None);
    }
    let note = group_note(members, &metrics);
    let rows = metrics
        .into_iter()
        .map(|m| {
            let find = |k: &Option<i64>| m.cells.iter().find(|c| key(c.percentile) == *k);
            VariationRow {
                cells: keys
                    .iter()
                    .map(|k| find(k).and_then(|c| c.variation_pct))
                    .collect(),
                printed: keys
                    .iter()
                    .map(|k| find(k).and_then(|c| c.printed_variation_pct))
                    .collect(),
                metric: m.display,
                unit: m.unit,
            }
        })
        .collect();
    VariationGroup {
        title: group_name(members[0]),
        runs: members.len(),
        note,
        columns: keys
            .iter()
            .filter_map(|k| columns.get(k).cloned())
            .collect(),
        rows,
    }
}
