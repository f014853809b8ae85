//! The run-to-run variation table: for each group of runs (one source block) and each
//! metric, JLBH's `% Variation` per percentile across the runs, as an HTML table whose
//! cells are coloured by size. Returns HTML text; every name is escaped.

use super::fmt::escape;
pub use crate::analysis::charts::variation::{VariationGroup, VariationRow, VariationTable};

/// Variation below this (percent) is shown as low.
pub const LOW_PCT: f64 = 5.0;
/// Variation at or above this (percent) is shown as high.
pub const HIGH_PCT: f64 = 20.0;

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
