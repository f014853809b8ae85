//! `bench-db export`: every stored point as CSV or JSON, ordered by run, metric,
//! percentile and t, and every number the tool printed about them as rows naming it in
//! `stat` (see [`Point::stat`]).

use crate::analysis::printed;
use crate::cli::{ExportArgs, ExportFormat};
use crate::dataset::StoredRun;
use crate::selector::Selector;
use crate::store::url::Target;
use crate::store::{Db, Detail};
use anyhow::Result;
use bench_db_parsers::Data;
use serde::Serialize;
use std::borrow::Cow;
use std::collections::HashSet;
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
    /// `None` for a measured point. For a number the tool printed, its name: a series'
    /// stat (HdrHistogram's `mean`, JMH's `score`) on its run's rows, a block's printed
    /// number (hyperfine's `stddev`, Criterion's `mean_low`, `change_pct`) on the first
    /// exported run of the block, with `percentile` set for a printed percentile (JMH
    /// `score_percentile`, hyperfine's `min`/`median`/`max`) and empty otherwise.
    pub stat: Option<&'a str>,
}

/// The points of `runs` in export order, with their printed numbers.
pub fn points(runs: &[StoredRun]) -> Vec<Point<'_>> {
    let mut out = Vec::new();
    let mut blocks = HashSet::new();
    for r in runs {
        run_points(r, blocks.insert(r.block_id), &mut out);
    }
    out
}

/// Appends the rows of one run in export order: by metric, then percentile and t, each
/// metric's measured points before its printed numbers; the block's printed numbers when
/// `with_block` (the block's first exported run), so each is exported once.
fn run_points<'a>(r: &'a StoredRun, with_block: bool, out: &mut Vec<Point<'a>>) {
    let start_run = out.len();
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
            stat: None,
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
        for (name, v) in &s.stats {
            out.push(Point {
                stat: Some(name),
                unit: printed::unit(name, &s.unit),
                ..base(None, None, Some(*v))
            });
        }
    }
    if with_block {
        let unit_of = |metric: &str| r.series(metric).map_or("", |s| s.unit.as_str());
        let mut printed: Vec<_> = r.printed.iter().collect();
        // Printed percentiles in percentile order, the other numbers as printed after them.
        printed.sort_by(|a, b| match (a.percentile, b.percentile) {
            (Some(x), Some(y)) => x.total_cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        });
        // A printed number the run's series already holds as its stat (hyperfine's CSV
        // `stddev`, stored as the series' and as printed) is exported once, as the stat.
        let held = |p: &bench_db_parsers::PrintedStat| {
            p.percentile.is_none()
                && r.series(&p.metric)
                    .and_then(|s| s.stats.get(&p.name))
                    .is_some_and(|v| Some(*v) == p.value)
        };
        out.extend(printed.into_iter().filter(|p| !held(p)).map(|p| Point {
            run_id: r.id,
            suite: &r.suite,
            label: &r.label,
            source: &r.source,
            metric: &p.metric,
            percentile: p.percentile,
            t: None,
            value: p.value,
            unit: printed::unit(&p.name, unit_of(&p.metric)),
            stat: Some(&p.name),
        }));
    }
    // Stable: within a metric, measured points stay before printed numbers.
    out[start_run..].sort_by(|a, b| a.metric.cmp(b.metric));
}

const CSV_HEADER: [&str; 10] = [
    "run_id",
    "suite",
    "label",
    "source",
    "metric",
    "percentile",
    "t",
    "value",
    "unit",
    "stat",
];

/// Streams the selected runs' points to standard output, one run in memory at a time.
/// A closed standard output (`export | head`) ends the export quietly (exit 0).
pub fn run(db: &Target, args: &ExportArgs) -> Result<u8> {
    let sel = Selector::parse_opt(args.selector.as_deref())?;
    let store = Db::open_read(db)?;
    let stdout = std::io::stdout();
    let w = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let result = match args.output.format() {
        ExportFormat::Json => export_json(&store, &sel, w),
        ExportFormat::Csv => export_csv(&store, &sel, w),
    };
    match result {
        Err(e) if is_broken_pipe(&e) => Ok(crate::exit::OK),
        Err(e) => Err(e),
        Ok(()) => Ok(crate::exit::OK),
    }
}

fn export_json(store: &Db, sel: &Selector, mut w: impl Write) -> Result<()> {
    use serde::ser::{SerializeSeq, Serializer};
    let mut ser = serde_json::Serializer::pretty(&mut w);
    let mut seq = ser.serialize_seq(None)?;
    let mut blocks = HashSet::new();
    store.for_each_run(sel, Detail::Points, |r| {
        let mut pts = Vec::new();
        run_points(&r, blocks.insert(r.block_id), &mut pts);
        for p in &pts {
            seq.serialize_element(p)?;
        }
        Ok(())
    })?;
    seq.end()?;
    writeln!(w)?;
    w.flush()?;
    Ok(())
}

