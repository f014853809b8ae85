//! The pages: `index.html` (what got better, what got worse, one link per suite) and
//! one self-contained page per suite (CSS and SVG inline, no JavaScript, no network)
//! holding every chart and table for its runs. Returns file names and contents; the
//! command writes them.

use super::delta::Delta;
use super::fmt::{self, escape, signed_pct};
use super::pairing::Comparison;
use super::slo::{self, SloTerm};
use super::variation::{self, group_title};
use super::{curve, history, shift, spectrum, timeseries};
use crate::analysis::curve as analysis_curve;
use crate::analysis::polarity::{Polarity, polarity};
use crate::dataset::StoredRun;
use anyhow::Result;
use bench_db_parsers::Data;
use std::collections::BTreeMap;

const TEMPLATE: &str = include_str!("../../reports/page.html");
const CSS: &str = include_str!("../../reports/style.css");

/// Groups drawn per suite page; older groups are listed, not drawn, so a page stays
/// quick to render and small however many runs a suite holds.
pub const MAX_GROUPS_DRAWN: usize = 30;
/// A suite with more groups than this lists them on pages of this many groups each
/// (`groups-SUITE-K.html`), with their run and variation tables, and no charts.
pub const GROUPS_PER_PAGE: usize = 50;
/// Cells listed in each of the index's better/worse lists.
pub const SUMMARY_ROWS: usize = 12;
/// Percentiles drawn on throughput/latency curves.
pub const CURVE_PERCENTILES: [f64; 4] = [50.0, 90.0, 99.0, 99.9];

/// What the report shows beyond the runs themselves.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub slo: Vec<SloTerm>,
}

/// The report's files, `index.html` first.
#[derive(Debug, Clone, PartialEq)]
pub struct Site {
    pub files: Vec<(String, String)>,
}

/// Whether a cell got better (`Some(true)`), worse (`Some(false)`) or neither. Tested
/// verdicts are taken as they are; a cell with too few replicates for a test
/// (`insufficient`, e.g. one value per side) goes by the direction of its change.
fn direction(d: &Delta) -> Option<bool> {
    match d.verdict.as_str() {
        "better" => Some(true),
        "worse" => Some(false),
        "insufficient" => {
            let pct = d.delta_pct.filter(|p| p.abs() >= 0.005)?;
            Some((pct < 0.0) == (polarity(&d.metric, &d.unit) == Polarity::Lower))
        }
        _ => None,
    }
}

fn page(title: &str, body: &str) -> String {
    fill(
        TEMPLATE,
        &[("title", &escape(title)), ("css", CSS), ("body", body)],
    )
}

