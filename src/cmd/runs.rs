//! `bench-db runs`: list the stored runs.

use crate::cli::RunsArgs;
use crate::dataset::StoredRun;
use crate::selector::Selector;
use crate::store::Db;
use crate::store::url::Target;
use anyhow::Result;
use bench_db_parsers::{Data, Param};
use serde::Serialize;
use std::collections::BTreeMap;

/// One entry of `runs --json`.
#[derive(Debug, Serialize)]
struct RunEntry<'a> {
    id: i64,
    suite: &'a str,
    label: &'a str,
    format: &'a str,
    source: &'a str,
    run_index: u32,
    params: &'a BTreeMap<String, Param>,
    tags: &'a BTreeMap<String, String>,
    metrics: Vec<&'a str>,
    /// The single-value metrics with their values (ZooKeeper stats, JGroups rows).
    values: BTreeMap<&'a str, Option<f64>>,
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
        lines: [r.run.first_line, r.run.last_line],
        ingested_at: &r.ingested_at,
    }
}

pub fn run(db: &Target, args: &RunsArgs) -> Result<u8> {
    let store = Db::open_read(db)?;
    let runs = store.select(&Selector::parse_opt(args.selector.as_deref())?)?;
    if args.json {
        let entries: Vec<_> = runs.iter().map(entry).collect();
        println!("{}", serde_json::to_string_pretty(&entries)?);
        return Ok(crate::exit::OK);
    }
    println!(
        "{:>6}  {:<12} {:<32} {:>4}  {:<40} metrics",
        "id", "suite", "label", "run", "source"
    );
    for r in &runs {
        let metrics: Vec<&str> = r
            .run
            .series
            .iter()
            .map(|s| s.metric.as_str())
            .take(6)
            .collect();
        let more = r.run.series.len().saturating_sub(metrics.len());
        let more = if more > 0 {
            format!(" (+{more} more)")
        } else {
            String::new()
        };
        println!(
            "{:>6}  {:<12} {:<32} {:>4}  {:<40} {}{more}",
            r.id,
            r.suite,
            truncate(&r.label, 32),
            r.run.index,
            truncate(&r.source, 40),
            metrics.join(",")
        );
    }
    println!("{} runs", runs.len());
    Ok(crate::exit::OK)
}

/// Shortens `s` to `n` characters, marking the cut with `…`.
fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n - 1).collect();
        t.push('…');
        t
    }
}
