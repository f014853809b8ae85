//! `bench-db calibrate`: how often the gate policy raises a false alarm on the selected
//! stored runs split at random as the gate would group them (one commit against the
//! others, halves of the invocations, or halves of the runs), per cell, and the smallest
//! shift it detects with 80% power. Exits 0; errors (bad policy, no runs) exit 2.

use crate::analysis::false_alarms::{Calibration, SplitBy, calibrate};
use crate::analysis::samples::identity_text;
use crate::cli::CalibrateArgs;
use crate::output::escape::text as esc;
use crate::output::percentile;
use crate::selector::Selector;
use crate::store::Db;
use crate::store::url::Target;
use anyhow::{Result, bail};
use serde::Serialize;
use std::fmt::Write as _;
use std::io::Write;

pub fn run(db: &Target, args: &CalibrateArgs) -> Result<u8> {
    let policy = super::gate::load_policy(args.policy.as_deref(), &args.max)?;
    let store = Db::open_read(db)?;
    let runs = store.select(&Selector::parse_opt(args.selector.as_deref())?)?;
    if runs.is_empty() {
        bail!("the selection holds no run");
    }
    let c = calibrate(
        &runs,
        &policy,
        args.trials as usize,
        args.warm_up.include_first,
        args.seed,
    )?;
    for s in &c.skipped {
        eprintln!(
            "bench-db calibrate: skipped {} / {}: {}, {}",
            esc(&s.suite),
            esc(&s.label),
            crate::numfmt::plural(s.runs, "run"),
            s.reason
        );
    }
    let text = if args.output.json() {
        json(&c)
    } else {
        text(&c)
    };
    std::io::stdout().write_all(text.as_bytes())?;
    Ok(crate::exit::OK)
}

#[derive(Serialize)]
struct JsonCell<'a> {
    suite: &'a str,
    metric: &'a str,
    percentile: Option<f64>,
    alarm_rate: f64,
    mde_pct: Option<f64>,
    label: &'a str,
    trials: usize,
    alarms: usize,
    alarm_ci_low: f64,
    alarm_ci_high: f64,
    bench: Option<&'a str>,
    config: &'a std::collections::BTreeMap<String, String>,
    split_by: SplitBy,
}

#[derive(Serialize)]
struct JsonDoc<'a> {
    trials: usize,
    alarms: usize,
    alarm_rate: f64,
    cells: Vec<JsonCell<'a>>,
    schema: u32,
    alpha: f64,
    alarm_ci_low: f64,
    alarm_ci_high: f64,
}

/// `{"trials","alarms","alarm_rate","cells":[{"suite","metric","percentile","alarm_rate","mde_pct"}]}`
/// plus the intervals and counts, and per cell its `label`, `bench`, `config` and `split_by`
/// (`commits`, `invocations` or `runs`).
fn json(c: &Calibration) -> String {
    let doc = JsonDoc {
        trials: c.trials,
        alarms: c.alarms,
        alarm_rate: c.alarm_rate,
        cells: c
            .cells
            .iter()
            .map(|x| JsonCell {
                suite: &x.suite,
                metric: &x.metric,
                percentile: x.percentile,
                alarm_rate: x.alarm_rate,
                mde_pct: x.mde_pct,
                label: &x.label,
                trials: x.trials,
                alarms: x.alarms,
                alarm_ci_low: x.alarm_ci_low,
                alarm_ci_high: x.alarm_ci_high,
                bench: x.bench.as_deref(),
                config: &x.config,
                split_by: x.split_by,
            })
            .collect(),
        schema: 1,
        alpha: c.alpha,
        alarm_ci_low: c.alarm_ci_low,
        alarm_ci_high: c.alarm_ci_high,
    };
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".to_string());
    s.push('\n');
    s
}

fn text(c: &Calibration) -> String {
    let mut out = format!(
        "calibrate: {} in {}: rate {} [{}, {}] (95% Wilson), policy alpha {}\n",
        crate::numfmt::plural(c.alarms, "false alarm"),
        crate::numfmt::plural(c.trials, "A/A split"),
        rate(c.alarm_rate),
        rate(c.alarm_ci_low),
        rate(c.alarm_ci_high),
        c.alpha
    );
    if c.cells.is_empty() {
        return out;
    }
    out.push('\n');
    let mut rows = vec![
        [
            "suite",
            "bench",
            "label",
            "split by",
            "metric",
            "pct",
            "alarm rate",
            "95% CI",
            "80% power at",
        ]
        .into_iter()
        .map(crate::output::table::Cell::from)
        .collect::<Vec<_>>(),
    ];
    for x in &c.cells {
        rows.push(vec![
            x.suite.as_str().into(),
            match identity_text(x.bench.as_deref(), &x.config, None) {
                t if t.is_empty() => "-".to_string(),
                t => t,
            }
            .into(),
            x.label.as_str().into(),
            match x.split_by {
                SplitBy::Commits => "commits",
                SplitBy::Invocations => "invocations",
                SplitBy::Runs => "runs",
            }
            .into(),
            x.metric.as_str().into(),
            percentile(x.percentile).into(),
            rate(x.alarm_rate).into(),
            format!("[{}, {}]", rate(x.alarm_ci_low), rate(x.alarm_ci_high)).into(),
            x.mde_pct
                .map_or("cannot reach alpha".to_string(), |m| format!("+{m:.1}%"))
                .into(),
        ]);
    }
    out.push_str(&crate::output::table::render(rows, false));
    let _ = writeln!(
        out,
        "\nEach split takes one commit against the others (split by commits), or halves a group's invocations or runs, \
         at random (no change between the sides: every alarm is false). \
         80% power at: the smallest worsening the policy detects given the runs' noise (t approximation, \
         per cell before the family correction, at least the threshold and noise floor)."
    );
    out
}

/// A rate (0–1) with four decimals.
fn rate(v: f64) -> String {
    format!("{v:.4}")
}
