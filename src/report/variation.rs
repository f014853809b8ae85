//! The run-to-run variation table: for each group of runs (one source block) and each
//! metric, JLBH's `% Variation` per percentile across the runs, as an HTML table whose
//! cells are coloured by size. Returns HTML text; every name is escaped.

use super::fmt::{self, escape};
use crate::analysis::variation as analysis;
use crate::dataset::StoredRun;
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
    h.push_str(&legend());
    h.push_str(&render_tables(table));
    h
}

/// What the numbers are and what the colours mean.
pub fn legend() -> String {
    format!(
        "<p class=\"muted\">JLBH's % Variation, 100·(max − min)/(max + min/2) across runs. \
         <span class=\"v-low\">&lt; {LOW_PCT}%</span> \
         <span class=\"v-mid\">{LOW_PCT}–{HIGH_PCT}%</span> \
         <span class=\"v-high\">≥ {HIGH_PCT}%</span></p>\n"
    )
}

/// The groups' tables alone, without the legend (pages holding many groups give it
/// once).
pub fn render_tables(table: &VariationTable) -> String {
    let mut h = String::new();
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
}
