//! Renders a comparison: aligned text (verdicts coloured on a terminal), JSON, Markdown.

use super::table::Cell as T;
use super::{json_num, md_cell, num, p, pct, percentile};
use crate::analysis::compare::{
    Cell, OneSided, Replicates, SERIES_MIN_ESS, TestMethod, Unpaired, Verdict,
};
use crate::analysis::printed::{Headline, PrintedChange};
use crate::analysis::samples::{Identity, identity_text};
use crate::numfmt::plural;
use serde::Serialize;
use std::collections::BTreeMap;

/// What the rarer verdicts mean, where a row has one.
fn verdict_note(cells: &[Cell]) -> Option<String> {
    let mut notes = Vec::new();
    let thin_series = cells
        .iter()
        .filter(|c| c.verdict == Verdict::Insufficient && c.ess_baseline.is_some())
        .count();
    if thin_series > 0 {
        notes.push(format!(
            "insufficient ({}): autocorrelation leaves fewer than {SERIES_MIN_ESS} independent samples a side (ess_baseline, ess_candidate in --json), so p and CI do not hold their level; store more minutes or runs",
            plural(thin_series, "row")
        ));
    }
    let unbounded = cells
        .iter()
        .filter(|c| {
            c.ess_baseline.is_some()
                && c.delta_pct.is_some()
                && c.ci_low_pct.is_none()
                && c.testable()
        })
        .count();
    if unbounded > 0 {
        notes.push(format!(
            "no CI ({}): a series' CI is that of the ratio of its means (Fieller), which has no upper bound while the baseline mean cannot be told from 0",
            plural(unbounded, "row")
        ));
    }
    let opposed = cells
        .iter()
        .filter(|c| opposed(c.delta_pct, c.central_delta_pct))
        .count();
    if let Some(note) = opposed_note(opposed, "delta") {
        notes.push(note);
    }
    if cells.iter().any(|c| c.verdict == Verdict::Changed) {
        notes.push(
            "changed = significant, but the metric has no known better direction (give it one in a gate policy's [polarity])"
                .to_string(),
        );
    }
    (!notes.is_empty()).then(|| notes.join("\n"))
}

/// An identity's benchmark, configuration and label as one line (empty when it has none).
fn identity_name(i: &Identity) -> String {
    identity_text(
        i.bench.as_deref(),
        i.config.iter().map(|(k, v)| (k, v)),
        i.label.as_deref(),
    )
}

/// The benchmarks only one side holds, one line a side (none when both sides hold the
/// same): `only in the baseline, not compared: go-bench / BenchmarkJoin [pkg=…]`.
pub fn one_sided_text(o: &OneSided) -> Vec<String> {
    let names = |ids: &[Identity]| -> String {
        let names: Vec<String> = ids
            .iter()
            .map(|i| {
                let t = identity_name(i);
                let name = if t.is_empty() {
                    i.suite.clone()
                } else {
                    format!("{} / {t}", i.suite)
                };
                super::escape::text(&name).into_owned()
            })
            .collect();
        crate::numfmt::first_names(&names, 3).replace(", ", "; ")
    };
    let mut out = Vec::new();
    for (side, ids, hint) in [
        ("baseline", &o.baseline, "dropped or renamed?"),
        ("candidate", &o.candidate, "new or renamed?"),
    ] {
        if !ids.is_empty() {
            out.push(format!(
                "only in the {side}, not compared ({hint}): {} ({})",
                plural(ids.len(), "benchmark"),
                names(ids)
            ));
        }
    }
    if !o.unnumbered.is_empty() {
        let cells: Vec<String> = o
            .unnumbered
            .iter()
            .map(|u| {
                let sides = match (u.baseline, u.candidate) {
                    (true, true) => "both sides",
                    (true, false) => "the baseline",
                    _ => "the candidate",
                };
                let name = names(std::slice::from_ref(&u.identity));
                format!("{name} {} on {sides}", super::escape::text(&u.metric))
            })
            .collect();
        out.push(format!(
            "not compared, printed without a number (such as JMH's `≈ 10⁻⁴` or `NaN`): {} ({})",
            plural(cells.len(), "cell"),
            crate::numfmt::first_names(&cells, 3).replace(", ", "; ")
        ));
    }
    out
}

