//! `bench-db curve`: throughput versus latency of the selected runs.

use super::select::{check_metrics, select_series, select_some_series};
use crate::analysis::curve::{curve, missed_schedule};
use crate::cli::CurveArgs;
use crate::output;
use crate::selector::Selector;
use crate::store::Db;
use crate::store::url::Target;
use anyhow::{Context, Result};
use std::io::Write;

pub fn run(db: &Target, args: &CurveArgs) -> Result<u8> {
    let store = Db::open_read(db)?;
    let runs = match args.selector.as_deref() {
        Some(text) => select_some_series(&store, text, "selector")?,
        None => select_series(&store, &Selector::all()).context("selecting runs")?,
    };
    let mut runs = runs;
    if !args.include_late {
        let before = runs.len();
        runs.retain(|r| !missed_schedule(r));
        let late = before - runs.len();
        if late > 0 {
            eprintln!(
                "note: left out {late} run{} that missed the schedule (achieved < 90% of the target rate); --include-late keeps them",
                if late == 1 { "" } else { "s" }
            );
        }
    }
    if let Some(m) = &args.metric {
        check_metrics(std::slice::from_ref(m), &[&runs])?;
    }
    let c = curve(
        &runs,
        args.metric.as_deref(),
        &args.percentiles,
        args.slo.as_deref(),
    )?;
    let text = if args.json {
        output::curve::json(&c)
    } else {
        output::curve::text(&c)
    };
    std::io::stdout().write_all(text.as_bytes())?;
    Ok(crate::exit::OK)
}
