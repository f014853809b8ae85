//! Renders a gate report: text summary, JSON verdict, Markdown, JUnit XML, GitHub
//! workflow commands. Every format names each regressed cell. The change shown beside a
//! cell is the one its verdict was decided on, so the table and the reason's "worse by" or
//! "better by" state one number.

use super::table::{Cell as T, render_with_lines};
use super::{json_num, md_cell, num, p, pct, percentile, plural};
use crate::analysis::compare::{Replicates, TestMethod};
use crate::analysis::gate::{GateCell, GateReport, Outcome, Status};
use crate::analysis::polarity::Polarity;
use crate::analysis::printed::{Headline, PrintedChange};
use crate::dataset::StoredRun;
use serde::Serialize;

/// Which commits each side's runs came from, in the order their runs were selected:
/// what the Markdown names beside the run counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Commits {
    pub baseline: Vec<String>,
    pub candidate: Vec<String>,
}

impl Commits {
    /// The distinct `commit` tags of each side's runs.
    pub fn of(baseline: &[StoredRun], candidate: &[StoredRun]) -> Commits {
        let distinct = |runs: &[StoredRun]| {
            let mut out: Vec<String> = Vec::new();
            for c in runs.iter().filter_map(|r| r.run.tags.get("commit")) {
                if !out.contains(c) {
                    out.push(c.clone());
                }
            }
            out
        };
        Commits {
            baseline: distinct(baseline),
            candidate: distinct(candidate),
        }
    }
}

/// The change a cell's verdict was decided on (`delta_pct`, the cell's one estimate);
/// the reason (`analysis::gate`) states the same number, from `worsening_pct`.
fn tested_change(c: &GateCell) -> Option<f64> {
    c.cell.delta_pct
}

/// A value with the cell's unit, for Markdown.
/// The note on standard error when the baseline selected runs the candidate also selects.
pub fn shared_runs_note(shared: usize, left: usize) -> String {
    let what = if left == 0 {
        "the baseline selects only the candidate's own runs, so there is nothing to compare \
         against"
            .to_string()
    } else {
        format!("{} left", plural(left, "baseline run"))
    };
    format!(
        "note: baseline: leaves out the {} the candidate also selects (a run is not its own \
         baseline): {what}",
        plural(shared, "run")
    )
}

/// What the `n` column holds.
const N_NOTE: &str = "n: the replicates tested, baseline/candidate (runs; invocations when a side's runs come from several; samples of a series with one run a side)";

/// A cell's replicates a side, as `compare` prints them: `5/5`.
fn replicates(c: &GateCell) -> String {
    format!("{}/{}", c.cell.n_baseline, c.cell.n_candidate)
}

fn with_unit(v: Option<f64>, unit: &str) -> String {
    match (v, unit.is_empty()) {
        (Some(_), false) => format!("{} {unit}", num(v)),
        _ => num(v),
    }
}

/// What `delta` is, under the text and Markdown tables.
const DELTA_NOTE: &str = "delta: the change the verdict tested, inside its interval (delta_pct in --json; central_delta_pct is the change of the values shown: the median of the runs' percentiles, the mean of single values or of a series' samples, the percentile of a side's merged histograms)";

fn status_color(s: Status) -> &'static str {
    match s {
        Status::Pass => "32",
        Status::Regression => "31",
        Status::Warning | Status::Undecided => "33",
        Status::Info => "",
    }
}

/// The threshold as a change beside `delta`: `+10%` where lower is better, `-10%` where
/// higher is (a throughput may fall by that much).
fn allowed(c: &GateCell) -> String {
    let sign = match c.cell.polarity {
        Polarity::Lower => '+',
        Polarity::Higher => '-',
    };
    c.threshold_pct
        .map_or("-".to_string(), |t| format!("{sign}{t}%"))
}

fn header(r: &GateReport) -> String {
    format!(
        "gate: {} ({})\nbaseline {}, candidate {}{}; alpha {}, at least {} replicates a side, noise multiplier {}\nfamily: {}\n",
        r.outcome.as_str().to_uppercase(),
        super::escape::text(&r.summary),
        plural(r.baseline_runs, "run"),
        plural(r.candidate_runs, "run"),
        if r.include_first { ", run 1 kept" } else { "" },
        r.alpha,
        r.min_runs,
        r.noise_multiplier,
        r.family
    )
}

