//! The run-to-run variation table: for each group of runs (one source block) and each
//! metric, JLBH's `% Variation` per percentile across the runs, as an HTML table whose
//! cells are coloured by size. Returns HTML text; every name is escaped.

use super::fmt::{self, escape};
use super::series::by_percentile;
use crate::dataset::StoredRun;
use crate::stats::variation::jlbh_variation;
use bench_db_parsers::Data;
use std::collections::BTreeMap;

/// Variation below this (percent) is shown as low.
pub const LOW_PCT: f64 = 5.0;
/// Variation at or above this (percent) is shown as high.
pub const HIGH_PCT: f64 = 20.0;

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

/// JLBH leaves run 1 out of its `% Variation` when its ladder has more than 3
/// percentiles (`skipFirst = percentiles.length > 3`, JLBH.printPercentilesSummary),
/// which is always by default; other tools use every run.
fn skips_first(format: &str, ladder_len: usize, runs: usize) -> bool {
    format == "jlbh" && ladder_len > 3 && runs >= 2
}

/// The table of every group (source block) with two or more runs.
pub fn from_runs(runs: &[&StoredRun]) -> VariationTable {
    let mut groups: BTreeMap<(String, i64, u32), Vec<&StoredRun>> = BTreeMap::new();
    for r in runs {
        groups
            .entry((r.suite.clone(), r.source_id, r.block_index))
            .or_default()
            .push(r);
    }
    let mut out = VariationTable::default();
    for mut group in groups.into_values() {
        if group.len() < 2 {
            continue;
        }
        group.sort_by_key(|r| r.run.index);
        if let Some(g) = group_table(&group) {
            out.groups.push(g);
        }
    }
    out
}

/// One metric's variation per column (percentile key in millionths, `None` for the
/// value column): (metric, display, cells, unit).
type MetricCells = (String, String, BTreeMap<Option<i64>, f64>, String);

fn group_table(group: &[&StoredRun]) -> Option<VariationGroup> {
    let first = group.first()?;
    let mut metrics: Vec<(String, String, String)> = Vec::new();
    for r in group {
        for s in &r.run.series {
            if !metrics.iter().any(|m| m.0 == s.metric) {
                metrics.push((s.metric.clone(), s.display.clone(), s.unit.clone()));
            }
        }
    }
    let mut pct_cols: BTreeMap<i64, f64> = BTreeMap::new();
    let mut has_value = false;
    let mut rows: Vec<MetricCells> = Vec::new();
    let mut skipped_first = false;
    for (metric, display, unit) in &metrics {
        let mut cells = BTreeMap::new();
        let ladders: Vec<(u32, Vec<(f64, f64)>)> = group
            .iter()
            .filter_map(|r| {
                let l = r.series(metric)?.ladder()?;
                Some((
                    r.run.index,
                    l.iter()
                        .filter_map(|p| p.value.map(|v| (p.percentile, v)))
                        .collect(),
                ))
            })
            .collect();
        if !ladders.is_empty() {
            let len = ladders.iter().map(|l| l.1.len()).max().unwrap_or(0);
            let skip = skips_first(&first.format, len, ladders.len());
            skipped_first |= skip;
            let used: Vec<&[(f64, f64)]> = ladders
                .iter()
                .filter(|(idx, _)| !(skip && *idx == 1))
                .map(|l| l.1.as_slice())
                .collect();
            for (p, values) in by_percentile(used) {
                let key = (p * 1e6).round() as i64;
                pct_cols.insert(key, p);
                if let Some(v) = jlbh_variation(&values) {
                    cells.insert(Some(key), v);
                }
            }
        } else {
            let values: Vec<f64> = group
                .iter()
                .filter_map(|r| match r.series(metric).map(|s| &s.data) {
                    Some(Data::Value { value }) => *value,
                    _ => None,
                })
                .collect();
            if values.len() >= 2 {
                has_value = true;
                if let Some(v) = jlbh_variation(&values) {
                    cells.insert(None, v);
                }
            }
        }
        if !cells.is_empty() {
            rows.push((metric.clone(), display.clone(), cells, unit.clone()));
        }
    }
    if rows.is_empty() {
        return None;
    }
    let mut keys: Vec<Option<i64>> = pct_cols.keys().map(|k| Some(*k)).collect();
    let mut columns: Vec<String> = pct_cols
        .values()
        .map(|p| fmt::percentile_name(*p))
        .collect();
    if has_value {
        keys.push(None);
        columns.push("value".to_string());
    }
    let printed_for = |metric: &str, key: Option<i64>| {
        first
            .printed
            .iter()
            .find(|ps| {
                ps.name == "variation_pct"
                    && ps.metric == metric
                    && ps.percentile.map(|p| (p * 1e6).round() as i64) == key
            })
            .and_then(|ps| ps.value)
    };
    let rows = rows
        .into_iter()
        .map(|(metric, display, cells, unit)| VariationRow {
            metric: display,
            unit,
            cells: keys.iter().map(|k| cells.get(k).copied()).collect(),
            printed: keys.iter().map(|k| printed_for(&metric, *k)).collect(),
        })
        .collect();
    let note = if skipped_first {
        format!(
            "{} runs; run 1 left out of ladder rows, as JLBH does",
            group.len()
        )
    } else {
        format!("{} runs", group.len())
    };
    Some(VariationGroup {
        title: group_title(first),
        runs: group.len(),
        note,
        columns,
        rows,
    })
}

