//! The report's site model: every page and section with its numbers already computed
//! (groups and their run rows, chart inputs, variation tables, curves, histories,
//! change points, before/after comparisons), built from the selected runs. Which groups
//! a suite page draws and which go to group pages is decided here too. `report::html`
//! only draws this model; it computes nothing. Pure: runs in, structs out.

use super::charts::changes::{self, ChangeSeries};
use super::charts::curve::{self as curve_input, CurveInput};
use super::charts::history::{self, HistoryInput};
use super::charts::spectrum::{self, SpectrumInput};
use super::charts::timeseries::{self, TimeSeriesInput};
use super::charts::variation::{self, VariationTable, group_title};
use super::curve as analysis_curve;
use super::pairing::Comparison;
use super::slo::{self, SloTerm};
use crate::dataset::StoredRun;
use crate::numfmt::{Prefixes, prefixes_of};
use bench_db_parsers::{Data, Param};
use std::collections::BTreeMap;

/// Groups drawn per suite page; older groups are listed, not drawn, so a page stays
/// quick to render and small however many runs a suite holds.
pub const MAX_GROUPS_DRAWN: usize = 30;
/// A suite with more groups than this lists them on pages of this many groups each,
/// with their run and variation tables, and no charts.
pub const GROUPS_PER_PAGE: usize = 50;
/// Percentiles drawn on throughput/latency curves.
pub const CURVE_PERCENTILES: [f64; 4] = [50.0, 90.0, 99.0, 99.9];

/// What the report shows beyond the runs themselves.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub slo: Vec<SloTerm>,
}

/// Every page of a report.
#[derive(Debug, Clone, PartialEq)]
pub struct Site {
    /// Runs in the report.
    pub runs: usize,
    /// Every before/after comparison, in the order asked for.
    pub comparisons: Vec<Comparison>,
    /// Branches not compared (beyond [`super::pairing::MAX_BRANCH_PAIRS`]), `suite:
    /// branch`; the report command sets them.
    pub left_out: Vec<String>,
    /// One page per suite, by suite name.
    pub suites: Vec<SuitePage>,
}

/// A suite's page and, when it has more groups than [`GROUPS_PER_PAGE`], its group
/// pages.
#[derive(Debug, Clone, PartialEq)]
pub struct SuitePage {
    pub suite: String,
    pub runs: usize,
    /// Distinct sources and formats of its runs (formats sorted).
    pub sources: usize,
    pub formats: Vec<String>,
    /// Groups (source blocks) of its runs, every one.
    pub groups: usize,
    /// The most recent [`MAX_GROUPS_DRAWN`] groups, oldest first, drawn on the page.
    pub drawn: Vec<Group>,
    /// The page's variation tables: every group's, or the drawn groups' when the
    /// suite has group pages.
    pub variation: VariationTable,
    /// Pages of [`GROUPS_PER_PAGE`] groups; empty when the suite page lists them all.
    pub group_pages: Vec<GroupPage>,
    pub curves: Vec<CurveInput>,
    /// Histories over ingests.
    pub histories: Vec<HistoryInput>,
    /// Histories over commits, with their change points.
    pub changes: Vec<ChangeSeries>,
    /// What the tool printed about each drawn group's metrics, beside ours.
    pub printed: Vec<PrintedRow>,
}

/// One metric of one group (one invocation): the summary its tool printed (JMH score ±
/// error, hyperfine mean ± σ, Criterion's mean with its interval) and ours from its runs.
#[derive(Debug, Clone, PartialEq)]
pub struct PrintedRow {
    /// The benchmark and its configuration (the group's title when the format names none).
    pub bench: String,
    pub metric: String,
    /// The tool's name and its numbers: `JMH score 12.453 ± 1.823 [10.63, 14.276] ops/ms`.
    pub printed: String,
    /// Ours: the mean of the group's run values, with their count (`12.453 ops/ms, mean
    /// of 3 runs`).
    pub ours: String,
}

impl SuitePage {
    /// Older groups not drawn on the suite page.
    pub fn skipped(&self) -> usize {
        self.groups - self.drawn.len()
    }
}