/// Text summary: the outcome, then one row per cell (gated first).
pub fn text(r: &GateReport, color: bool) -> String {
    let mut out = header(r);
    if r.cells.is_empty() {
        return out;
    }
    out.push('\n');
    let suites = several_suites(r);
    let mut rows: Vec<Vec<T>> = vec![
        [
            "status",
            "metric",
            "pct",
            "n",
            "baseline",
            "candidate",
            "delta",
            "allowed",
            "noise",
            "p_adj",
            "reason",
        ]
        .into_iter()
        .map(T::from)
        .collect(),
    ];
    for c in &r.cells {
        rows.push(vec![
            T {
                text: c.status.as_str().to_string(),
                color: status_color(c.status),
            },
            suite_first(c, suites, c.cell.metric_with_bench()).into(),
            percentile(c.cell.percentile).into(),
            replicates(c).into(),
            num(c.cell.baseline).into(),
            num(c.cell.candidate).into(),
            pct(tested_change(c)).into(),
            allowed(c).into(),
            c.cell
                .noise_pct
                .map_or("-".to_string(), |n| format!("{n:.2}%"))
                .into(),
            p(c.p_adjusted_worse).into(),
            c.reason.as_str().into(),
        ]);
    }
    let under: Vec<Option<String>> = r
        .cells
        .iter()
        .map(|c| super::compare::printed_line(&c.cell))
        .collect();
    out.push_str(&render_with_lines(rows, &under, color));
    out.push('\n');
    out.push_str(N_NOTE);
    out.push('\n');
    out.push_str(DELTA_NOTE);
    out.push('\n');
    if let Some(note) = super::compare::replicate_note(r.gated().map(|c| &c.cell)) {
        out.push_str(&note);
        out.push('\n');
    }
    out
}

#[derive(Serialize)]
struct JsonCell<'a> {
    suite: &'a str,
    /// The benchmark (`null` when the format names none or it is the comparison's axis).
    bench: Option<&'a str>,
    /// The benchmark's configuration, less the comparison's axis.
    config: std::collections::BTreeMap<&'a str, &'a str>,
    metric: &'a str,
    percentile: Option<f64>,
    unit: &'a str,
    gated: bool,
    status: Status,
    polarity: Polarity,
    threshold_pct: Option<f64>,
    noise_pct: Option<f64>,
    n_baseline: usize,
    n_candidate: usize,
    baseline: Option<f64>,
    candidate: Option<f64>,
    delta_pct: Option<f64>,
    worsening_pct: Option<f64>,
    ci_low_pct: Option<f64>,
    ci_high_pct: Option<f64>,
    p_worse: Option<f64>,
    p_adjusted: Option<f64>,
    reason: &'a str,
    p_value: Option<f64>,
    p_floor: Option<f64>,
    shift_pct: Option<f64>,
    method: TestMethod,
    replicates: Replicates,
    ess_baseline: Option<f64>,
    ess_candidate: Option<f64>,
    outliers_baseline: usize,
    outliers_candidate: usize,
    polarity_known: bool,
    central_delta_pct: Option<f64>,
    #[serde(flatten)]
    replicates_of: super::compare::Replicated,
    /// The label someone gave the runs (`null` when none, or when it is the axis).
    label: Option<&'a str>,
    /// The configuration keys the sides were paired across, each side's values (empty
    /// when they agree), as `compare --json` gives them.
    config_baseline: std::collections::BTreeMap<&'a str, &'a str>,
    config_candidate: std::collections::BTreeMap<&'a str, &'a str>,
    /// What the tool printed for the cell on each side, as `compare --json` gives it.
    printed_baseline: Option<&'a Headline>,
    printed_candidate: Option<&'a Headline>,
    printed_note: Option<&'a str>,
    printed_change: &'a [PrintedChange],
}

#[derive(Serialize)]
struct JsonReport<'a> {
    schema: u32,
    outcome: Outcome,
    exit_code: u8,
    summary: &'a str,
    alpha: f64,
    min_runs: usize,
    noise_multiplier: f64,
    baseline_runs: usize,
    candidate_runs: usize,
    include_first: bool,
    family: &'a str,
    cells: Vec<JsonCell<'a>>,
}