/// Why a metric both sides hold gave no row, as one line: each side's configurations
/// of it and the keys that select one.
pub fn unpaired_text(u: &Unpaired) -> String {
    let side = |ids: &[Identity]| {
        let names: Vec<String> = ids
            .iter()
            .map(|i| {
                let t = identity_name(i);
                if t.is_empty() {
                    "no configuration".to_string()
                } else {
                    super::escape::text(&t).into_owned()
                }
            })
            .collect();
        format!(
            "{} ({})",
            plural(ids.len(), "configuration"),
            crate::numfmt::first_names(&names, 3).replace(", ", "; ")
        )
    };
    let mut line = format!(
        "metric \"{}\" is on both sides, but no cell pairs: the baseline holds it in {}, the candidate in {}; a side's configurations are never pooled, so cells pair only with the same configuration on the other side, or when each side holds one",
        super::escape::text(&u.metric),
        side(&u.baseline),
        side(&u.candidate)
    );
    if !u.keys.is_empty() {
        let terms: Vec<String> = u
            .keys
            .iter()
            .map(|(k, v)| super::escape::text(&format!("param.{k}={}", v.join("|"))).into_owned())
            .collect();
        line.push_str(&format!(
            "; select one on each side with {}",
            terms.join(", ")
        ));
    }
    line
}

/// The text output when no row paired although both sides hold metrics: why, per metric.
pub fn nothing_paired(unpaired: &[Unpaired]) -> String {
    let mut out = String::from(
        "no cell pairs between the sides:
",
    );
    for u in unpaired {
        out.push_str(&format!("- {}\n", unpaired_text(u)));
    }
    out
}

/// Which configuration keys the rows were paired across, where the sides' configurations
/// differ in keys no selector names; `None` when they do not.
pub fn paired_note<'a>(cells: impl IntoIterator<Item = &'a Cell>) -> Option<String> {
    let (mut rows, mut changes, mut keys) = (0, Vec::new(), Vec::new());
    for c in cells {
        let change = c.config_change();
        if change.is_empty() {
            continue;
        }
        rows += 1;
        for (k, v) in change {
            let text = format!("{k}={v}");
            if !changes.contains(&text) {
                changes.push(text);
            }
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    (rows > 0).then(|| {
        let named: Vec<String> = keys.iter().map(|k| format!("param.{k}=…")).collect();
        format!(
            "paired across configurations ({}: {}): each side holds one configuration, and cells differing only in {}, which no selector names, were paired; name {} in both selectors ({}) to make that the comparison, or select the same configuration on both sides",
            plural(rows, "row"),
            changes.join(", "),
            if keys.len() == 1 { "this key" } else { "these keys" },
            if keys.len() == 1 { "it" } else { "them" },
            named.join(";")
        )
    })
}

/// Whether a row's estimate (`delta_pct`) and the change of its central values
/// (`central_delta_pct`) point opposite ways, each by 0.005% or more.
pub fn opposed(delta_pct: Option<f64>, central_delta_pct: Option<f64>) -> bool {
    match (delta_pct, central_delta_pct) {
        (Some(d), Some(m)) => d.abs() >= 0.005 && m.abs() >= 0.005 && (d < 0.0) != (m < 0.0),
        _ => false,
    }
}

/// What it means that `rows` rows are [`opposed`], `column` naming the estimate's column;
/// `None` for none. `compare` and the report's comparison tables say it alike.
pub fn opposed_note(rows: usize, column: &str) -> Option<String> {
    (rows > 0).then(|| {
        format!(
            "{column} and the baseline/candidate columns point opposite ways ({}): {column} is the tested change of the replicates' trimmed geometric mean; the columns are their median or mean, which a few replicates can pull (central_delta_pct in --json)",
            plural(rows, "row")
        )
    })
}

fn verdict_color(v: Verdict) -> &'static str {
    match v {
        Verdict::Better => "32",
        Verdict::Worse => "31",
        Verdict::Same | Verdict::Changed => "",
        Verdict::Inconclusive | Verdict::Insufficient => "33",
    }
}

fn ci(c: &Cell) -> String {
    match (c.ci_low_pct, c.ci_high_pct) {
        (Some(lo), Some(hi)) => format!("[{}, {}]", pct(Some(lo)), pct(Some(hi))),
        _ => "-".to_string(),
    }
}

/// Whether any row has a benchmark or a configuration to name.
fn named_benches(cells: &[Cell]) -> bool {
    cells
        .iter()
        .any(|c| c.bench.is_some() || !c.config.is_empty() || !c.config_change().is_empty())
}

fn has_concurrency(cells: &[Cell]) -> bool {
    cells.iter().any(|c| c.metric.ends_with("concurrency"))
}

const LITTLE: &str = "concurrency = qps × rt (Little's law: requests in flight)";

/// What the warm-up rule did to the compared runs: the footer speaks of JLBH's warm-up
/// run only when one was among them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WarmUpRuns {
    /// Warm-up runs left out (the default).
    pub skipped: usize,
    /// Warm-up runs kept (`--include-first`).
    pub kept: usize,
}

