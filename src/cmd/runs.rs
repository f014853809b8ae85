//! `bench-db runs`: list the stored runs.

use crate::cli::RunsArgs;
use crate::dataset::StoredRun;
use crate::output::table::{self, Cell};
use crate::selector::Selector;
use crate::store::Store;
use anyhow::Result;
use bench_db_parsers::{Data, Param};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

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

pub fn run(db: &Path, args: &RunsArgs) -> Result<u8> {
    let store = Store::open(db)?;
    let runs = super::select::select(&store, &Selector::parse_opt(args.selector.as_deref())?)?;
    if args.json {
        let entries: Vec<_> = runs.iter().map(entry).collect();
        println!("{}", serde_json::to_string_pretty(&entries)?);
        return Ok(crate::exit::OK);
    }
    print!("{}", table(&runs));
    println!("{} runs", runs.len());
    Ok(crate::exit::OK)
}

/// The human table: full labels, sources and tags, wrapped rather than cut so a
/// selector can be copied from it; the commit in its own column.
fn table(runs: &[StoredRun]) -> String {
    let mut rows: Vec<Vec<Cell>> = vec![
        [
            "id", "suite", "label", "run", "commit", "tags", "source", "metrics",
        ]
        .into_iter()
        .map(Cell::from)
        .collect(),
    ];
    for r in runs {
        let tags: Vec<String> = r
            .run
            .tags
            .iter()
            .filter(|(k, _)| k.as_str() != "commit")
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let metrics: Vec<&str> = r.run.series.iter().map(|s| s.metric.as_str()).collect();
        rows.push(vec![
            Cell::from(r.id.to_string()),
            Cell::from(r.suite.as_str()),
            Cell::from(r.label.as_str()),
            Cell::from(r.run.index.to_string()),
            Cell::from(r.run.tags.get("commit").map_or("-", String::as_str)),
            Cell::from(if tags.is_empty() {
                "-".to_string()
            } else {
                tags.join(" ")
            }),
            Cell::from(r.source.as_str()),
            Cell::from(metrics.join(",")),
        ]);
    }
    table::render_wrapped(rows, &[0, 16, 36, 0, 12, 24, 44, 40], false)
}
