//! `bench-db export`: every stored point as CSV or JSON, ordered by run, metric,
//! percentile and t.

use crate::cli::{ExportArgs, ExportFormat};
use crate::dataset::StoredRun;
use crate::selector::Selector;
use crate::store::Db;
use crate::store::url::Target;
use anyhow::Result;
use bench_db_parsers::Data;
use serde::Serialize;
use std::io::Write;

/// One exported point; `None` where not applicable.
#[derive(Debug, Serialize)]
pub struct Point<'a> {
    pub run_id: i64,
    pub suite: &'a str,
    pub label: &'a str,
    pub source: &'a str,
    pub metric: &'a str,
    pub percentile: Option<f64>,
    pub t: Option<f64>,
    pub value: Option<f64>,
    pub unit: &'a str,
}

/// The points of `runs` in export order.
pub fn points(runs: &[StoredRun]) -> Vec<Point<'_>> {
    let mut out = Vec::new();
    for r in runs {
        let mut series: Vec<_> = r.run.series.iter().collect();
        series.sort_by(|a, b| a.metric.cmp(&b.metric));
        for s in series {
            let base = |percentile, t, value| Point {
                run_id: r.id,
                suite: &r.suite,
                label: &r.label,
                source: &r.source,
                metric: &s.metric,
                percentile,
                t,
                value,
                unit: &s.unit,
            };
            let start = out.len();
            match &s.data {
                Data::Ladder { points, .. } | Data::Histogram { points, .. } => out.extend(
                    points
                        .iter()
                        .map(|p| base(Some(p.percentile), None, p.value)),
                ),
                Data::TimeSeries { points } => {
                    out.extend(points.iter().map(|p| base(None, Some(p.t), p.value)))
                }
                Data::Value { value } => out.push(base(None, None, *value)),
            }
            out[start..].sort_by(|a, b| {
                a.percentile
                    .unwrap_or(0.0)
                    .total_cmp(&b.percentile.unwrap_or(0.0))
                    .then(a.t.unwrap_or(0.0).total_cmp(&b.t.unwrap_or(0.0)))
            });
        }
    }
    out
}

pub fn run(db: &Target, args: &ExportArgs) -> Result<u8> {
    let store = Db::open_read(db)?;
    let runs = store.select(&Selector::parse_opt(args.selector.as_deref())?)?;
    let pts = points(&runs);
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    match args.format {
        ExportFormat::Json => {
            serde_json::to_writer_pretty(&mut lock, &pts)?;
            writeln!(lock)?;
        }
        ExportFormat::Csv => {
            let mut w = csv::Writer::from_writer(lock);
            for p in &pts {
                w.serialize(p)?;
            }
            if pts.is_empty() {
                w.write_record([
                    "run_id",
                    "suite",
                    "label",
                    "source",
                    "metric",
                    "percentile",
                    "t",
                    "value",
                    "unit",
                ])?;
            }
            w.flush()?;
        }
    }
    Ok(crate::exit::OK)
}