impl WarmUpRuns {
    /// Counts the warm-up runs (`analysis::warmup`) among both sides.
    pub fn of(sides: &[&[crate::dataset::StoredRun]], include_first: bool) -> WarmUpRuns {
        let n = sides
            .iter()
            .flat_map(|s| s.iter())
            .filter(|r| crate::analysis::warmup::is_warmup(r))
            .count();
        if include_first {
            WarmUpRuns {
                skipped: 0,
                kept: n,
            }
        } else {
            WarmUpRuns {
                skipped: n,
                kept: 0,
            }
        }
    }

    fn note(self) -> String {
        if self.skipped > 0 {
            format!(
                " (JLBH's warm-up run 1 skipped: {}; --include-first keeps it)",
                super::plural(self.skipped, "run")
            )
        } else if self.kept > 0 {
            format!(
                " (JLBH's warm-up run 1 kept: {})",
                super::plural(self.kept, "run")
            )
        } else {
            String::new()
        }
    }
}

/// Aligned text table, one row per cell.
pub fn text(cells: &[Cell], warm_up: WarmUpRuns, color: bool) -> String {
    if cells.is_empty() {
        return "no metric is present on both sides\n".to_string();
    }
    let mut rows: Vec<Vec<T>> = vec![
        [
            "suite",
            "metric",
            "pct",
            "unit",
            "n",
            "baseline",
            "candidate",
            "delta",
            "95% CI",
            "p",
            "p_adj",
            "verdict",
        ]
        .into_iter()
        .map(T::from)
        .collect(),
    ];
    let benches = named_benches(cells);
    if benches {
        rows[0].insert(1, T::from("bench"));
    }
    for c in cells {
        let mut row: Vec<T> = vec![
            c.suite.as_str().into(),
            c.metric.as_str().into(),
            percentile(c.percentile).into(),
            c.unit.as_str().into(),
            format!("{}/{}", c.n_baseline, c.n_candidate).into(),
            num(c.baseline).into(),
            num(c.candidate).into(),
            pct(c.delta_pct).into(),
            ci(c).into(),
            p(c.p_value).into(),
            p(c.p_adjusted).into(),
            T {
                text: c.verdict.as_str().to_string(),
                color: verdict_color(c.verdict),
            },
        ];
        if benches {
            row.insert(1, c.bench_text().into());
        }
        rows.push(row);
    }
    let under: Vec<Option<String>> = cells.iter().map(printed_line).collect();
    let mut out = super::table::render_with_lines(rows, &under, color);
    out.push_str(&format!(
        "\nn = replicates baseline/candidate: runs{}",
        warm_up.note()
    ));
    out.push_str(
        "; samples of a \
         series with one run a side, tested with an autocorrelation-aware t. p: permutation test \
         of whole runs on Yuen's trimmed t of log values (0, 10% or 20% trimmed from 8 runs a \
         side, chosen from the pooled runs; exact when the rearrangements can be enumerated, else \
         sampled), nothing dropped; CI: of the trimmed geometric-mean change, \
         by inverting the same test; p_adj: step-down max-T within each group of rows measured by \
         the same runs (one benchmark's metrics and percentiles), Bonferroni across those groups; \
         Holm across the series tested on samples, and apart across the rows of one invocation \
         against several; Bonferroni over those kinds when more than one is present. same = not \
         significant and the CI within ±10%, or every replicate of both sides one value; \
         inconclusive = neither.\n",
    );
    if let Some(note) = paired_note(cells) {
        out.push_str(&note);
        out.push('\n');
    }
    if let Some(note) = verdict_note(cells) {
        out.push_str(&note);
        out.push('\n');
    }
    if let Some(note) = replicate_note(cells) {
        out.push_str(&note);
        out.push('\n');
    }
    let outliers: usize = cells
        .iter()
        .map(|c| c.outliers_baseline + c.outliers_candidate)
        .sum();
    if outliers > 0 {
        out.push_str(&format!(
            "{} beyond a modified z-score of 3.5 (kept, not removed)\n",
            super::plural(outliers, "replicate")
        ));
    }
    if has_concurrency(cells) {
        out.push_str(LITTLE);
        out.push('\n');
    }
    out
}

