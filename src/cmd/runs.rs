//! `bench-db runs`: list the stored runs.

use crate::analysis::printed;
use crate::analysis::samples::run_bench_text;
use crate::cli::RunsArgs;
use crate::dataset::StoredRun;
use crate::output::table::{Cell, Layout};
use crate::selector::Selector;
use crate::store::url::Target;
use crate::store::{Db, Detail};
use anyhow::Result;
use bench_db_parsers::{Data, Param};
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};
use std::io::Write;

/// One entry of `runs --json`.
#[derive(Debug, Serialize)]
struct RunEntry<'a> {
    id: i64,
    suite: &'a str,
    label: &'a str,
    format: &'a str,
    source: &'a str,
    run_index: u32,
    /// The benchmark as its tool names it (`null` for a format that names none).
    bench: Option<&'a str>,
    /// The parameters that are the benchmark's configuration.
    config: BTreeMap<&'a str, &'a Param>,
    params: &'a BTreeMap<String, Param>,
    tags: &'a BTreeMap<String, String>,
    metrics: Vec<&'a str>,
    /// The single-value metrics with their values (ZooKeeper stats, JGroups rows).
    values: BTreeMap<&'a str, Option<f64>>,
    /// Per metric, every number the tool printed about it for the run's block or benchmark
    /// that is not a percentile (JMH `score`, `score_error`; hyperfine `mean`, `stddev`;
    /// Criterion `mean_low`, `change_pct`; HdrHistogram footer `mean`, `total_count`, …),
    /// in the metric's stored unit, and a ladder's sample `count`. Printed percentiles are
    /// points (`export`).
    stats: BTreeMap<&'a str, BTreeMap<String, f64>>,
    lines: [u64; 2],
    ingested_at: &'a str,
}

fn entry(r: &StoredRun) -> RunEntry<'_> {
    RunEntry {
        id: r.id,
        suite: &r.suite,
        label: &r.label,
        format: &r.format,
        source: &r.source,
        run_index: r.run.index,
        bench: r.run.bench.as_deref(),
        config: r.run.config_params(),
        params: &r.run.params,
        tags: &r.run.tags,
        metrics: r.run.series.iter().map(|s| s.metric.as_str()).collect(),
        values: r
            .run
            .series
            .iter()
            .filter_map(|s| match s.data {
                Data::Value { value } => Some((s.metric.as_str(), value)),
                _ => None,
            })
            .collect(),
        stats: printed::metrics(r)
            .into_iter()
            .filter_map(|metric| {
                let mut m = printed::stats(r, metric);
                if let Some(
                    Data::Ladder { count: Some(c), .. } | Data::Histogram { count: Some(c), .. },
                ) = r.series(metric).map(|s| &s.data)
                {
                    m.insert("count".into(), *c as f64);
                }
                (!m.is_empty()).then_some((metric, m))
            })
            .collect(),
        lines: [r.run.first_line, r.run.last_line],
        ingested_at: &r.ingested_at,
    }
}

/// Streams the selected runs (without their points) to standard output.
pub fn run(db: &Target, args: &RunsArgs) -> Result<u8> {
    let sel = Selector::parse_opt(args.selector.as_deref())?;
    let store = Db::open_read(db)?;
    let w = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let result = if args.output.json() {
        list_json(&store, &sel, w)
    } else {
        list_text(&store, &sel, w)
    };
    match result {
        Err(e) if crate::cmd::export::is_broken_pipe(&e) => Ok(crate::exit::OK),
        Err(e) => Err(e),
        Ok(()) => Ok(crate::exit::OK),
    }
}

/// A JSON array written one run at a time: memory does not grow with the database.
fn list_json(store: &Db, sel: &Selector, mut w: impl Write) -> Result<()> {
    use serde::ser::{SerializeSeq, Serializer};
    let mut ser = serde_json::Serializer::pretty(&mut w);
    let mut seq = ser.serialize_seq(None)?;
    store.for_each_run(sel, Detail::HeadsPrinted, |r| {
        Ok(seq.serialize_element(&entry(&r))?)
    })?;
    seq.end()?;
    writeln!(w)?;
    w.flush()?;
    Ok(())
}

