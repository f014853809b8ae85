//! `bench-db variation`: run-to-run variation per group, metric and percentile.

use super::select::nothing_selected;
use crate::analysis::samples::identity_text;
use crate::analysis::variation::{
    VariationRow, printed_counts_run_one, printed_counts_run_one_note, variation,
};
use crate::cli::VariationArgs;
use crate::dataset::StoredRun;
use crate::numfmt::{fixed, table_decimals};
use crate::output::escape::text as esc;
use crate::selector::Selector;
use crate::stats::describe::quantile;
use crate::store::url::Target;
use crate::store::{Db, Detail};
use anyhow::Result;
use std::fmt::Write as _;
use std::io::Write;

pub fn run(db: &Target, args: &VariationArgs) -> Result<u8> {
    let store = Db::open_read(db)?;
    let sel = Selector::parse_opt(args.selector.as_deref())?;
    check_selects_some(&store, &sel, args.selector.as_deref())?;
    if let Some(m) = &args.metric {
        super::metrics::check_selected(&store, &sel, std::slice::from_ref(m))?;
    }
    let w = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    match write_rows(&store, &sel, args, w) {
        Err(e) if crate::cmd::export::is_broken_pipe(&e) => Ok(crate::exit::OK),
        Err(e) => Err(e),
        Ok(()) => Ok(crate::exit::OK),
    }
}

/// Errors (exit 2) when the selector `text` selects no run, naming its terms that match
/// nothing as `compare` and `gate` do ([`nothing_selected`]); no selector is no check.
pub fn check_selects_some(store: &Db, sel: &Selector, text: Option<&str>) -> Result<()> {
    match text {
        Some(text) if store.select_ids(sel)?.is_empty() => {
            Err(nothing_selected(store, sel, text, "selector")?.into())
        }
        _ => Ok(()),
    }
}

/// Writes the rows as JSON or tables, block by block (see [`for_each_block`]).
fn write_rows(store: &Db, sel: &Selector, args: &VariationArgs, mut w: impl Write) -> Result<()> {
    let rows_of =
        |block: &[StoredRun]| variation(block, args.metric.as_deref(), args.warm_up.include_first);
    if args.output.json() {
        use serde::ser::{SerializeSeq, Serializer};
        let mut ser = serde_json::Serializer::pretty(&mut w);
        let mut seq = ser.serialize_seq(None)?;
        for_each_block(store, sel, Detail::Points, |block| {
            for r in rows_of(block) {
                seq.serialize_element(&r)?;
            }
            Ok(())
        })?;
        seq.end()?;
        writeln!(w)?;
    } else {
        let mut any = false;
        for_each_block(store, sel, Detail::Points, |block| {
            let rows = rows_of(block);
            any |= !rows.is_empty();
            if !rows.is_empty() {
                w.write_all(render_tables(&rows).as_bytes())?;
            }
            Ok(())
        })?;
        if !any {
            w.write_all(render_tables(&[]).as_bytes())?;
        }
    }
    w.flush()?;
    Ok(())
}

/// Streams the selection and calls `f` with each block's runs as soon as the stream
/// moves past the block, so memory holds one block's runs whatever the database holds.
/// A variation group (suite, label, block) lies within one block, so the rows and their
/// order are those of [`variation`] over the whole selection. That needs each block's
/// runs to have consecutive ids, as a SQLite store gives them (one writer at a time);
/// where they do not (concurrent PostgreSQL ingests may interleave them), `f` gets the
/// whole selection at once. The block's printed numbers are kept on its first run only.
pub fn for_each_block(
    store: &Db,
    sel: &Selector,
    detail: Detail,
    mut f: impl FnMut(&[StoredRun]) -> Result<()>,
) -> Result<()> {
    let contiguous = store.blocks_contiguous()?;
    let mut block: Vec<StoredRun> = Vec::new();
    store.for_each_run(sel, detail, |mut r| {
        if contiguous && block.last().is_some_and(|b| b.block_id != r.block_id) {
            f(&block)?;
            block.clear();
        }
        if block.last().is_some_and(|b| b.block_id == r.block_id) {
            r.printed = Vec::new();
        }
        block.push(r);
        Ok(())
    })?;
    if !block.is_empty() {
        f(&block)?;
    }
    Ok(())
}

/// Runs a table shows one column each; a group with more is shown as its distribution.
const MAX_RUN_COLUMNS: usize = 12;

/// The least width of a run's column (and of a quartile's).
const RUN_COLUMN_WIDTH: usize = 12;