/// JSON verdict: the outcome and every cell with its numbers and reason.
pub fn json(r: &GateReport) -> String {
    let doc = JsonReport {
        schema: 1,
        outcome: r.outcome,
        exit_code: crate::exit::exit_code(r.outcome),
        summary: &r.summary,
        alpha: r.alpha,
        min_runs: r.min_runs,
        noise_multiplier: r.noise_multiplier,
        baseline_runs: r.baseline_runs,
        candidate_runs: r.candidate_runs,
        include_first: r.include_first,
        family: &r.family,
        cells: r
            .cells
            .iter()
            .map(|c| JsonCell {
                suite: &c.cell.suite,
                bench: c.cell.bench.as_deref(),
                config: c
                    .cell
                    .config
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_str()))
                    .collect(),
                metric: &c.cell.metric,
                percentile: c.cell.percentile,
                unit: &c.cell.unit,
                gated: c.status != Status::Info,
                status: c.status,
                polarity: c.cell.polarity,
                threshold_pct: c.threshold_pct,
                noise_pct: json_num(c.cell.noise_pct),
                n_baseline: c.cell.n_baseline,
                n_candidate: c.cell.n_candidate,
                baseline: json_num(c.cell.baseline),
                candidate: json_num(c.cell.candidate),
                delta_pct: json_num(c.cell.delta_pct),
                worsening_pct: json_num(c.cell.worsening_pct()),
                ci_low_pct: json_num(c.cell.ci_low_pct),
                ci_high_pct: json_num(c.cell.ci_high_pct),
                p_worse: c.cell.p_worse,
                p_adjusted: c.p_adjusted_worse,
                reason: &c.reason,
                p_value: c.cell.p_value,
                p_floor: c.cell.p_floor,
                shift_pct: json_num(c.cell.shift_pct),
                method: c.cell.method,
                replicates: c.cell.replicates,
                ess_baseline: json_num(c.cell.ess_baseline),
                ess_candidate: json_num(c.cell.ess_candidate),
                outliers_baseline: c.cell.outliers_baseline,
                outliers_candidate: c.cell.outliers_candidate,
                polarity_known: c.cell.polarity_known,
                central_delta_pct: json_num(c.cell.central_delta_pct),
                replicates_of: super::compare::Replicated::of(&c.cell),
                label: c.cell.label.as_deref(),
                config_baseline: super::compare::pairs(&c.cell.config_baseline),
                config_candidate: super::compare::pairs(&c.cell.config_candidate),
                printed_baseline: c.cell.printed_baseline.as_ref(),
                printed_candidate: c.cell.printed_candidate.as_ref(),
                printed_note: c.cell.printed_note.as_deref(),
                printed_change: &c.cell.printed_change,
            })
            .collect(),
    };
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".to_string());
    s.push('\n');
    s
}

/// The commits of one side for Markdown: at most five, then how many more.
fn commit_list(commits: &[String]) -> String {
    const SHOWN: usize = 5;
    if commits.is_empty() {
        return "no commit tag".to_string();
    }
    let mut list: Vec<String> = commits
        .iter()
        .take(SHOWN)
        .map(|c| format!("`{}`", md_cell(&c.chars().take(12).collect::<String>())))
        .collect();
    if commits.len() > SHOWN {
        list.push(format!("{} more", commits.len() - SHOWN));
    }
    let noun = if commits.len() == 1 {
        "commit"
    } else {
        "commits"
    };
    format!("{noun} {}", list.join(", "))
}