/// The aligned table in two passes over the selection: the first measures the columns
/// (and notes the ids, 8 bytes a run), the second writes the rows of those runs, so
/// memory does not grow with the runs' heads.
fn list_text(store: &Db, sel: &Selector, mut w: impl Write) -> Result<()> {
    let mut layout = Layout::new(&LIMITS);
    let header = header();
    layout.measure(&header);
    let mut ids = HashSet::new();
    store.for_each_run(sel, Detail::Heads, |r| {
        layout.measure(&row(&r));
        ids.insert(r.id);
        Ok(())
    })?;
    let mut out = String::new();
    layout.write_row(&header, false, &mut out);
    w.write_all(out.as_bytes())?;
    let mut listed = 0;
    store.for_each_run(sel, Detail::Heads, |r| {
        // Runs stored since the first pass were not measured: left out.
        if ids.contains(&r.id) {
            out.clear();
            layout.write_row(&row(&r), false, &mut out);
            w.write_all(out.as_bytes())?;
            listed += 1;
        }
        Ok(())
    })?;
    writeln!(w, "{}", crate::output::plural(listed, "run"))?;
    w.flush()?;
    Ok(())
}

/// Width limits of the table's columns: full labels, sources and tags wrap rather than
/// being cut, so a selector can be copied from the table. The commit is shown by its
/// first [`COMMIT_CHARS`] characters instead (a selector takes the whole hash from
/// `runs --json`).
const LIMITS: [usize; 10] = [0, 16, 36, 48, 0, 0, 24, 44, 40, 32];

/// How much of a commit hash the table shows: git's short hashes are 7 to 12 characters.
const COMMIT_CHARS: usize = 12;

/// How many single values the `values` column shows before `+N more`.
const VALUES_SHOWN: usize = 3;

fn header() -> Vec<Cell> {
    [
        "id", "suite", "label", "bench", "run", "commit", "tags", "source", "metrics", "values",
    ]
    .into_iter()
    .map(Cell::from)
    .collect()
}

/// The `values` column: the run's single values (`metric=value`), the first few of them;
/// `-` for a run of ladders and time series, whose points `export` prints.
fn values(r: &StoredRun) -> String {
    let singles: Vec<String> = r
        .run
        .series
        .iter()
        .filter_map(|s| match s.data {
            Data::Value { value } => Some(format!("{}={}", s.metric, crate::numfmt::num(value))),
            _ => None,
        })
        .collect();
    if singles.is_empty() {
        return "-".to_string();
    }
    let mut shown = singles[..singles.len().min(VALUES_SHOWN)].join(" ");
    if singles.len() > VALUES_SHOWN {
        shown.push_str(&format!(" +{} more", singles.len() - VALUES_SHOWN));
    }
    shown
}

/// The `bench` column: the benchmark and its configuration, as `compare` names them
/// (`sleep 0.01`, `BranchPrediction.hashSet [same=false shuffle=true]`); `-` for a format
/// that names neither.
fn bench(r: &StoredRun) -> String {
    let text = run_bench_text(r);
    if text.is_empty() {
        "-".to_string()
    } else {
        text
    }
}

/// A run's row; the commit has its own column.
fn row(r: &StoredRun) -> Vec<Cell> {
    let tags = r.other_tags();
    let metrics: Vec<&str> = r.run.series.iter().map(|s| s.metric.as_str()).collect();
    let commit: String = r
        .run
        .tags
        .get("commit")
        .map_or("-".to_string(), |c| c.chars().take(COMMIT_CHARS).collect());
    vec![
        Cell::from(r.id.to_string()),
        Cell::from(r.suite.as_str()),
        Cell::from(r.label.as_str()),
        Cell::from(bench(r)),
        Cell::from(r.run.index.to_string()),
        Cell::from(commit),
        Cell::from(if tags.is_empty() {
            "-".to_string()
        } else {
            tags.join(" ")
        }),
        Cell::from(r.source.as_str()),
        Cell::from(metrics.join(",")),
        Cell::from(values(r)),
    ]
}
