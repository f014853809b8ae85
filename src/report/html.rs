//! The pages: `index.html` (what got better, what got worse, one link per suite) and
//! one self-contained page per suite (CSS and SVG inline, no JavaScript, no network)
//! holding every chart and table for its runs. Draws the site model the analysis built
//! ([`crate::analysis::site`]) and computes nothing. Returns file names and contents;
//! the command writes them.

use super::axis::AXIS_RULE;
use super::fmt::{self, escape, signed_pct};
use super::{changes, curve, history, replicates, shift, spectrum, timeseries, variation};
pub use crate::analysis::pairing::{Comparison, Delta};
use crate::analysis::site::{self as model, Group, GroupChart, GroupPage, RunRow, SuitePage};
use anyhow::Result;
use bench_db_parsers::Param;
use std::collections::BTreeMap;

const TEMPLATE: &str = include_str!("../../reports/page.html");
const CSS: &str = include_str!("../../reports/style.css");

/// Under a chart whose value axis does not start at zero.
const SPAN_CAPTION: &str =
    "The value axis spans at least ±10% of the median, so a small wobble looks small.";
/// Under a history.
const HISTORY_CAPTION: &str = "Runs in ingest order; the band is the median ± 2 robust σ of the history. The value axis spans at least ±10% of the median, so a small wobble looks small. Hover a point for its run.";

/// Cells listed in each of the index's better/worse lists.
pub const SUMMARY_ROWS: usize = 12;