/// The CSS class of a cell: `v-low`, `v-mid` or `v-high`.
pub fn cell_class(v: f64) -> &'static str {
    if v < LOW_PCT {
        "v-low"
    } else if v < HIGH_PCT {
        "v-mid"
    } else {
        "v-high"
    }
}

/// The tables as HTML; an explanatory line when there is no group of two runs.
pub fn render(table: &VariationTable) -> String {
    let mut h = String::new();
    if table.groups.is_empty() {
        h.push_str("<p class=\"muted\">No group has two or more runs to compare.</p>\n");
        return h;
    }
    h.push_str(&format!(
        "<p class=\"muted\">JLBH's % Variation, 100·(max − min)/(max + min/2) across runs. \
         <span class=\"v-low\">&lt; {LOW_PCT}%</span> \
         <span class=\"v-mid\">{LOW_PCT}–{HIGH_PCT}%</span> \
         <span class=\"v-high\">≥ {HIGH_PCT}%</span></p>\n"
    ));
    for g in &table.groups {
        h.push_str(&format!(
            "<h4>{} <span class=\"muted\">({})</span></h4>\n<div class=\"scroll\"><table class=\"var\">\n<tr><th>metric</th>",
            escape(&g.title),
            escape(&g.note)
        ));
        for c in &g.columns {
            h.push_str(&format!("<th>{}</th>", escape(c)));
        }
        h.push_str("</tr>\n");
        for r in &g.rows {
            h.push_str(&format!("<tr><th>{}</th>", escape(&r.metric)));
            for (cell, printed) in r.cells.iter().zip(&r.printed) {
                match cell {
                    Some(v) => {
                        let title = printed
                            .map(|p| format!(" title=\"printed by the tool: {p:.2}\""))
                            .unwrap_or_default();
                        h.push_str(&format!(
                            "<td class=\"{}\"{title}>{v:.2}</td>",
                            cell_class(*v)
                        ));
                    }
                    None => h.push_str("<td class=\"muted\">–</td>"),
                }
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</table></div>\n");
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_by_size() {
        assert_eq!(cell_class(1.0), "v-low");
        assert_eq!(cell_class(13.91), "v-mid");
        assert_eq!(cell_class(20.0), "v-high");
    }

    #[test]
    fn jlbh_skips_run_one_only_for_long_ladders() {
        assert!(skips_first("jlbh", 4, 3));
        assert!(!skips_first("jlbh", 3, 3));
        assert!(!skips_first("jgroups", 4, 3));
    }
}