/// Markdown for a job summary or pull-request comment: which runs of which commits were
/// compared, gated cells in a table with their units, the informational ones folded away.
pub fn markdown(r: &GateReport, commits: &Commits) -> String {
    let mut out = format!(
        "### bench-db gate: {}\n\n{}\n\nCompared {} ({}) with {} ({}){}.\n\n",
        r.outcome.as_str(),
        md_cell(&r.summary),
        plural(r.baseline_runs, "baseline run"),
        commit_list(&commits.baseline),
        plural(r.candidate_runs, "candidate run"),
        commit_list(&commits.candidate),
        if r.include_first { ", run 1 kept" } else { "" },
    );
    let suites = several_suites(r);
    let row = |c: &GateCell| {
        format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            match c.status {
                Status::Regression => "**regression**".to_string(),
                s => s.as_str().to_string(),
            },
            md_cell(&suite_first(c, suites, c.cell.metric_with_bench())),
            percentile(c.cell.percentile),
            replicates(c),
            md_cell(&with_unit(c.cell.baseline, &c.cell.unit)),
            md_cell(&with_unit(c.cell.candidate, &c.cell.unit)),
            pct(tested_change(c)),
            allowed(c),
            p(c.p_adjusted_worse),
            md_cell(&c.reason)
        )
    };
    const HEAD: &str = "| status | metric | pct | n | baseline | candidate | delta | allowed | p_adj | reason |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
    let gated: Vec<&GateCell> = r.gated().collect();
    if !gated.is_empty() {
        out.push_str(HEAD);
        for c in gated {
            out.push_str(&row(c));
        }
        out.push_str(&format!("\n_{N_NOTE}; {DELTA_NOTE}._\n"));
        if let Some(note) = super::compare::replicate_note(r.gated().map(|c| &c.cell)) {
            out.push_str(&format!("\n_{note}_\n"));
        }
    }
    let info: Vec<&GateCell> = r
        .cells
        .iter()
        .filter(|c| c.status == Status::Info)
        .collect();
    if !info.is_empty() {
        out.push_str(&format!(
            "\n<details><summary>{} not gated</summary>\n\n{HEAD}",
            plural(info.len(), "cell")
        ));
        for c in info {
            out.push_str(&row(c));
        }
        out.push_str("\n</details>\n");
    }
    out.push_str(&super::compare::printed_list(
        r.cells.iter().map(|c| &c.cell),
    ));
    out
}

/// Escapes text for XML attributes and content.
fn xml(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            '\n' => o.push_str("&#10;"),
            // Characters XML 1.0 forbids are dropped.
            c if (c as u32) < 0x20 && c != '\t' && c != '\r' => {}
            c => o.push(c),
        }
    }
    o
}