/// What the replicates of the tested cells were, where that is not plain runs of several
/// invocations: one invocation a side (the test covers only the variation within it), or
/// invocations as replicates. `None` when no tested cell needs saying.
pub fn replicate_note<'a>(cells: impl IntoIterator<Item = &'a Cell>) -> Option<String> {
    let (mut within, mut invocations, mut prediction) = (0, 0, 0);
    for c in cells.into_iter().filter(|c| c.p_value.is_some()) {
        if c.within_invocation {
            within += 1;
        } else if c.method == TestMethod::PredictionT {
            prediction += 1;
        } else if c.replicates == Replicates::Invocations {
            invocations += 1;
        }
    }
    let mut notes = Vec::new();
    if within > 0 {
        notes.push(format!(
            "within one invocation ({}): one process's output a side, so p and CI cover the variation within that invocation only, not from one process to the next; rerun each side as several invocations to test that.",
            super::plural(within, "row")
        ));
    }
    if invocations > 0 {
        notes.push(format!(
            "invocations as replicates ({}): each process's runs count as one replicate, their 20%-trimmed geometric mean.",
            super::plural(invocations, "row")
        ));
    }
    if prediction > 0 {
        notes.push(format!(
            "one invocation against several ({}): tested by where the several invocations' t prediction interval puts the one, Holm across those rows.",
            super::plural(prediction, "row")
        ));
    }
    (!notes.is_empty()).then(|| notes.join(" "))
}

/// The Markdown list of what the tools printed for `cells` (one item per cell that has a
/// [`printed_line`]), after a blank line and a heading; empty when none has one.
pub fn printed_list<'c>(cells: impl Iterator<Item = &'c Cell>) -> String {
    let items: String = cells
        .filter_map(|c| {
            let line = printed_line(c)?;
            Some(format!(
                "- {}: {}\n",
                md_cell(&c.display_name()),
                md_cell(&line)
            ))
        })
        .collect();
    if items.is_empty() {
        return items;
    }
    format!("\nWhat the tool printed:\n\n{items}")
}

/// What the tool printed for a cell, as one line (`JMH printed: baseline 12.453 ± 1.823
/// ops/ms, candidate 12.661 ± 1.11 ops/ms`); `None` when neither side printed one.
pub fn printed_line(c: &Cell) -> Option<String> {
    printed_text(
        c.printed_baseline.as_ref(),
        c.printed_candidate.as_ref(),
        &c.printed_change,
        c.printed_note.as_deref(),
    )
}