/// One group of runs (a source block) as the suite page draws it.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub title: String,
    /// Branch and commit of its first run (` · branch main · commit abc`), so groups
    /// sharing a label are told apart.
    pub origin: String,
    pub format: String,
    pub runs: Vec<RunRow>,
    /// Its time series are drawn above, before and after, and not again here.
    pub timeseries_drawn_above: bool,
    /// Spectra and time series, in the order of its metrics.
    pub charts: Vec<GroupChart>,
    /// Its single-value metrics: one row per metric, one cell per run.
    pub values: Vec<ValueRow>,
}

/// A chart of one group.
#[derive(Debug, Clone, PartialEq)]
pub enum GroupChart {
    Spectrum(SpectrumInput),
    TimeSeries(TimeSeriesInput),
}

/// One single-value metric of a group.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueRow {
    /// Display name as printed.
    pub name: String,
    /// One cell per run of the group; `None` where the run has no value.
    pub cells: Vec<Option<ValueCell>>,
}

/// A value with what it takes to print it as the tool did.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueCell {
    pub value: f64,
    pub unit: String,
    pub prefixes: Prefixes,
}

/// One run of a group: where it came from and what it ran with.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRow {
    pub index: u32,
    pub tags: BTreeMap<String, String>,
    /// Tags other than `commit`, as `key=value`.
    pub other_tags: Vec<String>,
    pub params: BTreeMap<String, Param>,
    pub source: String,
    pub first_line: u64,
    pub last_line: u64,
}

/// One page of a suite's groups.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupPage {
    /// 1-based numbers of its first and last group among the suite's.
    pub first: usize,
    pub last: usize,
    pub groups: Vec<PagedGroup>,
}

/// A group on a group page: its runs and variation table, nothing drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct PagedGroup {
    pub title: String,
    pub format: String,
    pub block_id: i64,
    pub runs: Vec<RunRow>,
    pub variation: VariationTable,
}

/// Builds every page of a report of `runs` with these comparisons.
pub fn build(runs: &[StoredRun], comparisons: &[Comparison], opts: &Options) -> Site {
    let mut suites: BTreeMap<&str, Vec<&StoredRun>> = BTreeMap::new();
    for r in runs {
        suites.entry(r.suite.as_str()).or_default().push(r);
    }
    Site {
        runs: runs.len(),
        comparisons: comparisons.to_vec(),
        left_out: Vec::new(),
        suites: suites
            .iter()
            .map(|(suite, runs)| {
                let cmps: Vec<&Comparison> =
                    comparisons.iter().filter(|c| c.suite == *suite).collect();
                suite_page(suite, runs, &cmps, opts)
            })
            .collect(),
    }
}

fn suite_page(suite: &str, runs: &[&StoredRun], cmps: &[&Comparison], opts: &Options) -> SuitePage {
    let mut groups: BTreeMap<(&str, i64, u32), Vec<&StoredRun>> = BTreeMap::new();
    for r in runs {
        groups
            .entry((r.ingested_at.as_str(), r.source_id, r.block_index))
            .or_default()
            .push(r);
    }
    let mut groups: Vec<Vec<&StoredRun>> = groups.into_values().collect();
    for group in &mut groups {
        group.sort_by_key(|r| r.run.index);
    }
    let paged = groups.len() > GROUPS_PER_PAGE;
    let skipped = groups.len().saturating_sub(MAX_GROUPS_DRAWN);
    let drawn: Vec<Group> = groups[skipped..]
        .iter()
        .map(|group| {
            // Time series already drawn before and after are not drawn again per group.
            let charted = group
                .iter()
                .all(|r| cmps.iter().any(|c| c.charted_runs.contains(&r.id)));
            group_of(group, opts, charted)
        })
        .collect();
    let (variation, group_pages) = if paged {
        let drawn: Vec<&StoredRun> = groups[skipped..].iter().flatten().copied().collect();
        (variation::from_runs(&drawn), group_pages(&groups))
    } else {
        (variation::from_runs(runs), Vec::new())
    };
    let ladder_metrics: Vec<String> = metrics_of(runs)
        .into_iter()
        .filter(|m| m.1 == "ladder" || m.1 == "histogram")
        .map(|m| m.0)
        .collect();
    let mut sources: Vec<i64> = runs.iter().map(|r| r.source_id).collect();
    sources.sort_unstable();
    sources.dedup();
    let mut formats: Vec<String> = runs.iter().map(|r| r.format.clone()).collect();
    formats.sort_unstable();
    formats.dedup();
    SuitePage {
        suite: suite.to_string(),
        runs: runs.len(),
        sources: sources.len(),
        formats,
        groups: groups.len(),
        drawn,
        variation,
        group_pages,
        curves: curves(runs, &ladder_metrics, opts),
        histories: history::from_runs(runs),
        changes: changes::series_of(runs),
        printed: groups[skipped..]
            .iter()
            .flat_map(|g| printed_rows(g))
            .collect(),
    }
}

