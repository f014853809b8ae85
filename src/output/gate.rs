//! Renders a gate report: text summary, JSON verdict, Markdown, JUnit XML, GitHub
//! workflow commands. Every format names each regressed cell.

use super::table::{Cell as T, render};
use super::{json_num, md_cell, num, p, pct, percentile};
use crate::analysis::compare::{Replicates, TestMethod};
use crate::analysis::gate::{GateCell, GateReport, Outcome, Status};
use crate::analysis::polarity::Polarity;
use serde::Serialize;

fn status_color(s: Status) -> &'static str {
    match s {
        Status::Pass => "32",
        Status::Regression => "31",
        Status::Warning | Status::Undecided => "33",
        Status::Info => "",
    }
}

fn allowed(c: &GateCell) -> String {
    c.threshold_pct
        .map_or("-".to_string(), |t| format!("+{t}%"))
}

fn header(r: &GateReport) -> String {
    format!(
        "gate: {} ({})\nbaseline {} run(s), candidate {} run(s){}; alpha {}, at least {} replicates a side, noise multiplier {}\nfamily: {}\n",
        r.outcome.as_str().to_uppercase(),
        r.summary,
        r.baseline_runs,
        r.candidate_runs,
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
    let mut rows: Vec<Vec<T>> = vec![
        [
            "status",
            "metric",
            "pct",
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
            c.cell.metric.as_str().into(),
            percentile(c.cell.percentile).into(),
            num(c.cell.baseline).into(),
            num(c.cell.candidate).into(),
            pct(c.cell.delta_pct).into(),
            allowed(c).into(),
            c.cell
                .noise_pct
                .map_or("-".to_string(), |n| format!("{n:.2}%"))
                .into(),
            p(c.p_adjusted_worse).into(),
            c.reason.as_str().into(),
        ]);
    }
    out.push_str(&render(rows, color));
    out
}

#[derive(Serialize)]
struct JsonCell<'a> {
    suite: &'a str,
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
        exit_code: crate::cmd::gate::exit_code(r.outcome),
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
            })
            .collect(),
    };
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".to_string());
    s.push('\n');
    s
}

/// Markdown for a job summary or pull-request comment: gated cells in a table, the
/// informational ones folded away.
pub fn markdown(r: &GateReport) -> String {
    let mut out = format!(
        "### bench-db gate: {}\n\n{}\n\n",
        r.outcome.as_str(),
        md_cell(&r.summary)
    );
    let row = |c: &GateCell| {
        format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            match c.status {
                Status::Regression => "**regression**".to_string(),
                s => s.as_str().to_string(),
            },
            md_cell(&c.cell.metric),
            percentile(c.cell.percentile),
            num(c.cell.baseline),
            num(c.cell.candidate),
            pct(c.cell.delta_pct),
            allowed(c),
            p(c.p_adjusted_worse),
            md_cell(&c.reason)
        )
    };
    const HEAD: &str = "| status | metric | pct | baseline | candidate | delta | allowed | p_adj | reason |\n|---|---|---:|---:|---:|---:|---:|---:|---|\n";
    let gated: Vec<&GateCell> = r.gated().collect();
    if !gated.is_empty() {
        out.push_str(HEAD);
        for c in gated {
            out.push_str(&row(c));
        }
    }
    let info: Vec<&GateCell> = r
        .cells
        .iter()
        .filter(|c| c.status == Status::Info)
        .collect();
    if !info.is_empty() {
        out.push_str(&format!(
            "\n<details><summary>{} cell(s) not gated</summary>\n\n{HEAD}",
            info.len()
        ));
        for c in info {
            out.push_str(&row(c));
        }
        out.push_str("\n</details>\n");
    }
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
            xml(&c.cell.name())
        );
        let detail = format!(
            "{}: baseline {} → candidate {} ({}), allowed {}",
            c.cell.name(),
            num(c.cell.baseline),
            num(c.cell.candidate),
            pct(c.cell.delta_pct),
            allowed(c)
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
    for c in r.gated() {
        // Undecided cells are counted in the closing line: one annotation per cell of a
        // wrk2 spectrum would bury the ones that matter.
        let level = match c.status {
            Status::Regression => "error",
            Status::Warning => "warning",
            _ => continue,
        };
        out.push_str(&format!(
            "::{level} title={}::{}\n",
            gh_prop(&format!(
                "bench-db gate: {} {}",
                c.cell.name(),
                c.status.as_str()
            )),
            gh_data(&format!(
                "{}: {} → {} ({}, allowed {}). {}",
                c.cell.name(),
                num(c.cell.baseline),
                num(c.cell.candidate),
                pct(c.cell.delta_pct),
                allowed(c),
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
            markdown(&r),
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
    fn passing_gate_in_every_format() {
        let r = report(false);
        assert_eq!(r.outcome, Outcome::Pass);
        insta::assert_snapshot!("pass_text", text(&r, false));
        insta::assert_snapshot!("pass_json", json(&r));
        insta::assert_snapshot!("pass_markdown", markdown(&r));
        let j = junit(&r);
        assert_valid_junit(&j);
        insta::assert_snapshot!("pass_junit", j);
        insta::assert_snapshot!("pass_github", github(&r));
        assert!(text(&r, true).contains("\x1b[32mpass\x1b[0m"));
    }

    #[test]
    fn escaping() {
        assert_eq!(xml("a<b & \"c\"\u{1}"), "a&lt;b &amp; &quot;c&quot;");
        assert_eq!(gh_prop("a:b,c%"), "a%3Ab%2Cc%25");
        assert_eq!(gh_data("x\ny"), "x%0Ay");
    }
}