/// [`printed_line`] of a cell's printed parts: each side's headline, the tool's own change
/// and why a side shows none (also what the report shows under a compared cell).
pub fn printed_text(
    baseline: Option<&Headline>,
    candidate: Option<&Headline>,
    change: &[PrintedChange],
    not_printed: Option<&str>,
) -> Option<String> {
    let tool = baseline.or(candidate).map(|h| h.tool);
    let side = |h: Option<&Headline>| {
        h.map_or("-".to_string(), |h| {
            format!(
                "{} ({})",
                h.text(|v| crate::numfmt::sig_plain(v, 5)),
                h.name
            )
        })
    };
    let mut line = match tool {
        Some(tool) => format!(
            "{tool} printed: baseline {}, candidate {}",
            side(baseline),
            side(candidate)
        ),
        None => String::new(),
    };
    let notes: Vec<&str> = [baseline, candidate]
        .into_iter()
        .filter_map(|h| h?.note.as_deref())
        .collect();
    if let Some(note) = notes.first() {
        line.push_str(&format!("; {note}"));
    }
    if let Some(first) = change.first() {
        let changes: Vec<String> = change
            .iter()
            .map(|ch| {
                format!(
                    "{} {:+.2}% [{:+.2}%, {:+.2}%]",
                    ch.name, ch.pct, ch.low_pct, ch.high_pct
                )
            })
            .collect();
        if !line.is_empty() {
            line.push_str("; ");
        }
        line.push_str(&format!(
            "{}'s own change against this baseline: {}",
            first.tool,
            changes.join(", ")
        ));
    }
    if let Some(note) = not_printed {
        if !line.is_empty() {
            line.push_str("; ");
        }
        line.push_str(&format!("not printed: {note}"));
    }
    (!line.is_empty()).then_some(line)
}

/// The invocations and runs behind a cell's replicates, as both `compare --json` and
/// `gate --json` print them (flattened into the cell).
#[derive(Serialize)]
pub(super) struct Replicated {
    invocations_baseline: usize,
    invocations_candidate: usize,
    within_invocation: bool,
    runs_baseline: usize,
    runs_candidate: usize,
    invocation_noise_pct: Option<f64>,
    earlier_invocations: usize,
}

impl Replicated {
    pub(super) fn of(c: &Cell) -> Replicated {
        Replicated {
            invocations_baseline: c.invocations_baseline,
            invocations_candidate: c.invocations_candidate,
            within_invocation: c.within_invocation,
            runs_baseline: c.runs_baseline,
            runs_candidate: c.runs_candidate,
            invocation_noise_pct: json_num(c.invocation_noise_pct),
            earlier_invocations: c.earlier_invocations,
        }
    }
}

/// One element of the `--json` array: the documented keys first, in this order, then
/// the ones added since (`schema` 1).
#[derive(Serialize)]
struct JsonCell<'a> {
    suite: &'a str,
    /// The benchmark (`null` when the format names none or it is the comparison's axis).
    bench: Option<&'a str>,
    /// The benchmark's configuration, less the comparison's axis.
    config: BTreeMap<&'a str, &'a str>,
    metric: &'a str,
    percentile: Option<f64>,
    baseline: Option<f64>,
    candidate: Option<f64>,
    delta_pct: Option<f64>,
    ci_low_pct: Option<f64>,
    ci_high_pct: Option<f64>,
    p_value: Option<f64>,
    p_adjusted: Option<f64>,
    verdict: Verdict,
    schema: u32,
    unit: &'a str,
    n_baseline: usize,
    n_candidate: usize,
    replicates: Replicates,
    ess_baseline: Option<f64>,
    ess_candidate: Option<f64>,
    shift_pct: Option<f64>,
    method: TestMethod,
    p_worse: Option<f64>,
    p_floor: Option<f64>,
    outliers_baseline: usize,
    outliers_candidate: usize,
    /// The change of the central values (`baseline`, `candidate`).
    central_delta_pct: Option<f64>,
    #[serde(flatten)]
    replicates_of: Replicated,
    /// What the tool printed for the cell on each side (see `compare --help`).
    printed_baseline: Option<&'a Headline>,
    printed_candidate: Option<&'a Headline>,
    printed_note: Option<&'a str>,
    /// The change the tool itself printed between the two sides (see `compare --help`).
    printed_change: &'a [crate::analysis::printed::PrintedChange],
    /// The label someone gave the runs (`null` when none, or when it is the axis).
    label: Option<&'a str>,
    /// The configuration keys no selector names in which the paired sides differ, each
    /// side's values (empty when the sides agree).
    config_baseline: BTreeMap<&'a str, &'a str>,
    config_candidate: BTreeMap<&'a str, &'a str>,
}

