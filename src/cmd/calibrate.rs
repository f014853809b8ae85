//! `bench-db calibrate`: how often the gate policy raises a false alarm on the selected
//! stored runs split at random as the gate would group them (one commit against the
//! others, halves of the invocations, or halves of the runs), per cell, and the smallest
//! shift it detects with 80% power. Exits 0; errors (bad policy, no runs) exit 2.

use crate::analysis::false_alarms::{Calibration, Skipped, SplitBy, calibrate};
use crate::analysis::polarity::Polarity;
use crate::analysis::samples::identity_text;
use crate::cli::CalibrateArgs;
use crate::output::escape::text as esc;
use crate::output::percentile;
use crate::selector::Selector;
use crate::store::Db;
use crate::store::url::Target;
use anyhow::Result;
use serde::Serialize;
use std::fmt::Write as _;
use std::io::Write;

pub fn run(db: &Target, args: &CalibrateArgs) -> Result<u8> {
    let policy = super::gate::load_policy(args.policy.as_deref(), &args.max)?;
    let store = Db::open_read(db)?;
    let sel = Selector::parse_opt(args.selector.as_deref())?;
    let runs = store.select(&sel)?;
    if runs.is_empty() {
        return Err(super::select::nothing_to_read(
            &store,
            &sel,
            args.selector.as_deref(),
        )?);
    }
    let c = calibrate(
        &runs,
        &policy,
        args.trials as usize,
        args.warm_up.include_first,
        args.seed,
    )?;
    for line in skipped_lines(&c.skipped) {
        eprintln!("bench-db calibrate: {line}");
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
    polarity: Polarity,
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
    skipped: &'a [Skipped],
}

/// `{"trials","alarms","alarm_rate","cells":[{"suite","metric","percentile","alarm_rate","mde_pct"}]}`
/// plus the intervals and counts, per cell its `label`, `bench`, `config`, `split_by`
/// (`commits`, `invocations` or `runs`) and `polarity` (`mde_pct` is negative, a fall, for
/// `higher`), and every group `skipped` (`suite`, `label`, `bench`, `config`, `runs`,
/// `reason`).
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
                polarity: x.polarity,
            })
            .collect(),
        schema: 1,
        alpha: c.alpha,
        alarm_ci_low: c.alarm_ci_low,
        alarm_ci_high: c.alarm_ci_high,
        skipped: &c.skipped,
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
                .map_or("cannot reach alpha".to_string(), |m| format!("{m:+.1}%"))
                .into(),
        ]);
    }
    out.push_str(&crate::output::table::render(rows, false));
    let _ = writeln!(
        out,
        "\nEach split takes one commit against the others (split by commits), or halves a group's invocations or runs, \
         at random (no change between the sides: every alarm is false). \
         80% power at: the smallest worsening the policy detects given the runs' noise, a rise or, for a \
         higher-is-better metric, a fall (t approximation, per cell before the family correction, \
         at least the threshold and noise floor)."
    );
    out
}

/// Names of skipped groups shown per reason; `--json` lists them all.
const SKIPPED_SHOWN: usize = 3;

/// One line per suite, label and reason: how many groups were skipped, their run
/// counts, and the first few benchmarks by name.
fn skipped_lines(skipped: &[Skipped]) -> Vec<String> {
    // (suite, label, reason) and its groups, in order of first appearance.
    type Reason<'a> = (&'a str, &'a str, &'a str);
    let mut groups: Vec<(Reason, Vec<&Skipped>)> = Vec::new();
    for s in skipped {
        let key = (s.suite.as_str(), s.label.as_str(), s.reason.as_str());
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(s),
            None => groups.push((key, vec![s])),
        }
    }
    groups
        .into_iter()
        .map(|((suite, label, reason), group)| {
            let (lo, hi) = group.iter().fold((usize::MAX, 0), |(lo, hi), s| {
                (lo.min(s.runs), hi.max(s.runs))
            });
            let runs = if lo == hi {
                crate::numfmt::plural(lo, "run")
            } else {
                format!("{lo}–{hi} runs")
            };
            let side = if label.is_empty() {
                esc(suite).into_owned()
            } else {
                format!("{} / {}", esc(suite), esc(label))
            };
            let names: Vec<String> = group
                .iter()
                .take(SKIPPED_SHOWN)
                .map(
                    |s| match identity_text(s.bench.as_deref(), &s.config, None) {
                        t if t.is_empty() => "(unnamed)".to_string(),
                        t => esc(&t).into_owned(),
                    },
                )
                .collect();
            let more = match group.len().saturating_sub(SKIPPED_SHOWN) {
                0 => String::new(),
                n => format!(" and {n} more (--json lists them)"),
            };
            if group.len() == 1 {
                format!("skipped {side} {}: {runs}, {reason}", names.join(", "))
            } else {
                format!(
                    "skipped {} benchmarks of {side} ({runs} each), {reason}: {}{more}",
                    group.len(),
                    names.join(", ")
                )
            }
        })
        .collect()
}

/// A rate (0–1) with four decimals.
fn rate(v: f64) -> String {
    format!("{v:.4}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skip(bench: &str, runs: usize, reason: &str) -> Skipped {
        Skipped {
            suite: "jmh".into(),
            label: "before".into(),
            bench: Some(bench.into()),
            config: [("size".to_string(), "10".to_string())].into(),
            runs,
            reason: reason.into(),
        }
    }

    #[test]
    fn skipped_groups_are_summarised_per_reason_by_name() {
        let r = "fewer than 4 runs: no two halves of 2";
        let all: Vec<Skipped> = ["a.A", "a.B", "a.C", "a.D", "a.E"]
            .iter()
            .map(|b| skip(b, 3, r))
            .chain([skip("a.F", 2, "other")])
            .collect();
        assert_eq!(
            skipped_lines(&all),
            [
                "skipped 5 benchmarks of jmh / before (3 runs each), fewer than 4 runs: no two halves of 2: \
                 a.A [size=10], a.B [size=10], a.C [size=10] and 2 more (--json lists them)",
                "skipped jmh / before a.F [size=10]: 2 runs, other",
            ]
        );
    }
}