/// JUnit XML: one testcase per gated cell; regressions are failures, undecided cells
/// are skipped, warnings pass with the reason in `system-out`.
pub fn junit(r: &GateReport) -> String {
    let gated: Vec<&GateCell> = r.gated().collect();
    let failures = r.count(Status::Regression);
    let skipped = r.count(Status::Undecided);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"bench-db gate\" tests=\"{0}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\">\n  <testsuite name=\"bench-db gate\" tests=\"{0}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\">\n",
        gated.len()
    ));
    out.push_str(&format!(
        "    <properties>\n      <property name=\"outcome\" value=\"{}\"/>\n      <property name=\"summary\" value=\"{}\"/>\n    </properties>\n",
        r.outcome.as_str(),
        xml(&r.summary)
    ));
    for c in gated {
        let open = format!(
            "    <testcase classname=\"{}\" name=\"{}\"",
            xml(&c.cell.suite),
            xml(&c.cell.display_name())
        );
        let detail = format!(
            "{}: baseline {} → candidate {} ({}), allowed {}, replicates {}",
            c.cell.display_name(),
            num(c.cell.baseline),
            num(c.cell.candidate),
            pct(tested_change(c)),
            allowed(c),
            replicates(c)
        );
        match c.status {
            Status::Regression => out.push_str(&format!(
                "{open}>\n      <failure type=\"regression\" message=\"{}\">{}</failure>\n    </testcase>\n",
                xml(&c.reason),
                xml(&detail)
            )),
            Status::Undecided => out.push_str(&format!(
                "{open}>\n      <skipped message=\"{}\"/>\n    </testcase>\n",
                xml(&c.reason)
            )),
            _ => out.push_str(&format!(
                "{open}>\n      <system-out>{}</system-out>\n    </testcase>\n",
                xml(&format!("{}; {}", c.reason, detail))
            )),
        }
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// Whether the gated cells come from more than one suite: their names then say which.
fn several_suites(r: &GateReport) -> bool {
    let mut suites = r.cells.iter().map(|c| &c.cell.suite);
    suites
        .next()
        .is_some_and(|first| suites.any(|s| s != first))
}

/// `name` after the cell's suite when `suites` (cells of several suites), else `name`.
fn suite_first(c: &GateCell, suites: bool, name: String) -> String {
    if suites {
        format!("{} / {name}", c.cell.suite)
    } else {
        name
    }
}

/// Escapes workflow-command data (GitHub Actions toolkit `escapeData`).
fn gh_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a workflow-command property (`escapeProperty`).
fn gh_prop(s: &str) -> String {
    gh_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// GitHub Actions workflow commands: `::error` per regression, `::warning` per warning,
/// and a closing `::error`/`::warning`/`::notice` with the outcome.
pub fn github(r: &GateReport) -> String {
    let mut out = String::new();
    let suites = several_suites(r);
    for c in r.gated() {
        // Undecided cells are counted in the closing line: one annotation per cell of a
        // wrk2 spectrum would bury the ones that matter.
        let level = match c.status {
            Status::Regression => "error",
            Status::Warning => "warning",
            _ => continue,
        };
        let name = suite_first(c, suites, c.cell.display_name());
        out.push_str(&format!(
            "::{level} title={}::{}\n",
            gh_prop(&format!("bench-db gate: {name} {}", c.status.as_str())),
            gh_data(&format!(
                "{name}: {} → {} ({}, allowed {}, n {}). {}",
                num(c.cell.baseline),
                num(c.cell.candidate),
                pct(tested_change(c)),
                allowed(c),
                replicates(c),
                c.reason
            ))
        ));
    }
    let level = match r.outcome {
        Outcome::Regression => "error",
        Outcome::Undecided => "warning",
        Outcome::Pass => "notice",
    };
    out.push_str(&format!(
        "::{level} title=bench-db gate::{}\n",
        gh_data(&r.summary)
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::compare::CompareOptions;
    use crate::analysis::gate::{Policy, gate};
    use crate::analysis::testdata::*;

    fn report(swapped: bool) -> GateReport {
        let policy = Policy::default()
            .with_max(&["ts.rt=+5%".to_string()])
            .unwrap();
        let (b, c) = if swapped {
            (seed003_patch(), seed003_master())
        } else {
            (seed003_master(), seed003_patch())
        };
        gate(&b, &c, &policy, &CompareOptions::default()).unwrap()
    }

    /// Parses the JUnit document with a real XML parser and checks its shape: one
    /// `testsuite` whose `tests`/`failures` counts match its `testcase`s.
    fn assert_valid_junit(doc: &str) {
        let xml = roxmltree::Document::parse(doc).expect("JUnit output is well-formed XML");
        let suites: Vec<_> = xml
            .descendants()
            .filter(|n| n.has_tag_name("testsuite"))
            .collect();
        assert!(!suites.is_empty(), "no testsuite");
        for suite in suites {
            let cases: Vec<_> = suite
                .children()
                .filter(|n| n.has_tag_name("testcase"))
                .collect();
            let failures = cases
                .iter()
                .filter(|c| c.children().any(|n| n.has_tag_name("failure")))
                .count();
            assert_eq!(
                suite.attribute("tests").and_then(|t| t.parse().ok()),
                Some(cases.len())
            );
            if let Some(f) = suite.attribute("failures") {
                assert_eq!(f.parse::<usize>().ok(), Some(failures));
            }
        }
    }

    #[test]
    fn every_format_names_the_regressed_cell() {
        let r = report(true);
        assert_eq!(r.outcome, Outcome::Regression);
        let outputs = [
            text(&r, false),
            json(&r),
            markdown(&r, &Commits::default()),
            junit(&r),
            github(&r),
        ];
        for o in &outputs {
            assert!(o.contains("ts.rt"), "{o}");
        }
        insta::assert_snapshot!("fail_text", outputs[0].clone());
        insta::assert_snapshot!("fail_json", outputs[1].clone());
        insta::assert_snapshot!("fail_markdown", outputs[2].clone());
        insta::assert_snapshot!("fail_junit", outputs[3].clone());
        insta::assert_snapshot!("fail_github", outputs[4].clone());
        assert_valid_junit(&outputs[3]);
        assert!(outputs[3].contains("<failure type=\"regression\""));
        assert!(outputs[4].starts_with("::error title=bench-db gate%3A ts.rt regression::"));
        let v: serde_json::Value = serde_json::from_str(&outputs[1]).unwrap();
        assert_eq!(v["exit_code"], 1);
        assert_eq!(v["cells"][0]["metric"], "ts.rt");
        assert_eq!(v["cells"][0]["status"], "regression");
    }

    #[test]
    fn a_throughputs_allowed_change_is_a_fall() {
        let policy = Policy::default()
            .with_max(&["ts.qps=+5%".to_string(), "ts.rt=+5%".to_string()])
            .unwrap();
        let r = gate(
            &seed003_master(),
            &seed003_patch(),
            &policy,
            &CompareOptions::default(),
        )
        .unwrap();
        let row = |out: &str, metric: &str| -> Vec<String> {
            let line = out.lines().find(|l| l.contains(metric)).unwrap();
            line.split_whitespace().map(str::to_string).collect()
        };
        let t = text(&r, false);
        // status, metric, pct, n, baseline, candidate, delta, allowed
        assert_eq!(row(&t, "ts.qps")[7], "-5%", "{t}");
        assert_eq!(row(&t, "ts.rt")[7], "+5%", "{t}");
        let md = markdown(&r, &Commits::default());
        assert!(md.contains("% | -5% |"), "{md}");
        // The reason speaks of worsening in magnitudes, so a fall in throughput reads like a
        // rise in latency.
        let back = gate(
            &seed003_patch(),
            &seed003_master(),
            &policy,
            &CompareOptions::default(),
        )
        .unwrap();
        let qps = back.gated().find(|c| c.cell.metric == "ts.qps").unwrap();
        assert!(
            qps.reason
                .starts_with("worse by 0.23%, within the allowed 5%;"),
            "{}",
            qps.reason
        );
    }

    #[test]
    fn passing_gate_in_every_format() {
        let r = report(false);
        assert_eq!(r.outcome, Outcome::Pass);
        insta::assert_snapshot!("pass_text", text(&r, false));
        insta::assert_snapshot!("pass_json", json(&r));
        insta::assert_snapshot!("pass_markdown", markdown(&r, &Commits::default()));
        let j = junit(&r);
        assert_valid_junit(&j);
        insta::assert_snapshot!("pass_junit", j);
        insta::assert_snapshot!("pass_github", github(&r));
        assert!(text(&r, true).contains("\x1b[32mpass\x1b[0m"));
    }

    /// The percentage in a reason ("better by 12.57%", "worse by 14.37%") is the one in
    /// the delta column, up to the sign the reason words.
    #[test]
    fn the_delta_column_and_the_reason_state_one_number() {
        for swapped in [false, true] {
            let r = report(swapped);
            let text = text(&r, false);
            for c in r.gated() {
                let row = text
                    .lines()
                    .find(|l| l.split_whitespace().nth(1) == Some(c.cell.metric.as_str()))
                    .unwrap();
                let delta = row.split_whitespace().nth(6).unwrap();
                let magnitude = delta.trim_start_matches(['+', '-']);
                let said = c
                    .reason
                    .split_once(" by ")
                    .map(|(_, rest)| {
                        rest.split(['%', ':'])
                            .next()
                            .unwrap()
                            .trim_start_matches('+')
                    })
                    .unwrap();
                assert_eq!(format!("{said}%"), magnitude, "{row}");
            }
        }
    }

    #[test]
    fn markdown_names_commits_run_counts_and_units() {
        let r = report(true);
        let commits = Commits {
            baseline: (0..7).map(|i| format!("{i}{}", "a".repeat(39))).collect(),
            candidate: vec!["0123456789abcdef0123456789abcdef01234567".to_string()],
        };
        let md = markdown(&r, &commits);
        assert!(
            md.contains("Compared 1 baseline run (commits `0aaaaaaaaaaa`, `1aaaaaaaaaaa`, `2aaaaaaaaaaa`, `3aaaaaaaaaaa`, `4aaaaaaaaaaa`, 2 more) with 1 candidate run (commit `0123456789ab`)."),
            "{md}"
        );
        // A ladder in microseconds: both values carry the unit.
        let base = ladder_runs("end_to_end", "us", &[(99.0, &[10.0, 10.0, 10.0, 10.0])], 1);
        let cand = ladder_runs("end_to_end", "us", &[(99.0, &[12.0, 12.0, 12.0, 12.0])], 1);
        let r = gate(&base, &cand, &Policy::default(), &CompareOptions::default()).unwrap();
        let md = markdown(&r, &Commits::of(&base, &cand));
        assert!(md.contains("| 10 us | 12 us |"), "{md}");
        assert!(md.contains("(no commit tag)"), "{md}");
    }

    #[test]
    fn escaping() {
        assert_eq!(xml("a<b & \"c\"\u{1}"), "a&lt;b &amp; &quot;c&quot;");
        assert_eq!(gh_prop("a:b,c%"), "a%3Ab%2Cc%25");
        assert_eq!(gh_data("x\ny"), "x%0Ay");
    }
}