/// The report's files, `index.html` first.
#[derive(Debug, Clone, PartialEq)]
pub struct Site {
    pub files: Vec<(String, String)>,
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
    let mut out =
        String::with_capacity(template.len() + slots.iter().map(|s| s.1.len()).sum::<usize>());
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let slot = after.find("}}").and_then(|close| {
            let name = &after[..close];
            slots.iter().find(|s| s.0 == name).map(|s| (s.1, close + 2))
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

/// Puts every table of `html` not yet in a scroll wrapper into one, so a table wider
/// than a phone scrolls inside the page instead of being clipped.
fn scroll_tables(html: &str) -> String {
    const WRAP: &str = "<div class=\"scroll\">";
    let mut out = String::with_capacity(html.len() + 64);
    let mut rest = html;
    while let Some(at) = rest.find("<table") {
        let wrapped = rest[..at].ends_with(WRAP);
        out.push_str(&rest[..at]);
        let Some(end) = rest[at..]
            .find("</table>")
            .map(|e| at + e + "</table>".len())
        else {
            rest = &rest[at..];
            break;
        };
        if wrapped {
            out.push_str(&rest[at..end]);
        } else {
            out.push_str(WRAP);
            out.push_str(&rest[at..end]);
            out.push_str("</div>");
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// A chart with a caption under it.
fn figure_with(svg: Result<String>, caption: &str) -> String {
    match svg {
        Ok(svg) => format!(
            "<figure>{svg}<figcaption>{}</figcaption></figure>\n",
            escape(caption)
        ),
        Err(_) => figure(svg),
    }
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

/// Draws every page of the model.
pub fn site(model: &model::Site) -> Result<Site> {
    let names = page_names(model.suites.iter().map(|s| s.suite.as_str()));
    let summaries: Vec<model::SuiteSummary> = model.suites.iter().map(|s| s.summary()).collect();
    let index = index(
        model.runs,
        &model.comparisons,
        &model.left_out,
        &summaries,
        &names,
    );
    let mut files = vec![("index.html".to_string(), index)];
    for s in &model.suites {
        files.extend(suite_files(s, &names[s.suite.as_str()], &model.comparisons));
    }
    Ok(Site { files })
}

/// A suite's page, named `name` (see [`page_names`]), and its group pages, drawn with
/// the comparisons of its suite among `comparisons`.
pub fn suite_files(s: &SuitePage, name: &str, comparisons: &[Comparison]) -> Vec<(String, String)> {
    let cmps: Vec<&Comparison> = comparisons.iter().filter(|c| c.suite == s.suite).collect();
    suite_page(s, name, &cmps)
}

/// The longest file name the report writes, in bytes (file systems allow 255; a
/// margin leaves room for the temporary names files are written through).
pub const MAX_PAGE_NAME: usize = 100;
/// The longest slug in a page name, so that `groups-SLUG-K.html` stays within
/// [`MAX_PAGE_NAME`] too.
const MAX_SLUG: usize = 64;

/// Each suite's page name, `suite-SLUG.html`: bounded and unique. A slug cut to
/// `MAX_SLUG` (64) bytes, or one an earlier suite (in name order) already has, ends in the
/// first 8 hex digits of the SHA-256 of the suite's whole name instead, so the name
/// stays the same from one report to the next.
pub fn page_names<'a>(suites: impl IntoIterator<Item = &'a str>) -> BTreeMap<&'a str, String> {
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

/// The index page of a report of `total` runs: its comparisons, the branches left out,
/// one row per suite and the recent change points, linking to the pages `names` gives.
pub fn index(
    total: usize,
    comparisons: &[Comparison],
    left_out: &[String],
    suites: &[model::SuiteSummary],
    names: &BTreeMap<&str, String>,
) -> String {
    let mut h = String::from("<h1>Benchmark report</h1>\n");
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
    if !left_out.is_empty() {
        h.push_str(&format!(
            "<p class=\"note\">Branches are compared with main for the {} most recent per suite; {} not compared: {}.</p>\n",
            crate::analysis::pairing::MAX_BRANCH_PAIRS,
            count(left_out.len(), "other branch", "other branches"),
            escape(&left_out.join(", "))
        ));
    }
    let mut better: Vec<(&Comparison, &Delta)> = Vec::new();
    let mut worse: Vec<(&Comparison, &Delta)> = Vec::new();
    for c in comparisons {
        for d in &c.deltas {
            match d.direction {
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
            h.push_str("<div class=\"scroll\"><table><tr><th>suite</th><th class=\"text\">comparison</th><th class=\"text\">cell</th><th>baseline</th><th>candidate</th><th>change</th><th>verdict</th></tr>\n");
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
            h.push_str("</table></div>\n");
        }
        h.push_str("</div>\n");
    }
    h.push_str("</div>\n");
    h.push_str(&unsettled_note(comparisons, names));
    if untested {
        h.push_str("<p class=\"note\">Cells marked insufficient have too few replicates for a significance test: they are listed by the direction of their change alone.</p>\n");
    }
    let by_suite: Vec<(&str, &str, &[model::RecentChange])> = suites
        .iter()
        .map(|s| {
            (
                s.suite.as_str(),
                names[s.suite.as_str()].as_str(),
                &s.changes[..],
            )
        })
        .collect();
    h.push_str(&scroll_tables(&changes::recent(&by_suite)));
    h.push_str("<h2>Suites</h2>\n<div class=\"scroll\"><table><tr><th>suite</th><th>runs</th><th>sources</th><th>formats</th></tr>\n");
    for s in suites {
        h.push_str(&format!(
            "<tr><th><a href=\"{}\">{}</a></th><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            escape(&names[s.suite.as_str()]),
            escape(&s.suite),
            s.runs,
            s.sources,
            escape(&s.formats.join(", "))
        ));
    }
    h.push_str("</table></div>\n");
    page("Benchmark report", &h)
}

/// Cells whose change the runs cannot settle: the gate's `undecided` (too few replicates)
/// and compare's `inconclusive` (too few or too noisy runs).
const UNSETTLED: [&str; 2] = ["undecided", "inconclusive"];

/// The index's note on the cells neither better nor worse because the runs cannot tell:
/// how many, of which verdict, and a link to each comparison holding them; empty when
/// there are none.
fn unsettled_note(comparisons: &[Comparison], names: &BTreeMap<&str, String>) -> String {
    let count =
        |c: &Comparison, verdict: &str| c.deltas.iter().filter(|d| d.verdict == verdict).count();
    let per_verdict: Vec<(usize, &str)> = UNSETTLED
        .iter()
        .map(|v| (comparisons.iter().map(|c| count(c, v)).sum(), *v))
        .filter(|x| x.0 > 0)
        .collect();
    let total: usize = per_verdict.iter().map(|x| x.0).sum();
    if total == 0 {
        return String::new();
    }
    let words = match &per_verdict[..] {
        [(_, v)] => v.to_string(),
        many => many
            .iter()
            .map(|(n, v)| format!("{v} ({n})"))
            .collect::<Vec<_>>()
            .join(" or "),
    };
    let links: Vec<String> = comparisons
        .iter()
        .filter_map(|c| {
            let n: usize = UNSETTLED.iter().map(|v| count(c, v)).sum();
            let what = escape(&format!("{}: {}", c.suite, c.title()));
            (n > 0).then(|| match names.get(c.suite.as_str()) {
                Some(page) => format!("<a href=\"{}#compare\">{what}</a> ({n})", escape(page)),
                None => format!("{what} ({n})"),
            })
        })
        .collect();
    format!(
        "<p class=\"note inconclusive\">{total} cell{} {words}: the change may be large but the runs are too few or too noisy to tell; add runs. See {}.</p>\n",
        if total == 1 { " is" } else { "s are" },
        links.join(", ")
    )
}

/// The suite's page, named `name`, then its group pages when it has more groups than a
/// page.
fn suite_page(s: &SuitePage, name: &str, cmps: &[&Comparison]) -> Vec<(String, String)> {
    let suite = s.suite.as_str();
    let mut h = format!("<h1>Suite {}</h1>\n", escape(suite));
    h.push_str(&format!(
        "<p class=\"muted\">{} runs in {} groups. {}</p>\n",
        s.runs,
        s.groups,
        escape(AXIS_RULE)
    ));

    if !cmps.is_empty() {
        h.push_str("<h2 id=\"compare\">Before and after</h2>\n");
        for c in cmps {
            h.push_str(&comparison_section(c));
        }
    }

    if !s.replicates.is_empty() {
        h.push_str("<h2 id=\"replicates\">Replicates</h2>\n<p class=\"muted\">Each benchmark's runs as dots, our median and quartiles as a box, and the tool's own estimate with its interval as a diamond; hover a mark to see which run it is.</p>\n");
        for r in &s.replicates {
            h.push_str(&figure(Ok(replicates::render(r))));
        }
    }

    if !s.printed.is_empty() {
        h.push_str(&printed_table(&s.printed));
    }

    h.push_str("<h2 id=\"runs\">Runs</h2>\n");
    let paged = !s.pages.is_empty();
    let skipped = s.skipped();
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
    for group in &s.drawn {
        h.push_str(&group_section(group));
    }

    h.push_str("<h2 id=\"variation\">Run-to-run variation</h2>\n");
    let mut pages = Vec::new();
    if paged {
        // The drawn groups here; every group's table on its group page.
        h.push_str(&format!(
            "<p class=\"muted\">The {} groups drawn above; every group's table is on its group page.</p>\n",
            s.drawn.len()
        ));
        h.push_str(&variation::render(&s.variation));
        pages = s
            .group_pages
            .iter()
            .map(|p| group_page(suite, name, s.groups, s.pages.len(), p))
            .collect();
        h.push_str(&pages_section(s, name));
    } else {
        h.push_str(&variation::render(&s.variation));
    }

    if !s.curves.is_empty() {
        h.push_str("<h2 id=\"curves\">Throughput and latency</h2>\n");
        for c in &s.curves {
            h.push_str(&figure_with(curve::render(&c.input), &c.knee_note));
        }
        h.push_str(&left_out_note(&s.curves_left_out, "curve"));
    }

    if !s.histories.is_empty() {
        h.push_str("<h2 id=\"history\">History</h2>\n");
        for input in &s.histories {
            h.push_str(&figure_with(history::render(input), HISTORY_CAPTION));
        }
    }
    h.push_str(&scroll_tables(&changes::section(&s.changes)));
    if !s.changes.is_empty() {
        h.push_str(&left_out_note(&s.changes_left_out, "series"));
    }
    let mut files = vec![(name.to_string(), page(&format!("Suite {suite}"), &h))];
    files.extend(pages);
    files
}

/// The note naming the one-commit branches left out beside the longer history of the
/// same `what` (`curve`, `series`), as `curve` and `history` print it; empty when none was.
fn left_out_note(branches: &[String], what: &str) -> String {
    crate::output::one_commit_branches_note(branches, what)
        .map(|n| format!("<p class=\"note\">{}.</p>\n", escape(&n)))
        .unwrap_or_default()
}

/// The file name of group page `k` (1-based) of the suite whose page is `suite_page`:
/// `groups-` never begins a suite page's name, and the page number ends it.
/// The tools' own summaries of the drawn groups beside ours, one row per benchmark and
/// metric.
fn printed_table(rows: &[model::PrintedRow]) -> String {
    let mut h = String::from(
        "<h2>What the tools printed</h2>\n<p class=\"muted\">Each benchmark's summary as its tool printed it, beside ours from its runs.</p>\n<div class=\"scroll\"><table class=\"printed\"><tr><th class=\"text\">group</th><th class=\"text\">metric</th><th class=\"text\">the tool's summary</th><th class=\"text\">ours</th></tr>\n",
    );
    for r in rows {
        h.push_str(&format!(
            "<tr><td class=\"text\">{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td></tr>\n",
            escape(&r.bench),
            escape(&r.metric),
            escape(&r.printed),
            escape(&r.ours)
        ));
    }
    h.push_str("</table></div>\n");
    h
}

fn group_page_name(suite_page: &str, k: usize) -> String {
    let stem = suite_page
        .trim_start_matches("suite-")
        .trim_end_matches(".html");
    format!("groups-{stem}-{k}.html")
}

/// The suite page's table of its group pages.
fn pages_section(s: &SuitePage, suite_page: &str) -> String {
    let mut h = format!(
        "<h2>All groups</h2>\n<p class=\"muted\">{} groups on {} pages of {}, oldest first, each with its run and variation tables.</p>\n",
        s.groups,
        s.pages.len(),
        s.pages.first().map_or(0, |p| p.groups)
    );
    h.push_str("<div class=\"scroll\"><table class=\"pages\"><tr><th>page</th><th>groups</th><th class=\"text\">first</th><th class=\"text\">last</th></tr>\n");
    for (k, p) in s.pages.iter().enumerate() {
        h.push_str(&format!(
            "<tr><th><a href=\"{}\">{}</a></th><td>{}–{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td></tr>\n",
            escape(&group_page_name(suite_page, k + 1)),
            k + 1,
            p.first,
            p.last,
            escape(&p.first_title),
            escape(&p.last_title),
        ));
    }
    h.push_str("</table></div>\n");
    h
}

/// A group page of a suite with more groups than a page (`groups` in all, on `n_pages`
/// pages): it lists its groups in a table (one row per group, linking to the group's
/// tables below it) and holds each group's run table and variation table. Nothing is
/// drawn: charts stay on the suite page for its most recent groups. Returns its file
/// name and text.
pub fn group_page(
    suite: &str,
    suite_page: &str,
    groups: usize,
    n_pages: usize,
    gp: &GroupPage,
) -> (String, String) {
    let GroupPage {
        first,
        last,
        groups: members,
    } = gp;
    let k = (*first.max(&1) - 1) / model::GROUPS_PER_PAGE;
    let mut h = format!(
        "<h1>Suite {}: groups {first}–{last} of {}</h1>\n",
        escape(suite),
        groups
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
    for (i, g) in members.iter().enumerate() {
        let Some(r) = g.runs.first() else { continue };
        let lines = (
            g.runs.iter().map(|r| r.first_line).min().unwrap_or(0),
            g.runs.iter().map(|r| r.last_line).max().unwrap_or(0),
        );
        h.push_str(&format!(
            "<tr><td>{}</td><td class=\"text\"><a href=\"#g{}\">{}</a></td><td class=\"text\">{}</td><td>{}</td><td class=\"text\"><code>{}</code></td><td class=\"text\">{}:{}–{}</td></tr>\n",
            first + i,
            g.block_id,
            escape(&g.title),
            escape(&g.format),
            g.runs.len(),
            escape(r.tags.get("commit").map_or("–", String::as_str)),
            escape(&r.source),
            lines.0,
            lines.1,
        ));
    }
    h.push_str("</table></div>\n");
    h.push_str(&variation::legend());
    for g in members {
        h.push_str(&format!(
            "<h3 id=\"g{}\">{} <span class=\"muted\">{} · {} run{}</span></h3>\n",
            g.block_id,
            escape(&g.title),
            escape(&g.format),
            g.runs.len(),
            if g.runs.len() == 1 { "" } else { "s" }
        ));
        h.push_str(&compact_run_table(&g.runs));
        h.push_str(&variation::render_tables(&g.variation));
    }
    (
        group_page_name(suite_page, k + 1),
        page(&format!("Suite {suite}: groups {first}–{last}"), &h),
    )
}

fn group_section(g: &Group) -> String {
    let mut h = format!(
        "<h3>{}{} <span class=\"muted\">{} · {} run{}</span></h3>\n",
        escape(&g.title),
        escape(&g.origin),
        escape(&g.format),
        g.runs.len(),
        if g.runs.len() == 1 { "" } else { "s" }
    );
    let many = g.runs.len() > model::MAX_RUN_COLUMNS;
    if many {
        // Many replicates are a distribution (drawn above): their table is folded.
        h.push_str(&format!(
            "<details><summary>The {} runs, one row each</summary>\n{}</details>\n",
            g.runs.len(),
            run_table(&g.runs)
        ));
    } else {
        h.push_str(&run_table(&g.runs));
    }
    if g.timeseries_drawn_above {
        h.push_str("<p class=\"muted\">Its time series are drawn above, before and after.</p>\n");
    }
    for chart in &g.charts {
        h.push_str(&match chart {
            GroupChart::Spectrum(input) => figure(spectrum::render(input)),
            GroupChart::TimeSeries(input) => figure_with(timeseries::render(input), SPAN_CAPTION),
        });
    }
    if !g.values.is_empty() && many {
        h.push_str(&values_summary(&g.values));
    } else if !g.values.is_empty() {
        // One row per metric, one column per run: names can be long, runs are few.
        h.push_str("<div class=\"scroll\"><table><tr><th>metric</th>");
        for r in &g.runs {
            h.push_str(&format!("<th>run {}</th>", r.index));
        }
        h.push_str("</tr>\n");
        for row in &g.values {
            h.push_str(&format!("<tr><th>{}</th>", escape(&row.name)));
            for cell in &row.cells {
                let (text, exact) = match cell {
                    Some(c) => (
                        fmt::human_in(c.value, &c.unit, 3, c.prefixes),
                        fmt::human_in(c.value, &c.unit, 6, c.prefixes),
                    ),
                    None => ("–".to_string(), String::new()),
                };
                h.push_str(&format!(
                    "<td title=\"{}\">{}</td>",
                    escape(&exact),
                    escape(&text)
                ));
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</table></div>\n");
    }
    h
}

/// The single values of a group of many runs as their distribution: count, minimum,
/// quartiles and maximum per metric, one row each.
fn values_summary(rows: &[model::ValueRow]) -> String {
    let mut h = String::from(
        "<div class=\"scroll\"><table class=\"values\"><tr><th>metric</th><th>runs</th><th>min</th><th>lower quartile</th><th>median</th><th>upper quartile</th><th>max</th></tr>\n",
    );
    for row in rows {
        let (Some(first), Some((n, q))) = (row.cells.iter().flatten().next(), row.summary) else {
            continue;
        };
        let show = |v: f64| escape(&fmt::human_in(v, &first.unit, 4, first.prefixes));
        h.push_str(&format!(
            "<tr><th>{}</th><td>{n}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            escape(&row.name),
            show(q[0]),
            show(q[1]),
            show(q[2]),
            show(q[3]),
            show(q[4]),
        ));
    }
    h.push_str("</table></div>\n");
    h
}

/// The group's runs: index, commit, other tags, parameters and where in the source each
/// came from, so groups that share a label can be told apart.
fn run_table(group: &[RunRow]) -> String {
    let mut h = String::from(
        "<div class=\"scroll\"><table class=\"runs\"><tr><th>run</th><th class=\"text\">commit</th><th class=\"text\">tags</th><th class=\"text\">parameters</th><th class=\"text\">source</th></tr>\n",
    );
    for r in group {
        let commit = r.tags.get("commit").map_or("–", String::as_str);
        let tags = r.other_tags.to_vec();
        let params: Vec<String> = r.params.iter().map(param).collect();
        let or_dash = |v: Vec<String>| {
            if v.is_empty() {
                "–".to_string()
            } else {
                v.join(" · ")
            }
        };
        h.push_str(&format!(
            "<tr><td>{}</td><td class=\"text\"><code>{}</code></td><td class=\"text\">{}</td><td class=\"text\">{}</td><td class=\"text\">{}:{}–{}</td></tr>\n",
            r.index,
            escape(commit),
            escape(&or_dash(tags)),
            escape(&or_dash(params)),
            escape(&r.source),
            r.first_line,
            r.last_line,
        ));
    }
    h.push_str("</table></div>\n");
    h
}

/// [`run_table`] for a group page: when the group's runs share their tags and
/// parameters (a tool's repeated runs do), those are given once above a table of the
/// runs and their lines, so thousands of groups stay small.
fn compact_run_table(group: &[RunRow]) -> String {
    let Some(first) = group.first() else {
        return String::new();
    };
    let shared = group
        .iter()
        .all(|r| r.tags == first.tags && r.params == first.params);
    if !shared {
        return run_table(group);
    }
    let mut fields: Vec<String> = first.tags.iter().map(|(k, v)| format!("{k}={v}")).collect();
    fields.extend(first.params.iter().map(param));
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
            r.index,
            escape(&r.source),
            r.first_line,
            r.last_line,
        ));
    }
    h.push_str("</table></div>\n");
    h
}

/// A parameter as `key=value`, numbers to three significant digits.
fn param((k, v): (&String, &Param)) -> String {
    let v = match v {
        Param::Num(n) => fmt::sig3(*n),
        Param::Bool(b) => b.to_string(),
        Param::Text(t) => t.clone(),
    };
    format!("{k}={v}")
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
    for (side, copies) in &c.copies {
        h.push_str(&format!(
            "<p class=\"note\">{}.</p>\n",
            escape(&crate::output::copies_note(side, copies))
        ));
    }
    let plot = shift::ShiftInput::from_deltas("Change with 95% confidence intervals", &c.deltas);
    if !plot.rows.is_empty() {
        h.push_str(&figure(shift::render(&plot)));
    }
    // A comparison the gate judged gives each verdict's reason.
    let gated = c.deltas.iter().any(|d| d.reason.is_some());
    h.push_str("<div class=\"scroll\"><table><tr><th>cell</th><th>baseline</th><th>candidate</th><th>change</th><th>95% CI</th><th>verdict</th>");
    if gated {
        h.push_str("<th class=\"text\">the gate's reason</th>");
    }
    h.push_str("</tr>\n");
    for d in &c.deltas {
        let class = match d.direction {
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
        let reason = if gated {
            format!(
                "<td class=\"text\">{}</td>",
                escape(d.reason.as_deref().unwrap_or(""))
            )
        } else {
            String::new()
        };
        h.push_str(&format!(
            "<tr><th>{}</th><td{}>{}</td><td{}>{}</td><td{class}>{}</td><td>{}</td>{}{reason}</tr>\n",
            escape(&d.name()),
            exact(d.baseline),
            d.baseline.map_or("–".into(), |v| d.human(v)),
            exact(d.candidate),
            d.candidate.map_or("–".into(), |v| d.human(v)),
            d.delta_pct.map_or("–".into(), signed_pct),
            ci,
            verdict_cell(&d.verdict)
        ));
        // What the tool printed for the same cell, on a row of its own below it.
        if let Some(line) = crate::output::compare::printed_text(
            d.printed_baseline.as_ref(),
            d.printed_candidate.as_ref(),
            &d.printed_change,
            d.printed_note.as_deref(),
        ) {
            h.push_str(&format!(
                "<tr class=\"printed\"><td colspan=\"{}\">{}</td></tr>\n",
                if gated { 7 } else { 6 },
                escape(&line)
            ));
        }
    }
    h.push_str("</table></div>\n");
    let opposed = c
        .deltas
        .iter()
        .filter(|d| crate::output::compare::opposed(d.delta_pct, d.central_delta_pct))
        .count();
    if let Some(note) = crate::output::compare::opposed_note(opposed, "the change column") {
        h.push_str(&format!("<p class=\"muted\">{}</p>\n", escape(&note)));
    }
    for ts in &c.timeseries {
        h.push_str(&figure_with(timeseries::render(ts), SPAN_CAPTION));
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_scroll_inside_the_page() {
        let html = "<h2>a</h2><table><tr><td>1</td></tr></table><div class=\"scroll\"><table class=\"x\"></table></div><p>b</p>";
        assert_eq!(
            scroll_tables(html),
            "<h2>a</h2><div class=\"scroll\"><table><tr><td>1</td></tr></table></div><div class=\"scroll\"><table class=\"x\"></table></div><p>b</p>"
        );
        // Every table of a drawn site is in a scroll wrapper.
        let runs = crate::analysis::demo::runs();
        let comparisons = crate::analysis::demo::comparisons(&runs);
        let model = model::build(&runs, &comparisons, &model::Options::default());
        for (name, text) in site(&model).unwrap().files {
            let tables = text.matches("<table").count();
            let wrapped = text.matches("<div class=\"scroll\"><table").count();
            assert_eq!(tables, wrapped, "{name}");
        }
    }

    #[test]
    fn many_runs_are_listed_as_a_distribution() {
        let cell = |v: f64| {
            Some(model::ValueCell {
                value: v,
                unit: "ns".into(),
                prefixes: fmt::Prefixes::Decimal,
            })
        };
        let row = model::ValueRow {
            name: "time".into(),
            cells: (1..=100).map(|i| cell(i as f64)).collect(),
            summary: Some((100, [1.0, 25.75, 50.5, 75.25, 100.0])),
        };
        let h = values_summary(&[row]);
        assert!(
            h.contains("<tr><th>time</th><td>100</td><td>1 ns</td><td>25.75 ns</td><td>50.5 ns</td><td>75.25 ns</td><td>100 ns</td></tr>"),
            "{h}"
        );
        assert_eq!(h.matches("<td").count(), 6);
    }

    #[test]
    fn inconclusive_is_marked_apart() {
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
        assert!(
            names["jlbh tcp"].starts_with("suite-jlbh-tcp-"),
            "{names:?}"
        );
        assert_ne!(names["jlbh tcp"], names["jlbh-tcp"]);
        let cut = &names[long.as_str()];
        assert!(
            cut.starts_with("suite-xxxx") && cut.len() <= MAX_PAGE_NAME,
            "{cut}"
        );
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