/// JLBH-SUMMARY-like tables, one per group and metric: a column per run, or for more than
/// [`MAX_RUN_COLUMNS`] runs their count, quartiles and range.
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
        let _ = writeln!(out, "{}", heading(first));
        // Many runs (100 Criterion samples) are a distribution: its quartiles, not a column
        // per run (`--json` keeps every value).
        let summarised = first.run_indexes.len() > MAX_RUN_COLUMNS;
        // The values keep their digits (hyperfine's seconds, an exponent's worth); the
        // variations are percentages with two decimals, as JLBH prints them.
        let decimals = table_decimals(
            rows[i..end]
                .iter()
                .flat_map(|r| r.values.iter().flatten().copied()),
        );
        // Columns as wide as their widest value and always apart: hlog's 746586111.00
        // fills twelve.
        let cells: Vec<Vec<String>> = rows[i..end]
            .iter()
            .map(|r| {
                if summarised {
                    let v: Vec<f64> = r.values.iter().flatten().copied().collect();
                    let mut c = vec![v.len().to_string()];
                    c.extend([0.0, 0.25, 0.5, 0.75, 1.0].map(|q| fixed(quantile(&v, q), decimals)));
                    c
                } else {
                    r.values.iter().map(|v| fixed(*v, decimals)).collect()
                }
            })
            .collect();
        let width = cells
            .iter()
            .flatten()
            .map(|c| c.chars().count() + 2)
            .fold(RUN_COLUMN_WIDTH, usize::max);
        let _ = write!(out, "{:<11}", "Percentile");
        if summarised {
            for h in ["runs", "min", "p25", "median", "p75", "max"] {
                let _ = write!(out, "{h:>width$}");
            }
        } else {
            for idx in &first.run_indexes {
                let _ = write!(out, "{:>width$}", format!("run{idx}"));
            }
        }
        let _ = writeln!(
            out,
            "{:>14}{:>10}{:>12}",
            "% Variation", "printed", "robust CV%"
        );
        for (r, cells) in rows[i..end].iter().zip(&cells) {
            let _ = write!(out, "{:<11}", percentile_label(r.percentile));
            for c in cells {
                let _ = write!(out, "{c:>width$}");
            }
            let _ = writeln!(
                out,
                "{:>14}{:>10}{:>12}",
                opt(r.variation_pct),
                opt(r.printed_variation_pct),
                opt(r.spread)
            );
        }
        for r in &rows[i..end] {
            if let Some(h) = &r.printed {
                let at = r.percentile.map_or(String::new(), |p| {
                    format!(" at {}", percentile_label(Some(p)).trim_end_matches(':'))
                });
                let _ = writeln!(
                    out,
                    "  {} printed{at}: {} ({})",
                    h.tool,
                    h.text(|v| crate::numfmt::sig_plain(v, 5)),
                    h.name
                );
            }
        }
        out.push('\n');
        i = end;
    }
    if rows.is_empty() {
        out.push_str("no runs with percentile or value series selected\n");
    }
    let with_first = rows
        .iter()
        .filter(|r| printed_counts_run_one(&r.values, r.variation_pct, r.printed_variation_pct))
        .count();
    if with_first > 0 {
        let _ = writeln!(out, "{}", printed_counts_run_one_note(with_first));
    }
    out
}

/// A table's heading: suite, label, then the benchmark with its configuration and the
/// metric, named as `compare` names its cells ([`identity_text`]), so that the blocks of
/// one benchmark (JMH's `@Param` values and modes) are told apart; then the unit, unless
/// the metric's name already spells it (Go's `ns_op` in ns/op). A format that names no
/// benchmark keeps the metric as the tool printed it.
fn heading(r: &VariationRow) -> String {
    let mut name = identity_text(r.bench.as_deref(), &r.config, None);
    let quantity = if r.bench.is_some() {
        &r.metric
    } else {
        &r.display
    };
    if !name.is_empty() {
        name.push(' ');
    }
    name.push_str(quantity);
    let spelled = |t: &str| -> String {
        t.chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let unit = if r.unit.is_empty() || spelled(&r.unit) == spelled(quantity) {
        String::new()
    } else {
        format!(" ({})", esc(&r.unit))
    };
    format!(
        "== {} / {} / {}{unit}",
        esc(&r.suite),
        esc(&r.label),
        esc(&name)
    )
}

fn percentile_label(p: Option<f64>) -> String {
    match p {
        Some(p) if p >= 100.0 => "worst:".to_string(),
        Some(p) => format!("{p}:"),
        None => "value:".to_string(),
    }
}

fn opt(v: Option<f64>) -> String {
    crate::numfmt::pct2(v)
}