/// The template with each `{{name}}` replaced by its value, in one pass over the
/// template: text already inserted is never scanned again, so a suite named `{{body}}`
/// stays a title. Unknown slots are left as they are.
fn fill(template: &str, slots: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + slots.iter().map(|s| s.1.len()).sum::<usize>());
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let slot = after.find("}}").and_then(|close| {
            let name = &after[..close];
            slots
                .iter()
                .find(|s| s.0 == name)
                .map(|s| (s.1, close + 2))
        });
        match slot {
            Some((value, used)) => {
                out.push_str(value);
                rest = &after[used..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn figure(svg: Result<String>) -> String {
    match svg {
        Ok(svg) => format!("<figure>{svg}</figure>\n"),
        Err(e) => format!(
            "<p class=\"note\">Chart not drawn: {}</p>\n",
            escape(&e.to_string())
        ),
    }
}

/// Builds every page.
pub fn site(runs: &[StoredRun], comparisons: &[Comparison], opts: &Options) -> Result<Site> {
    let mut suites: BTreeMap<&str, Vec<&StoredRun>> = BTreeMap::new();
    for r in runs {
        suites.entry(r.suite.as_str()).or_default().push(r);
    }
    let names = page_names(suites.keys().copied());
    let mut files = vec![(
        "index.html".to_string(),
        index(&suites, &names, comparisons),
    )];
    for (suite, runs) in &suites {
        let cmps: Vec<&Comparison> = comparisons.iter().filter(|c| c.suite == *suite).collect();
        files.extend(suite_page(suite, &names[suite], runs, &cmps, opts));
    }
    Ok(Site { files })
}

/// The longest file name the report writes, in bytes (file systems allow 255; a
/// margin leaves room for the temporary names files are written through).
pub const MAX_PAGE_NAME: usize = 100;
/// The longest slug in a page name, so that `groups-SLUG-K.html` stays within
/// [`MAX_PAGE_NAME`] too.
const MAX_SLUG: usize = 64;

/// Each suite's page name, `suite-SLUG.html`: bounded and unique. A slug cut to
/// [`MAX_SLUG`] bytes, or one an earlier suite (in name order) already has, ends in the
/// first 8 hex digits of the SHA-256 of the suite's whole name instead, so the name
/// stays the same from one report to the next.
fn page_names<'a>(suites: impl IntoIterator<Item = &'a str>) -> BTreeMap<&'a str, String> {
    use sha2::Digest;
    let mut names = BTreeMap::new();
    let mut used = std::collections::HashSet::new();
    for suite in suites {
        let slug = fmt::slug(suite);
        let mut stem = slug.clone();
        if slug.len() > MAX_SLUG || used.contains(&format!("suite-{slug}.html")) {
            let hash = sha2::Sha256::digest(suite.as_bytes());
            // The slug is ASCII, so any byte is a character boundary.
            let head = slug[..slug.len().min(MAX_SLUG - 9)].trim_end_matches('-');
            stem = format!("{head}-{}", hex::encode(&hash[..4]));
        }
        let mut name = format!("suite-{stem}.html");
        let mut k = 2;
        while used.contains(&name) {
            // Two names with the same hash prefix: never seen, but names stay unique.
            name = format!("suite-{stem}-{k}.html");
            k += 1;
        }
        used.insert(name.clone());
        names.insert(suite, name);
    }
    names
}

fn index(
    suites: &BTreeMap<&str, Vec<&StoredRun>>,
    names: &BTreeMap<&str, String>,
    comparisons: &[Comparison],
) -> String {
    let mut h = String::from("<h1>Benchmark report</h1>\n");
    let total: usize = suites.values().map(Vec::len).sum();
    let count =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    h.push_str(&format!(
        "<p class=\"muted\">{} in {}, {}.</p>\n",
        count(total, "run", "runs"),
        count(suites.len(), "suite", "suites"),
        count(
            comparisons.len(),
            "before/after comparison",
            "before/after comparisons"
        )
    ));
    let mut better: Vec<(&Comparison, &Delta)> = Vec::new();
    let mut worse: Vec<(&Comparison, &Delta)> = Vec::new();
    for c in comparisons {
        for d in &c.deltas {
            match direction(d) {
                Some(true) => better.push((c, d)),
                Some(false) => worse.push((c, d)),
                None => {}
            }
        }
    }
    // Tested verdicts first, then the untested; larger changes first within each.
    let by_size = |a: &(&Comparison, &Delta), b: &(&Comparison, &Delta)| {
        let key = |x: &(&Comparison, &Delta)| {
            (
                x.1.verdict == "insufficient",
                -x.1.delta_pct.map_or(0.0, f64::abs),
            )
        };
        let (ka, kb) = (key(a), key(b));
        ka.0.cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
    };
    better.sort_by(by_size);
    worse.sort_by(by_size);
    let untested = better
        .iter()
        .chain(&worse)
        .any(|(_, d)| d.verdict == "insufficient");
    if comparisons.is_empty() {
        h.push_str("<p class=\"note\">No before/after comparisons: name the sides with <code>--baseline SELECTOR --candidate SELECTOR</code>, or ingest one suite and label on two branches (<code>--tag branch=main</code> and <code>--tag branch=NAME</code>).</p>\n");
    }
    h.push_str("<div class=\"summary\">\n");
    for (title, class, list) in [
        ("Got better", "better", &better),
        ("Got worse", "worse", &worse),
    ] {
        if comparisons.is_empty() {
            break;
        }
        h.push_str(&format!(
            "<div><h2 class=\"{class}\">{title} ({})</h2>\n",
            list.len()
        ));
        if list.is_empty() {
            h.push_str("<p class=\"muted\">Nothing.</p>\n");
        } else {
            h.push_str("<table><tr><th>suite</th><th class=\"text\">comparison</th><th class=\"text\">cell</th><th>baseline</th><th>candidate</th><th>change</th><th>verdict</th></tr>\n");
            for (c, d) in list.iter().take(SUMMARY_ROWS) {
                h.push_str(&format!(
                    "<tr><th><a href=\"{}\">{}</a></th><td class=\"text\">{}</td><td class=\"text\">{}</td><td>{}</td><td>{}</td><td class=\"{class}\">{}</td><td>{}</td></tr>\n",
                    escape(names.get(c.suite.as_str()).map_or("index.html", String::as_str)),
                    escape(&c.suite),
                    escape(&c.title()),
                    escape(&d.name()),
                    d.baseline.map_or("–".into(), |v| d.human(v)),
                    d.candidate.map_or("–".into(), |v| d.human(v)),
                    d.delta_pct.map_or("–".into(), signed_pct),
                    escape(&d.verdict),
                ));
            }
            if list.len() > SUMMARY_ROWS {
                h.push_str(&format!("<tr><td colspan=\"7\" class=\"muted\">… and {} more on the suite pages</td></tr>\n", list.len() - SUMMARY_ROWS));
            }
            h.push_str("</table>\n");
        }
        h.push_str("</div>\n");
    }
    h.push_str("</div>\n");
    let inconclusive = comparisons
        .iter()
        .flat_map(|c| &c.deltas)
        .filter(|d| d.verdict == "inconclusive")
        .count();
    if inconclusive > 0 {
        h.push_str(&format!(
            "<p class=\"note inconclusive\">{inconclusive} cell{} inconclusive: the change may be large but the runs are too few or too noisy to tell; add runs (see the suite pages).</p>\n",
            if inconclusive == 1 { " is" } else { "s are" }
        ));
    }
    if untested {
        h.push_str("<p class=\"note\">Cells marked insufficient have too few replicates for a significance test: they are listed by the direction of their change alone.</p>\n");
    }
    let by_suite: Vec<_> = suites
        .iter()
        .map(|(s, r)| (*s, names[s].as_str(), r.clone()))
        .collect();
    h.push_str(&super::changes::recent(&by_suite));
    h.push_str("<h2>Suites</h2>\n<table><tr><th>suite</th><th>runs</th><th>sources</th><th>formats</th></tr>\n");
    for (suite, runs) in suites {
        let mut sources: Vec<i64> = runs.iter().map(|r| r.source_id).collect();
        sources.sort_unstable();
        sources.dedup();
        let mut formats: Vec<&str> = runs.iter().map(|r| r.format.as_str()).collect();
        formats.sort_unstable();
        formats.dedup();
        h.push_str(&format!(
            "<tr><th><a href=\"{}\">{}</a></th><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            escape(&names[suite]),
            escape(suite),
            runs.len(),
            sources.len(),
            escape(&formats.join(", "))
        ));
    }
    h.push_str("</table>\n");
    page("Benchmark report", &h)
}

/// Every metric of the runs in first-seen order, with its data kind.
fn metrics_of(runs: &[&StoredRun]) -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &'static str)> = Vec::new();
    for s in runs.iter().flat_map(|r| r.run.series.iter()) {
        if !out.iter().any(|m| m.0 == s.metric) {
            out.push((s.metric.clone(), s.kind()));
        }
    }
    out
}

