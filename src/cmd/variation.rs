//! `bench-db variation`: run-to-run variation per group, metric and percentile.

use crate::analysis::variation::{VariationRow, variation};
use crate::cli::VariationArgs;
use crate::selector::Selector;
use crate::store::Db;
use crate::store::url::Target;
use anyhow::Result;
use std::fmt::Write;

pub fn run(db: &Target, args: &VariationArgs) -> Result<u8> {
    let store = Db::open_read(db)?;
    let runs = super::select::select(&store, &Selector::parse_opt(args.selector.as_deref())?)?;
    let rows = variation(&runs, args.metric.as_deref(), args.include_first);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        print!("{}", render_tables(&rows));
    }
    Ok(crate::exit::OK)
}

/// JLBH-SUMMARY-like tables, one per group and metric.
pub fn render_tables(rows: &[VariationRow]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < rows.len() {
        let first = &rows[i];
        let same = |r: &VariationRow| {
            r.suite == first.suite
                && r.label == first.label
                && r.metric == first.metric
                && r.run_ids == first.run_ids
        };
        let end = i + rows[i..].iter().take_while(|r| same(r)).count();
        let unit = if first.unit.is_empty() {
            String::new()
        } else {
            format!(" ({})", first.unit)
        };
        let _ = writeln!(
            out,
            "== {} / {} / {}{unit}",
            first.suite, first.label, first.display
        );
        let _ = write!(out, "{:<11}", "Percentile");
        for idx in &first.run_indexes {
            let _ = write!(out, "{:>12}", format!("run{idx}"));
        }
        let _ = writeln!(
            out,
            "{:>14}{:>10}{:>12}",
            "% Variation", "printed", "robust CV%"
        );
        for r in &rows[i..end] {
            let _ = write!(out, "{:<11}", percentile_label(r.percentile));
            for v in &r.values {
                let _ = write!(out, "{:>12}", opt(*v));
            }
            let _ = writeln!(
                out,
                "{:>14}{:>10}{:>12}",
                opt(r.variation_pct),
                opt(r.printed_variation_pct),
                opt(r.spread)
            );
        }
        out.push('\n');
        i = end;
    }
    if rows.is_empty() {
        out.push_str("no runs with percentile or value series selected\n");
    }
    out
}

fn percentile_label(p: Option<f64>) -> String {
    match p {
        Some(p) if p >= 100.0 => "worst:".to_string(),
        Some(p) => format!("{p}:"),
        None => "value:".to_string(),
    }
}

fn opt(v: Option<f64>) -> String {
    crate::display::pct2(v)
}
