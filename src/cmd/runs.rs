//! `bench-db runs`: list the stored runs.

use crate::cli::RunsArgs;
use crate::dataset::StoredRun;
use crate::selector::Selector;
use crate::store::url::Target;
use crate::store::{Db, Detail};
use anyhow::Result;
use bench_db_parsers::{Data, Param};
use serde::Serialize;
use std::collections::BTreeMap;
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
    params: &'a BTreeMap<String, Param>,
    tags: &'a BTreeMap<String, String>,
    metrics: Vec<&'a str>,
    /// The single-value metrics with their values (ZooKeeper stats, JGroups rows).
    values: BTreeMap<&'a str, Option<f64>>,
    /// Per metric, the numbers the tool printed about it beyond the ladder (HdrHistogram
    /// footer `mean`, `stddev`, `max`, `total_count`, …) and a ladder's sample `count`.
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
        stats: r
            .run
            .series
            .iter()
            .filter_map(|s| {
                let mut m = s.stats.clone();
                if let Data::Ladder { count: Some(c), .. }
                | Data::Histogram { count: Some(c), .. } = s.data
                {
                    m.insert("count".into(), c as f64);
                }
                (!m.is_empty()).then_some((s.metric.as_str(), m))
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
    let result = if args.json {
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

fn list_json(store: &Db, sel: &Selector, mut w: impl Write) -> Result<()> {
    use serde::ser::{SerializeSeq, Serializer};
    let mut ser = serde_json::Serializer::pretty(&mut w);
    let mut seq = ser.serialize_seq(None)?;
    store.for_each_run(sel, Detail::Heads, |r| {
        Ok(seq.serialize_element(&entry(&r))?)
    })?;
    seq.end()?;
    writeln!(w)?;
    w.flush()?;
    Ok(())
}

fn list_text(store: &Db, sel: &Selector, mut w: impl Write) -> Result<()> {
    writeln!(
        w,
        "{:>6}  {:<12} {:<32} {:>4}  {:<9} {:<40} metrics",
        "id", "suite", "label", "run", "commit", "source"
    )?;
    let n = store.for_each_run(sel, Detail::Heads, |r| {
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
        writeln!(
            w,
            "{:>6}  {:<12} {:<32} {:>4}  {:<9} {:<40} {}{more}",
            r.id,
            r.suite,
            truncate(&r.label, 32),
            r.run.index,
            r.run
                .tags
                .get("commit")
                .map_or_else(|| "-".to_string(), |c| c.chars().take(9).collect()),
            truncate(&r.source, 40),
            metrics.join(",")
        )?;
        Ok(())
    })?;
    writeln!(w, "{n} runs")?;
    w.flush()?;
    Ok(())
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