/// The suite's page, named `name`, then its group pages when it has more groups than a
/// page ([`GROUPS_PER_PAGE`]).
fn suite_page(
    suite: &str,
    name: &str,
    runs: &[&StoredRun],
    cmps: &[&Comparison],
    opts: &Options,
) -> Vec<(String, String)> {
    let mut h = format!("<h1>Suite {}</h1>\n", escape(suite));
    let mut groups: BTreeMap<(&str, i64, u32), Vec<&StoredRun>> = BTreeMap::new();
    for r in runs {
        groups
            .entry((r.ingested_at.as_str(), r.source_id, r.block_index))
            .or_default()
            .push(r);
    }
    h.push_str(&format!(
        "<p class=\"muted\">{} runs in {} groups.</p>\n",
        runs.len(),
        groups.len()
    ));

    if !cmps.is_empty() {
        h.push_str("<h2>Before and after</h2>\n");
        for c in cmps {
            h.push_str(&comparison_section(c));
        }
    }

    h.push_str("<h2>Runs</h2>\n");
    let mut groups: Vec<Vec<&StoredRun>> = groups.into_values().collect();
    for group in &mut groups {
        group.sort_by_key(|r| r.run.index);
    }
    let paged = groups.len() > GROUPS_PER_PAGE;
    let skipped = groups.len().saturating_sub(MAX_GROUPS_DRAWN);
    if skipped > 0 {
        let listed = if paged {
            "every group is listed on the group pages below"
        } else {
            "the history below covers every run"
        };
        h.push_str(&format!(
            "<p class=\"note\">{skipped} older groups are not drawn here; {listed}.</p>\n"
        ));
    }
    for group in &groups[skipped..] {
        // Time series already drawn before and after are not drawn again per group.
        let charted = group
            .iter()
            .all(|r| cmps.iter().any(|c| c.charted_runs.contains(&r.id)));
        h.push_str(&group_section(group, opts, charted));
    }

    h.push_str("<h2>Run-to-run variation</h2>\n");
    let mut pages = Vec::new();
    if paged {
        // The drawn groups here; every group's table on its group page.
        let drawn: Vec<&StoredRun> = groups[skipped..].iter().flatten().copied().collect();
        h.push_str(&format!(
            "<p class=\"muted\">The {} groups drawn above; every group's table is on its group page.</p>\n",
            groups.len() - skipped
        ));
        h.push_str(&variation::render(&variation::from_runs(&drawn)));
        pages = group_pages(suite, name, &groups);
        h.push_str(&pages_section(&groups, &pages));
    } else {
        h.push_str(&variation::render(&variation::from_runs(runs)));
    }

    let ladder_metrics: Vec<String> = metrics_of(runs)
        .into_iter()
        .filter(|m| m.1 == "ladder" || m.1 == "histogram")
        .map(|m| m.0)
        .collect();
    let curves = curve_figures(runs, &ladder_metrics, opts);
    if !curves.is_empty() {
        h.push_str("<h2>Throughput and latency</h2>\n");
        h.extend(curves);
    }

    let hist = history::from_runs(runs);
    if !hist.is_empty() {
        h.push_str("<h2>History</h2>\n");
        for input in &hist {
            h.push_str(&figure(history::render(input)));
        }
    }
    h.push_str(&super::changes::section(runs));
    let mut files = vec![(name.to_string(), page(&format!("Suite {suite}"), &h))];
    files.extend(pages);
    files
}

