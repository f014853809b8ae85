//! Migration 2's data step, written once for both backends: the rows of the version-1
//! tables `point` and `printed_stat`, read by a backend in their stored order, become each
//! series' packed points (or single value) and each block's printed numbers.

use super::codec;
use super::rows::printed_to_json;
use bench_db_parsers::{LadderPoint, PrintedStat, TimePoint};

/// One row of the version-1 `point` table, with its series' kind.
pub struct V1Point {
    pub series_id: i64,
    pub kind: String,
    pub percentile: Option<f64>,
    pub t: Option<f64>,
    pub value: Option<f64>,
    pub line_value: Option<f64>,
}

/// What migration 2 writes for one series.
pub enum SeriesUpdate {
    /// `series.points` of this id.
    Points(i64, Vec<u8>),
    /// `series.value` of this id.
    Value(i64, Option<f64>),
}

/// Packs the points of each series (rows grouped by series, in order) and hands each
/// series' update to `write`.
pub fn pack_points<E>(
    rows: impl Iterator<Item = Result<V1Point, E>>,
    mut write: impl FnMut(SeriesUpdate) -> Result<(), E>,
) -> Result<(), E> {
    let mut flush = |rows: Vec<V1Point>| {
        let (id, kind) = (rows[0].series_id, rows[0].kind.clone());
        let ladder: Vec<LadderPoint> = rows
            .iter()
            .map(|p| LadderPoint {
                percentile: p.percentile.unwrap_or(f64::NAN),
                value: p.value,
                line_value: p.line_value,
            })
            .collect();
        write(match kind.as_str() {
            "timeseries" => {
                let times: Vec<TimePoint> = rows
                    .iter()
                    .map(|p| TimePoint {
                        t: p.t.unwrap_or(f64::NAN),
                        value: p.value,
                    })
                    .collect();
                SeriesUpdate::Points(id, codec::time_series(&times, None))
            }
            "value" => SeriesUpdate::Value(id, ladder.first().and_then(|p| p.value)),
            _ => SeriesUpdate::Points(id, codec::ladder(&ladder, None)),
        })
    };
    for_each_group(rows, |p| p.series_id, &mut flush)
}

/// Packs each block's printed numbers (rows grouped by block, in order) as
/// `block.printed` JSON and hands them to `write` with the block id.
pub fn pack_printed<E>(
    rows: impl Iterator<Item = Result<(i64, PrintedStat), E>>,
    mut write: impl FnMut(i64, String) -> Result<(), E>,
) -> Result<(), E> {
    for_each_group(rows, |r| r.0, &mut |group: Vec<(i64, PrintedStat)>| {
        let id = group[0].0;
        let stats: Vec<PrintedStat> = group.into_iter().map(|r| r.1).collect();
        let json = printed_to_json(&stats).expect("numbers and strings serialise");
        write(id, json)
    })
}

/// Calls `flush` with each run of consecutive rows that share a key.
fn for_each_group<T, E>(
    rows: impl Iterator<Item = Result<T, E>>,
    key: impl Fn(&T) -> i64,
    flush: &mut dyn FnMut(Vec<T>) -> Result<(), E>,
) -> Result<(), E> {
    let mut group: Vec<T> = Vec::new();
    for row in rows {
        let row = row?;
        if group.first().is_some_and(|g| key(g) != key(&row)) {
            flush(std::mem::take(&mut group))?;
        }
        group.push(row);
    }
    if !group.is_empty() {
        flush(group)?;
    }
    Ok(())
}