/// `(key, value)` pairs as a JSON object.
pub(super) fn pairs(p: &[(String, String)]) -> BTreeMap<&str, &str> {
    p.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
}

/// Top-level JSON array of cells.
pub fn json(cells: &[Cell]) -> String {
    let rows: Vec<JsonCell> = cells
        .iter()
        .map(|c| JsonCell {
            suite: &c.suite,
            bench: c.bench.as_deref(),
            config: pairs(&c.config),
            metric: &c.metric,
            percentile: c.percentile,
            baseline: json_num(c.baseline),
            candidate: json_num(c.candidate),
            delta_pct: json_num(c.delta_pct),
            ci_low_pct: json_num(c.ci_low_pct),
            ci_high_pct: json_num(c.ci_high_pct),
            p_value: c.p_value,
            p_adjusted: c.p_adjusted,
            verdict: c.verdict,
            schema: 1,
            unit: &c.unit,
            n_baseline: c.n_baseline,
            n_candidate: c.n_candidate,
            replicates: c.replicates,
            ess_baseline: json_num(c.ess_baseline),
            ess_candidate: json_num(c.ess_candidate),
            shift_pct: json_num(c.shift_pct),
            method: c.method,
            p_worse: c.p_worse,
            p_floor: c.p_floor,
            outliers_baseline: c.outliers_baseline,
            outliers_candidate: c.outliers_candidate,
            central_delta_pct: json_num(c.central_delta_pct),
            replicates_of: Replicated::of(c),
            printed_baseline: c.printed_baseline.as_ref(),
            printed_candidate: c.printed_candidate.as_ref(),
            printed_note: c.printed_note.as_deref(),
            printed_change: &c.printed_change,
            label: c.label.as_deref(),
            config_baseline: pairs(&c.config_baseline),
            config_candidate: pairs(&c.config_candidate),
        })
        .collect();
    let mut s = serde_json::to_string_pretty(&rows).unwrap_or_else(|_| "[]".to_string());
    s.push('\n');
    s
}