/// The file name of group page `k` (1-based) of the suite whose page is `suite_page`:
/// `groups-` never begins a suite page's name, and the page number ends it.
fn group_page_name(suite_page: &str, k: usize) -> String {
    let stem = suite_page
        .trim_start_matches("suite-")
        .trim_end_matches(".html");
    format!("groups-{stem}-{k}.html")
}

/// The suite page's table of its group pages.
fn pages_section(groups: &[Vec<&StoredRun>], pages: &[(String, String)]) -> String {
    let mut h = format!(
        "<h2>All groups</h2>\n<p class=\"muted\">{} groups on {} pages of {GROUPS_PER_PAGE}, oldest first, each with its run and variation tables.</p>\n",
        groups.len(),
        pages.len()
    );
    h.push_str("<table class=\"pages\"><tr><th>page</th><th>groups</th><th class=\"text\">first</th><th class=\"text\">last</th></tr>\n");
    for ((file, _), (k, chunk)) in pages.iter().zip(groups.chunks(GROUPS_PER_PAGE).enumerate()) {
        let title = |g: Option<&Vec<&StoredRun>>| {
            g.and_then(|g| g.first())
                .map_or(String::new(), |r| escape(&group_title(r)))
        };
        h.push_str(&format!(
            "<tr><th><a href=\"{}\">{}</a></th><td>{}–{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td></tr>\n",
            escape(file),
            k + 1,
            k * GROUPS_PER_PAGE + 1,
            k * GROUPS_PER_PAGE + chunk.len(),
            title(chunk.first()),
            title(chunk.last()),
        ));
    }
    h.push_str("</table>\n");
    h
}

