//! `bench-db curve`: throughput versus latency of the selected runs, less JLBH's warm-up
//! runs ([`crate::analysis::warmup`]) unless `--include-first`.

use super::select::check_metric_names;
use crate::analysis::curve::{
    CurveError, CurvesBuilder, MetricChooser, missed_schedule, parse_slo,
};
use crate::analysis::warmup::is_warmup;
use crate::cli::CurveArgs;
use crate::output;
use crate::selector::Selector;
use crate::store::url::Target;
use crate::store::{Db, Detail};
use anyhow::Result;
use std::io::Write;

pub fn run(db: &Target, args: &CurveArgs) -> Result<u8> {
    let store = Db::open_read(db)?;
    let sel = Selector::parse_opt(args.selector.as_deref())?;
    let slo = args.slo.as_deref();
    // First pass, over the runs' heads: how many, which are late, which metrics.
    let (mut selected, mut late) = (0, 0);
    let mut known: Vec<String> = Vec::new();
    let mut chooser = MetricChooser::default();
    let warm_up = |r: &_| !args.warm_up.include_first && is_warmup(r);
    store.for_each_run(&sel, Detail::Heads, |r| {
        selected += 1;
        if warm_up(&r) {
            return Ok(());
        }
        if !args.include_late && missed_schedule(&r) {
            late += 1;
            return Ok(());
        }
        for s in &r.run.series {
            if !known.contains(&s.metric) {
                known.push(s.metric.clone());
            }
        }
        chooser.see(&r);
        Ok(())
    })?;
    if selected == 0 {
        return Err(super::select::nothing_to_read(
            &store,
            &sel,
            args.selector.as_deref(),
        )?);
    }
    if late > 0 {
        eprintln!(
            "note: left out {late} run{} that missed the schedule (achieved < 90% of the target rate); --include-late keeps them",
            if late == 1 { "" } else { "s" }
        );
    }
    if let Some(m) = &args.metric {
        check_metric_names(std::slice::from_ref(m), &known)?;
    }
    // A malformed SLO is reported before anything about the runs.
    slo.map(parse_slo).transpose()?;
    let metric = match &args.metric {
        Some(m) => m.clone(),
        None => chooser
            .choice()
            .ok_or(CurveError::NoMetric(String::new()))?,
    };
    // Second pass, with points: each run's values go into the curve, the run does not
    // stay.
    let mut curves = CurvesBuilder::new(metric, &args.percentiles, slo)?;
    store.for_each_run(&sel, Detail::Series, |r| {
        if !warm_up(&r) && (args.include_late || !missed_schedule(&r)) {
            curves.add(&r)?;
        }
        Ok(())
    })?;
    let left_out = curves.leave_out_one_commit_branches();
    if let Some(note) = output::one_commit_branches_note(&left_out, "curve") {
        eprintln!("note: {note}");
    }
    let curves = curves.finish()?;
    let text = if args.output.json() {
        output::curve::json(&curves)
    } else {
        output::curve::text(&curves)
    };
    std::io::stdout().write_all(text.as_bytes())?;
    Ok(crate::exit::OK)
}