/// A point as a CSV row: its text cells neutralised against formula injection.
#[derive(Serialize)]
struct CsvPoint<'a> {
    run_id: i64,
    suite: Cow<'a, str>,
    label: Cow<'a, str>,
    source: Cow<'a, str>,
    metric: Cow<'a, str>,
    percentile: Option<f64>,
    t: Option<f64>,
    value: Option<f64>,
    unit: Cow<'a, str>,
    stat: Cow<'a, str>,
}

/// A text cell that a spreadsheet would read as a formula (it begins with `=`, `+`, `-`,
/// `@`, a tab or a carriage return) gets a leading `'`, as OWASP recommends for CSV
/// injection; every other cell, and every number, is written exactly.
fn neutral(s: &str) -> Cow<'_, str> {
    if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        Cow::Owned(format!("'{s}"))
    } else {
        Cow::Borrowed(s)
    }
}

fn export_csv(store: &Db, sel: &Selector, w: impl Write) -> Result<()> {
    let mut w = csv::WriterBuilder::new().has_headers(false).from_writer(w);
    w.write_record(CSV_HEADER).map_err(csv_io)?;
    let mut blocks = HashSet::new();
    store.for_each_run(sel, Detail::Points, |r| {
        let mut pts = Vec::new();
        run_points(&r, blocks.insert(r.block_id), &mut pts);
        for p in &pts {
            let row = CsvPoint {
                run_id: p.run_id,
                suite: neutral(p.suite),
                label: neutral(p.label),
                source: neutral(p.source),
                metric: neutral(p.metric),
                percentile: p.percentile,
                t: p.t,
                value: p.value,
                unit: neutral(p.unit),
                stat: neutral(p.stat.unwrap_or("")),
            };
            w.serialize(&row).map_err(csv_io)?;
        }
        Ok(())
    })?;
    w.flush()?;
    Ok(())
}

/// A CSV error as the IO error it wraps, so a closed pipe is recognised.
fn csv_io(e: csv::Error) -> anyhow::Error {
    match e.into_kind() {
        csv::ErrorKind::Io(io) => io.into(),
        other => anyhow::anyhow!("{other:?}"),
    }
}

/// Whether `e` is a write to a closed pipe.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || c.downcast_ref::<serde_json::Error>()
                .is_some_and(|j| j.io_error_kind() == Some(std::io::ErrorKind::BrokenPipe))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blocks_printed_numbers_come_once_after_its_first_runs_points() {
        use crate::analysis::testdata::stored;
        use bench_db_parsers::{PrintedStat, Series};
        // two-commands.json, `sleep 0.01`: times[0] 0.010335841440000002, times[1]
        // 0.014029069440000002; median 0.013546731440000001, stddev 0.0024002142030061027.
        let printed = vec![
            PrintedStat {
                metric: "time".into(),
                percentile: None,
                name: "stddev".into(),
                value: Some(0.0024002142030061027),
            },
            PrintedStat {
                metric: "time".into(),
                percentile: Some(50.0),
                name: "median".into(),
                value: Some(0.013546731440000001),
            },
        ];
        let runs: Vec<StoredRun> = [0.010335841440000002, 0.014029069440000002]
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let mut r = stored(
                    i as i64 + 1,
                    "hyperfine",
                    "x",
                    vec![Series::value("time", "s", Some(*v))],
                );
                r.printed = printed.clone();
                r
            })
            .collect();
        let pts = points(&runs);
        let rows: Vec<_> = pts
            .iter()
            .map(|p| (p.run_id, p.percentile, p.value, p.stat))
            .collect();
        assert_eq!(
            rows,
            [
                (1, None, Some(0.010335841440000002), None),
                (1, Some(50.0), Some(0.013546731440000001), Some("median")),
                (1, None, Some(0.0024002142030061027), Some("stddev")),
                (2, None, Some(0.014029069440000002), None),
            ]
        );
        assert!(pts.iter().all(|p| p.unit == "s"));
        // A printed stddev the series holds as its own stat is one row, not two.
        let mut runs = runs;
        runs[0].run.series[0]
            .stats
            .insert("stddev".into(), 0.0024002142030061027);
        let stddevs = points(&runs)
            .iter()
            .filter(|p| p.stat == Some("stddev"))
            .count();
        assert_eq!(stddevs, 1);
    }

    #[test]
    fn formula_cells_are_neutralised_and_others_kept() {
        for bad in ["=1+1", "+cmd", "-2+3", "@SUM(A1)", "\tx", "\rx"] {
            assert_eq!(neutral(bad), format!("'{bad}"));
        }
        for good in ["jlbh", "end_to_end", "a=b", "", "99.9", "ns/op"] {
            assert!(matches!(neutral(good), Cow::Borrowed(s) if s == good));
        }
    }
}