/// The group pages of a suite with more groups than a page: each lists its groups in a
/// table (one row per group, linking to the group's tables below it) and holds each
/// group's run table and variation table. Nothing is drawn: charts stay on the suite
/// page for its most recent groups.
fn group_pages(suite: &str, suite_page: &str, groups: &[Vec<&StoredRun>]) -> Vec<(String, String)> {
    let n_pages = groups.len().div_ceil(GROUPS_PER_PAGE);
    let mut out = Vec::with_capacity(n_pages);
    for (k, chunk) in groups.chunks(GROUPS_PER_PAGE).enumerate() {
        let first = k * GROUPS_PER_PAGE + 1;
        let last = k * GROUPS_PER_PAGE + chunk.len();
        let mut h = format!(
            "<h1>Suite {}: groups {first}–{last} of {}</h1>\n",
            escape(suite),
            groups.len()
        );
        // Navigation: the suite page, then every group page.
        h.push_str(&format!(
            "<p class=\"nav\"><a href=\"{}\">Suite {}</a> · pages:",
            escape(suite_page),
            escape(suite)
        ));
        for j in 1..=n_pages {
            if j == k + 1 {
                h.push_str(&format!(" <strong>{j}</strong>"));
            } else {
                h.push_str(&format!(
                    " <a href=\"{}\">{j}</a>",
                    escape(&group_page_name(suite_page, j))
                ));
            }
        }
        h.push_str("</p>\n");
        h.push_str("<div class=\"scroll\"><table class=\"groups\"><tr><th>#</th><th class=\"text\">group</th><th class=\"text\">format</th><th>runs</th><th class=\"text\">commit</th><th class=\"text\">source</th></tr>\n");
        for (i, group) in chunk.iter().enumerate() {
            let Some(r) = group.first() else { continue };
            let lines = (
                group.iter().map(|r| r.run.first_line).min().unwrap_or(0),
                group.iter().map(|r| r.run.last_line).max().unwrap_or(0),
            );
            h.push_str(&format!(
                "<tr><td>{}</td><td class=\"text\"><a href=\"#g{}\">{}</a></td><td class=\"text\">{}</td><td>{}</td><td class=\"text\"><code>{}</code></td><td class=\"text\">{}:{}–{}</td></tr>\n",
                first + i,
                r.block_id,
                escape(&group_title(r)),
                escape(&r.format),
                group.len(),
                escape(r.run.tags.get("commit").map_or("–", String::as_str)),
                escape(&r.source),
                lines.0,
                lines.1,
            ));
        }
        h.push_str("</table></div>\n");
        h.push_str(&variation::legend());
        for group in chunk {
            let Some(r) = group.first() else { continue };
            h.push_str(&format!(
                "<h3 id=\"g{}\">{} <span class=\"muted\">{} · {} run{}</span></h3>\n",
                r.block_id,
                escape(&group_title(r)),
                escape(&r.format),
                group.len(),
                if group.len() == 1 { "" } else { "s" }
            ));
            h.push_str(&compact_run_table(group));
            h.push_str(&variation::render_tables(&variation::from_runs(group)));
        }
        out.push((
            group_page_name(suite_page, k + 1),
            page(&format!("Suite {suite}: groups {first}–{last}"), &h),
        ));
    }
    out
}

/// Throughput/latency charts of the ladder metrics, one per source whose runs span two
/// or more throughputs: different sources are different experiments, never pooled into
/// one line. An SLO whose unit does not fit a metric is left off that chart.
fn curve_figures(runs: &[&StoredRun], metrics: &[String], opts: &Options) -> Vec<String> {
    let mut by_source: BTreeMap<(&str, i64), Vec<&StoredRun>> = BTreeMap::new();
    // Runs that missed their schedule did not run at their rate: not on a curve.
    for r in runs.iter().filter(|r| !analysis_curve::missed_schedule(r)) {
        by_source
            .entry((r.source.as_str(), r.source_id))
            .or_default()
            .push(*r);
    }
    let slo_text: Vec<&str> = opts.slo.iter().map(|t| t.text.as_str()).collect();
    let slo_text = (!slo_text.is_empty()).then(|| slo_text.join(","));
    let mut out = Vec::new();
    for ((source, _), members) in &by_source {
        // A run is drawn at the rate it achieved where it measured one (a runner that
        // fell behind its schedule did not run at its target).
        let achieved = members
            .iter()
            .all(|r| r.param_f64("achieved_throughput").is_some());
        // A source at one rate draws no curve: known before its runs are copied.
        let rate_of = |r: &StoredRun| {
            if achieved {
                r.param_f64("achieved_throughput")
            } else {
                analysis_curve::throughput(r)
            }
        };
        let mut rates: Vec<f64> = members.iter().filter_map(|r| rate_of(r)).collect();
        rates.sort_by(f64::total_cmp);
        rates.dedup();
        if rates.len() < 2 {
            continue;
        }
        let mut owned: Vec<StoredRun> = members.iter().map(|r| (*r).clone()).collect();
        if achieved {
            for r in owned.iter_mut() {
                if let Some(a) = r.param_f64("achieved_throughput") {
                    r.run
                        .params
                        .insert("target_throughput".into(), bench_db_parsers::Param::Num(a));
                }
            }
        }
        let owned = &owned;
        for m in metrics {
            let Ok(c) =
                analysis_curve::curve(owned, Some(m), &CURVE_PERCENTILES, slo_text.as_deref())
                    .or_else(|_| analysis_curve::curve(owned, Some(m), &CURVE_PERCENTILES, None))
            else {
                continue;
            };
            let display = owned
                .iter()
                .find_map(|r| r.series(m))
                .map_or(m.as_str(), |s| s.display.as_str());
            let name = format!("{display} · {}", short_source(source));
            if let Some(mut input) = curve::from_curve(&c, &name, "/s") {
                input.throughput_caption = if achieved {
                    "Achieved throughput"
                } else {
                    "Target throughput"
                }
                .to_string();
                out.push(figure(curve::render(&input)));
            }
        }
    }
    out
}