/// A Markdown table for a pull-request comment.
pub fn markdown(cells: &[Cell]) -> String {
    let benches = named_benches(cells);
    let mut out = if benches {
        String::from(
            "| suite | bench | metric | pct | baseline | candidate | delta | 95% CI | p (adj) | verdict |\n\
             |---|---|---|---:|---:|---:|---:|---|---:|---|\n",
        )
    } else {
        String::from(
            "| suite | metric | pct | baseline | candidate | delta | 95% CI | p (adj) | verdict |\n\
             |---|---|---:|---:|---:|---:|---|---:|---|\n",
        )
    };
    for c in cells {
        let verdict = match c.verdict {
            Verdict::Better | Verdict::Worse => format!("**{}**", c.verdict.as_str()),
            v => v.as_str().to_string(),
        };
        let unit = if c.unit.is_empty() {
            String::new()
        } else {
            format!(" {}", c.unit)
        };
        let suite = if benches {
            format!("{} | {}", md_cell(&c.suite), md_cell(&c.bench_text()))
        } else {
            md_cell(&c.suite)
        };
        out.push_str(&format!(
            "| {} | {} | {} | {}{unit} | {}{unit} | {} | {} | {} | {} |\n",
            suite,
            md_cell(&c.metric),
            percentile(c.percentile),
            num(c.baseline),
            num(c.candidate),
            pct(c.delta_pct),
            ci(c),
            p(c.p_adjusted),
            verdict
        ));
    }
    if cells.is_empty() {
        out.push_str("\n_No metric is present on both sides._\n");
    }
    if let Some(note) = paired_note(cells) {
        out.push_str(&format!("\n_{}_\n", md_cell(&note)));
    }
    if let Some(note) = replicate_note(cells) {
        out.push_str(&format!("\n_{note}_\n"));
    }
    out.push_str(&printed_list(cells.iter()));
    if has_concurrency(cells) {
        out.push_str(&format!("\n{LITTLE}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::compare::{CompareOptions, compare};
    use crate::analysis::testdata::*;

    fn seed003() -> Vec<Cell> {
        compare(
            &seed003_master(),
            &seed003_patch(),
            &[],
            &CompareOptions::default(),
        )
    }

    #[test]
    fn text_snapshot() {
        insta::assert_snapshot!(text(&seed003(), WarmUpRuns::default(), false));
        let coloured = text(&seed003(), WarmUpRuns::default(), true);
        assert!(coloured.contains("\x1b[32mbetter\x1b[0m"));
        assert!(coloured.contains("\x1b[31mworse\x1b[0m"));
    }

    #[test]
    fn json_snapshot_and_keys() {
        let s = json(&seed003());
        insta::assert_snapshot!(s);
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        let first = v.as_array().unwrap()[0].as_object().unwrap();
        let keys: Vec<&str> = first.keys().map(String::as_str).collect();
        let mut want = vec![
            "suite",
            "metric",
            "percentile",
            "baseline",
            "candidate",
            "delta_pct",
            "ci_low_pct",
            "ci_high_pct",
            "p_value",
            "p_adjusted",
            "verdict",
        ];
        // Documented keys stay; `schema` 1 added unit, counts, shift and method.
        want.extend([
            "schema",
            "unit",
            "n_baseline",
            "n_candidate",
            "replicates",
            "ess_baseline",
            "ess_candidate",
            "shift_pct",
            "method",
            "p_worse",
            "p_floor",
            "outliers_baseline",
            "outliers_candidate",
        ]);
        // The cell's benchmark identity.
        want.extend(["bench", "config"]);
        // The change of the central values, beside the one estimate `delta_pct`; the
        // invocations and runs behind the replicates.
        want.extend([
            "central_delta_pct",
            "invocations_baseline",
            "invocations_candidate",
            "within_invocation",
            "runs_baseline",
            "runs_candidate",
            "invocation_noise_pct",
            "earlier_invocations",
        ]);
        // What the tool printed for the cell on each side (null for tsar, which prints
        // no per-cell summary).
        want.extend([
            "printed_baseline",
            "printed_candidate",
            "printed_note",
            "printed_change",
        ]);
        want.push("label");
        // The configuration keys the sides were paired across.
        want.extend(["config_baseline", "config_candidate"]);
        want.sort();
        assert_eq!(keys, want);
        assert_eq!(first["schema"], 1);
        let rt = v
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["metric"] == "ts.rt")
            .unwrap();
        assert_eq!(rt["baseline"], 3.388);
        assert_eq!(rt["verdict"], "better");
        assert!(rt["percentile"].is_null());
        assert!(rt["printed_baseline"].is_null() && rt["printed_note"].is_null());
    }

    /// The footer speaks of JLBH's warm-up run only when one was among the runs.
    #[test]
    fn warm_up_footer_only_for_jlbh_layout_runs() {
        let cells = seed003();
        let tsar = text(&cells, WarmUpRuns::of(&[&seed003_master()], false), false);
        assert!(!tsar.contains("warm-up"), "{tsar}");
        let jlbh = ladder_runs("end_to_end", "us", &[(99.0, &[1.0, 2.0, 3.0])], 1);
        let skipped = text(&cells, WarmUpRuns::of(&[&jlbh, &jlbh], false), false);
        assert!(
            skipped
                .contains("runs (JLBH's warm-up run 1 skipped: 2 runs; --include-first keeps it)"),
            "{skipped}"
        );
        let kept = text(&cells, WarmUpRuns::of(&[&jlbh], true), false);
        assert!(
            kept.contains("(JLBH's warm-up run 1 kept: 1 run)"),
            "{kept}"
        );
    }

    #[test]
    fn markdown_snapshot() {
        insta::assert_snapshot!(markdown(&seed003()));
    }

    #[test]
    fn single_values_and_jgroups() {
        let z = compare(
            &seed004_before(),
            &seed004_after(),
            &[],
            &CompareOptions::default(),
        );
        insta::assert_snapshot!("seed004_text", text(&z, WarmUpRuns::default(), false));
        let j = compare(
            &seed002_default(),
            &seed002_tcp(),
            &[],
            &CompareOptions::default(),
        );
        insta::assert_snapshot!("seed002_text", text(&j, WarmUpRuns::default(), false));
    }
}