/// The printed-summary rows of one group: one per single-value metric whose tool printed
/// a headline with an error or interval for it.
fn printed_rows(group: &[&StoredRun]) -> Vec<PrintedRow> {
    // The report keeps a block's printed numbers on one of its runs.
    let Some(first) = group
        .iter()
        .find(|r| !r.printed.is_empty())
        .or(group.first())
    else {
        return Vec::new();
    };
    let bench = {
        let pairs: Vec<(String, String)> = first
            .run
            .config_params()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let config = super::samples::config_text(pairs.iter().map(|(k, v)| (k, v)));
        let mut parts: Vec<String> = first.run.bench.iter().cloned().collect();
        if !config.is_empty() {
            parts.push(config);
        }
        if parts.is_empty() {
            group_title(first)
        } else {
            parts.join(" ")
        }
    };
    metrics_of(group)
        .into_iter()
        .filter(|(_, kind)| *kind == "value")
        .filter_map(|(metric, _)| {
            let h = super::printed::headline(first, &metric, None)
                // A value with neither ± nor interval (k6's counters) is the run itself.
                .filter(|h| h.error.is_some() || h.low.is_some() || h.high.is_some())?;
            let values: Vec<f64> = group
                .iter()
                .filter_map(|r| match r.series(&metric)?.data {
                    Data::Value { value } => value,
                    _ => None,
                })
                .collect();
            let fmt = |v: f64| crate::numfmt::sig(v, 5);
            let ours = match crate::stats::describe::mean(&values) {
                Some(m) => format!(
                    "{} {}, mean of {}",
                    fmt(m),
                    h.unit,
                    crate::numfmt::plural(values.len(), "run")
                ),
                None => "-".to_string(),
            };
            Some(PrintedRow {
                bench: bench.clone(),
                printed: format!("{} {} {}", h.tool, h.name, h.text(fmt)),
                ours,
                metric,
            })
        })
        .collect()
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

fn run_rows(group: &[&StoredRun]) -> Vec<RunRow> {
    group
        .iter()
        .map(|r| RunRow {
            index: r.run.index,
            tags: r.run.tags.clone(),
            other_tags: r.other_tags(),
            params: r.run.params.clone(),
            source: r.source.clone(),
            first_line: r.run.first_line,
            last_line: r.run.last_line,
        })
        .collect()
}

/// A drawn group: its spectra, its time series unless `timeseries_charted` (drawn
/// before and after already), and its single values.
fn group_of(group: &[&StoredRun], opts: &Options, timeseries_charted: bool) -> Group {
    let first = group[0];
    let mut origin = String::new();
    for key in ["branch", "commit"] {
        if let Some(v) = first.run.tags.get(key) {
            origin.push_str(&format!(" · {key} {v}"));
        }
    }
    let metrics = metrics_of(group);
    let mut charts = Vec::new();
    let mut values = Vec::new();
    for (metric, kind) in &metrics {
        match *kind {
            "ladder" | "histogram" => {
                let unit = group
                    .iter()
                    .find_map(|r| r.series(metric))
                    .map_or("", |s| s.unit.as_str());
                let slo = slo::in_unit(&opts.slo, unit);
                if let Some(input) = spectrum::from_runs(group, metric, &slo) {
                    charts.push(GroupChart::Spectrum(input));
                }
            }
            "timeseries" if timeseries_charted => {}
            "timeseries" => {
                if let Some(input) = timeseries::from_runs(group, metric, false) {
                    charts.push(GroupChart::TimeSeries(input));
                }
            }
            _ => values.push(value_row(group, metric)),
        }
    }
    Group {
        title: group_title(first),
        origin,
        format: first.format.clone(),
        runs: run_rows(group),
        timeseries_drawn_above: timeseries_charted && metrics.iter().any(|m| m.1 == "timeseries"),
        charts,
        values,
    }
}

fn value_row(group: &[&StoredRun], metric: &str) -> ValueRow {
    let s = group.iter().find_map(|r| r.series(metric));
    ValueRow {
        name: s.map_or(metric, |s| s.display.as_str()).to_string(),
        cells: group
            .iter()
            .map(|r| match r.series(metric) {
                Some(s) => match s.data {
                    Data::Value { value: Some(v) } => Some(ValueCell {
                        value: v,
                        unit: s.unit.clone(),
                        prefixes: prefixes_of(&r.format),
                    }),
                    _ => None,
                },
                None => None,
            })
            .collect(),
    }
}

/// The group pages of a suite with more groups than a page.
fn group_pages(groups: &[Vec<&StoredRun>]) -> Vec<GroupPage> {
    groups
        .chunks(GROUPS_PER_PAGE)
        .enumerate()
        .map(|(k, chunk)| GroupPage {
            first: k * GROUPS_PER_PAGE + 1,
            last: k * GROUPS_PER_PAGE + chunk.len(),
            groups: chunk
                .iter()
                .map(|group| PagedGroup {
                    title: group_title(group[0]),
                    format: group[0].format.clone(),
                    block_id: group[0].block_id,
                    runs: run_rows(group),
                    variation: variation::from_runs(group),
                })
                .collect(),
        })
        .collect()
}

/// Throughput/latency curves of the ladder metrics, one per source whose runs span two
/// or more throughputs: different sources are different experiments, never pooled into
/// one line. An SLO whose unit does not fit a metric is left off that chart.
fn curves(runs: &[&StoredRun], metrics: &[String], opts: &Options) -> Vec<CurveInput> {
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
                        .insert("target_throughput".into(), Param::Num(a));
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
            if let Some(mut input) = curve_input::from_curve(&c, &name, "/s") {
                input.throughput_caption = if achieved {
                    "Achieved throughput"
                } else {
                    "Target throughput"
                }
                .to_string();
                out.push(input);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::demo;

    #[test]
    fn pages_hold_what_is_drawn() {
        let runs = demo::runs();
        let comparisons = demo::comparisons(&runs);
        let site = build(&runs, &comparisons, &Options::default());
        let names: Vec<&str> = site.suites.iter().map(|s| s.suite.as_str()).collect();
        assert_eq!(names, ["jgroups", "jlbh", "tsar", "zookeeper"]);
        assert_eq!(site.runs, runs.len());
        let jlbh = &site.suites[1];
        assert_eq!(jlbh.groups, jlbh.drawn.len());
        assert!(jlbh.group_pages.is_empty());
        // Each JLBH group draws its End to End spectrum, one line per run.
        let GroupChart::Spectrum(s) = &jlbh.drawn[0].charts[0] else {
            panic!("{:?}", jlbh.drawn[0].charts)
        };
        assert_eq!(s.runs.len(), jlbh.drawn[0].runs.len());
        // tsar's time series are drawn before and after, not again per group.
        let tsar = &site.suites[2];
        assert!(tsar.drawn.iter().all(|g| g.timeseries_drawn_above));
        assert!(tsar.drawn.iter().all(|g| {
            !g.charts
                .iter()
                .any(|c| matches!(c, GroupChart::TimeSeries(_)))
        }));
    }

    #[test]
    fn many_groups_go_to_group_pages() {
        let runs: Vec<StoredRun> = demo::many(6_000)
            .into_iter()
            .enumerate()
            .map(|(i, mut r)| {
                // One group per 50 runs: 120 groups.
                r.block_index = (i / 50) as u32;
                r.block_id = (i / 50) as i64;
                r
            })
            .collect();
        let site = build(&runs, &[], &Options::default());
        let load = &site.suites[0];
        assert_eq!(load.groups, 120);
        assert_eq!(load.drawn.len(), MAX_GROUPS_DRAWN);
        assert_eq!(load.skipped(), 90);
        let pages: Vec<(usize, usize)> =
            load.group_pages.iter().map(|p| (p.first, p.last)).collect();
        assert_eq!(pages, [(1, 50), (51, 100), (101, 120)]);
    }
}