/// The last two components of a source path: enough to tell files apart in a title.
fn short_source(source: &str) -> String {
    let parts: Vec<&str> = source.rsplit(['/', '\\']).take(2).collect();
    parts.into_iter().rev().collect::<Vec<_>>().join("/")
}

fn group_section(group: &[&StoredRun], opts: &Options, timeseries_charted: bool) -> String {
    let Some(first) = group.first() else {
        return String::new();
    };
    // Branch and commit in the heading, so groups sharing a label are told apart.
    let mut origin = String::new();
    for key in ["branch", "commit"] {
        if let Some(v) = first.run.tags.get(key) {
            origin.push_str(&format!(" · {key} {v}"));
        }
    }
    let mut h = format!(
        "<h3>{}{} <span class=\"muted\">{} · {} run{}</span></h3>\n",
        escape(&group_title(first)),
        escape(&origin),
        escape(&first.format),
        group.len(),
        if group.len() == 1 { "" } else { "s" }
    );
    h.push_str(&run_table(group));
    if timeseries_charted && metrics_of(group).iter().any(|m| m.1 == "timeseries") {
        h.push_str("<p class=\"muted\">Its time series are drawn above, before and after.</p>\n");
    }
    let mut values: Vec<String> = Vec::new();
    for (metric, kind) in metrics_of(group) {
        match kind {
            "ladder" | "histogram" => {
                let unit = group
                    .iter()
                    .find_map(|r| r.series(&metric))
                    .map_or("", |s| s.unit.as_str());
                let slo = slo::in_unit(&opts.slo, unit);
                if let Some(input) = spectrum::from_runs(group, &metric, &slo) {
                    h.push_str(&figure(spectrum::render(&input)));
                }
            }
            "timeseries" if timeseries_charted => {}
            "timeseries" => {
                if let Some(input) = timeseries::from_runs(group, &metric, false) {
                    h.push_str(&figure(timeseries::render(&input)));
                }
            }
            _ => values.push(metric),
        }
    }
    if !values.is_empty() {
        // One row per metric, one column per run: names can be long, runs are few.
        h.push_str("<div class=\"scroll\"><table><tr><th>metric</th>");
        for r in group {
            h.push_str(&format!("<th>run {}</th>", r.run.index));
        }
        h.push_str("</tr>\n");
        for m in &values {
            let s = group.iter().find_map(|r| r.series(m));
            h.push_str(&format!(
                "<tr><th>{}</th>",
                escape(s.map_or(m.as_str(), |s| s.display.as_str()))
            ));
            for r in group {
                let (cell, exact) = match r.series(m).map(|s| (&s.data, s.unit.as_str())) {
                    Some((Data::Value { value: Some(v) }, unit)) => {
                        let p = fmt::prefixes_of(&r.format);
                        (fmt::human_in(*v, unit, 3, p), fmt::human_in(*v, unit, 6, p))
                    }
                    _ => ("–".to_string(), String::new()),
                };
                h.push_str(&format!(
                    "<td title=\"{}\">{}</td>",
                    escape(&exact),
                    escape(&cell)
                ));
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</table></div>\n");
    }
    h
}

/// The group's runs: index, commit, other tags, parameters and where in the source each
/// came from, so groups that share a label can be told apart.
fn run_table(group: &[&StoredRun]) -> String {
    let mut h = String::from(
        "<div class=\"scroll\"><table class=\"runs\"><tr><th>run</th><th class=\"text\">commit</th><th class=\"text\">tags</th><th class=\"text\">parameters</th><th class=\"text\">source</th></tr>\n",
    );
    for r in group {
        let commit = r.run.tags.get("commit").map_or("–", String::as_str);
        let tags = r.other_tags();
        let params: Vec<String> = r
            .run
            .params
            .iter()
            .map(|(k, v)| {
                let v = match v {
                    bench_db_parsers::Param::Num(n) => fmt::sig3(*n),
                    bench_db_parsers::Param::Bool(b) => b.to_string(),
                    bench_db_parsers::Param::Text(t) => t.clone(),
                };
                format!("{k}={v}")
            })
            .collect();
        let or_dash = |v: Vec<String>| {
            if v.is_empty() {
                "–".to_string()
            } else {
                v.join(" · ")
            }
        };
        h.push_str(&format!(
            "<tr><td>{}</td><td class=\"text\"><code>{}</code></td><td class=\"text\">{}</td><td class=\"text\">{}</td><td class=\"text\">{}:{}–{}</td></tr>\n",
            r.run.index,
            escape(commit),
            escape(&or_dash(tags)),
            escape(&or_dash(params)),
            escape(&r.source),
            r.run.first_line,
            r.run.last_line,
        ));
    }
    h.push_str("</table></div>\n");
    h
}

/// [`run_table`] for a group page: when the group's runs share their tags and
/// parameters (a tool's repeated runs do), those are given once above a table of the
/// runs and their lines, so thousands of groups stay small.
fn compact_run_table(group: &[&StoredRun]) -> String {
    let Some(first) = group.first() else {
        return String::new();
    };
    let shared = group
        .iter()
        .all(|r| r.run.tags == first.run.tags && r.run.params == first.run.params);
    if !shared {
        return run_table(group);
    }
    let mut fields: Vec<String> = first
        .run
        .tags
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    fields.extend(first.run.params.iter().map(|(k, v)| {
        let v = match v {
            bench_db_parsers::Param::Num(n) => fmt::sig3(*n),
            bench_db_parsers::Param::Bool(b) => b.to_string(),
            bench_db_parsers::Param::Text(t) => t.clone(),
        };
        format!("{k}={v}")
    }));
    let mut h = format!(
        "<p class=\"muted\">Every run: {}</p>\n<div class=\"scroll\"><table class=\"runs\"><tr><th>run</th><th class=\"text\">source</th></tr>\n",
        escape(&if fields.is_empty() {
            "–".to_string()
        } else {
            fields.join(" · ")
        })
    );
    for r in group {
        h.push_str(&format!(
            "<tr><td>{}</td><td class=\"text\">{}:{}–{}</td></tr>\n",
            r.run.index,
            escape(&r.source),
            r.run.first_line,
            r.run.last_line,
        ));
    }
    h.push_str("</table></div>\n");
    h
}

/// A verdict cell; `inconclusive` (a change too uncertain to call) is marked apart from
/// `same`, with the advice `gate` gives.
fn verdict_cell(verdict: &str) -> String {
    match verdict {
        "inconclusive" => "<td class=\"inconclusive\" title=\"too few or too noisy runs to tell: add runs\">inconclusive: add runs</td>".to_string(),
        v => format!("<td>{}</td>", escape(v)),
    }
}

fn comparison_section(c: &Comparison) -> String {
    let mut h = format!("<h3>{}</h3>\n", escape(&c.title()));
    let plot = shift::ShiftInput::from_deltas("Change with 95% confidence intervals", &c.deltas);
    if !plot.rows.is_empty() {
        h.push_str(&figure(shift::render(&plot)));
    }
    h.push_str("<div class=\"scroll\"><table><tr><th>cell</th><th>baseline</th><th>candidate</th><th>change</th><th>95% CI</th><th>verdict</th></tr>\n");
    for d in &c.deltas {
        let class = match direction(d) {
            Some(true) => " class=\"better\"",
            Some(false) => " class=\"worse\"",
            None => "",
        };
        let ci = match (d.ci_low, d.ci_high) {
            (Some(lo), Some(hi)) => format!("{} … {}", signed_pct(lo), signed_pct(hi)),
            _ => "–".to_string(),
        };
        // Hover: the value to more digits than the cell shows.
        let exact = |v: Option<f64>| {
            v.map_or(String::new(), |v| {
                format!(
                    " title=\"{}\"",
                    escape(&fmt::human_in(v, &d.unit, 6, d.prefixes))
                )
            })
        };
        h.push_str(&format!(
            "<tr><th>{}</th><td{}>{}</td><td{}>{}</td><td{class}>{}</td><td>{}</td>{}</tr>\n",
            escape(&d.name()),
            exact(d.baseline),
            d.baseline.map_or("–".into(), |v| d.human(v)),
            exact(d.candidate),
            d.candidate.map_or("–".into(), |v| d.human(v)),
            d.delta_pct.map_or("–".into(), signed_pct),
            ci,
            verdict_cell(&d.verdict)
        ));
    }
    h.push_str("</table></div>\n");
    for ts in &c.timeseries {
        h.push_str(&figure(timeseries::render(ts)));
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(metric: &str, unit: &str, delta: f64, verdict: &str) -> Delta {
        Delta {
            metric: metric.into(),
            display: metric.into(),
            unit: unit.into(),
            percentile: None,
            baseline: Some(1.0),
            candidate: Some(1.0 + delta / 100.0),
            delta_pct: Some(delta),
            ci_low: None,
            ci_high: None,
            verdict: verdict.into(),
            prefixes: fmt::Prefixes::Decimal,
        }
    }

    #[test]
    fn direction_follows_verdicts_then_polarity() {
        assert_eq!(direction(&cell("ts.rt", "ms", 5.0, "better")), Some(true));
        assert_eq!(direction(&cell("ts.rt", "ms", -5.0, "same")), None);
        // Untestable single values go by polarity: lower latency, higher throughput win.
        assert_eq!(
            direction(&cell("latency_avg", "ms", -72.4, "insufficient")),
            Some(true)
        );
        assert_eq!(
            direction(&cell("msgs_per_sec", "", -3.0, "insufficient")),
            Some(false)
        );
        assert_eq!(
            direction(&cell("latency_avg", "ms", 0.0, "insufficient")),
            None
        );
        // Inconclusive is neither better nor worse, and is marked apart in tables.
        assert_eq!(direction(&cell("ts.rt", "ms", -90.0, "inconclusive")), None);
        assert!(verdict_cell("inconclusive").contains("add runs"));
        assert_eq!(verdict_cell("same"), "<td>same</td>");
    }

    #[test]
    fn page_names_are_bounded_unique_and_stable() {
        let long = "x".repeat(300);
        let suites = ["JLBH / tcp", "jlbh-tcp", "jlbh tcp", long.as_str(), "zk"];
        let names = page_names(suites);
        assert_eq!(names["JLBH / tcp"], "suite-jlbh-tcp.html");
        assert_eq!(names["zk"], "suite-zk.html");
        // Sorted, "JLBH / tcp" comes first and keeps the plain slug; the others that
        // share it get their own hash.
        assert!(names["jlbh tcp"].starts_with("suite-jlbh-tcp-"), "{names:?}");
        assert_ne!(names["jlbh tcp"], names["jlbh-tcp"]);
        let cut = &names[long.as_str()];
        assert!(cut.starts_with("suite-xxxx") && cut.len() <= MAX_PAGE_NAME, "{cut}");
        let mut all: Vec<&String> = names.values().collect();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), suites.len());
        for name in names.values() {
            assert!(name.len() <= MAX_PAGE_NAME);
            let group = group_page_name(name, 10_000);
            assert!(group.len() <= MAX_PAGE_NAME, "{group}");
        }
        assert_eq!(page_names(suites), names, "the same names every time");
    }

    #[test]
    fn a_template_slot_in_a_name_stays_text() {
        let html = page("Suite {{body}} {{css}}", "<p>BODY</p>");
        let title = &html[html.find("<title>").unwrap()..html.find("</title>").unwrap()];
        assert_eq!(title, "<title>Suite {{body}} {{css}}");
        assert_eq!(html.matches("<p>BODY</p>").count(), 1);
        assert_eq!(html.matches("<style>").count(), 1);
        assert_eq!(
            fill("a {{x}} {{y}} {{ {{x}}", &[("x", "{{y}}"), ("y", "Y")]),
            "a {{y}} Y {{ {{y}}"
        );
    }
}
