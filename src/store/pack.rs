//! Packed points: the ladder or time series of one series as one blob.
//!
//! Layout, all numbers little-endian IEEE-754 `f64`:
//!
//! ```text
//! byte 0     layout: 1 = ladder (percentile, value)
//!                    2 = ladder with line values (percentile, value, line_value)
//!                    3 = time series (t, value)
//! bytes 1..  the points, each its 2 or 3 numbers in that order
//! ```
//!
//! An absent number (`None`) is stored as the quiet NaN [`ABSENT`], which no parser
//! produces (they store non-finite printouts as `None`). Written by hand rather than with
//! a serialisation crate: the layout is fixed by the database, not by a crate's version.

use bench_db_parsers::{LadderPoint, TimePoint};
use rusqlite::Transaction;

const LADDER: u8 = 1;
const LADDER_LINES: u8 = 2;
const TIME_SERIES: u8 = 3;

/// The bit pattern of an absent number.
const ABSENT: u64 = 0x7ff8_dead_0000_0001;

fn put(out: &mut Vec<u8>, v: Option<f64>) {
    let bits = v.map_or(ABSENT, f64::to_bits);
    out.extend_from_slice(&bits.to_le_bytes());
}

fn get(chunk: &[u8]) -> Option<f64> {
    let bits = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
    (bits != ABSENT).then(|| f64::from_bits(bits))
}

/// Packs a ladder; the line values are stored only when one is present.
pub fn ladder(points: &[LadderPoint]) -> Vec<u8> {
    let lines = points.iter().any(|p| p.line_value.is_some());
    let width = if lines { 24 } else { 16 };
    let mut out = Vec::with_capacity(1 + width * points.len());
    out.push(if lines { LADDER_LINES } else { LADDER });
    for p in points {
        put(&mut out, Some(p.percentile));
        put(&mut out, p.value);
        if lines {
            put(&mut out, p.line_value);
        }
    }
    out
}

/// Packs a time series.
pub fn time_series(points: &[TimePoint]) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + 16 * points.len());
    out.push(TIME_SERIES);
    for p in points {
        put(&mut out, Some(p.t));
        put(&mut out, p.value);
    }
    out
}

/// Why a blob cannot be unpacked.
#[derive(Debug, thiserror::Error)]
#[error("packed points are corrupt ({0})")]
pub struct Corrupt(&'static str);

fn numbers(
    blob: &[u8],
    want: u8,
    width: usize,
) -> Result<std::slice::ChunksExact<'_, u8>, Corrupt> {
    if blob.first() != Some(&want) {
        return Err(Corrupt("unexpected layout byte"));
    }
    let body = &blob[1..];
    if !body.len().is_multiple_of(width) {
        return Err(Corrupt("length is not a whole number of points"));
    }
    Ok(body.chunks_exact(width))
}

/// Unpacks a ladder (empty blob or none: no points).
pub fn unpack_ladder(blob: Option<&[u8]>) -> Result<Vec<LadderPoint>, Corrupt> {
    let Some(blob) = blob.filter(|b| !b.is_empty()) else {
        return Ok(Vec::new());
    };
    let lines = blob[0] == LADDER_LINES;
    let (layout, width) = if lines {
        (LADDER_LINES, 24)
    } else {
        (LADDER, 16)
    };
    Ok(numbers(blob, layout, width)?
        .map(|c| LadderPoint {
            percentile: get(&c[0..8]).unwrap_or(f64::NAN),
            value: get(&c[8..16]),
            line_value: if lines { get(&c[16..24]) } else { None },
        })
        .collect())
}

/// Unpacks a time series (empty blob or none: no points).
pub fn unpack_time_series(blob: Option<&[u8]>) -> Result<Vec<TimePoint>, Corrupt> {
    let Some(blob) = blob.filter(|b| !b.is_empty()) else {
        return Ok(Vec::new());
    };
    Ok(numbers(blob, TIME_SERIES, 16)?
        .map(|c| TimePoint {
            t: get(&c[0..8]).unwrap_or(f64::NAN),
            value: get(&c[8..16]),
        })
        .collect())
}

/// Migration 2: moves the rows of the version-1 table `point` into `series.value` and
/// `series.points`, in their insertion order, then drops `point`.
pub(super) fn pack_v1_points(tx: &Transaction) -> rusqlite::Result<()> {
    let mut read = tx.prepare(
        "SELECT p.series_id, se.kind, p.percentile, p.t, p.value, p.line_value
         FROM point p JOIN series se ON se.id = p.series_id
         ORDER BY p.series_id, p.rowid",
    )?;
    let mut set_points = tx.prepare("UPDATE series SET points = ?2 WHERE id = ?1")?;
    let mut set_value = tx.prepare("UPDATE series SET value = ?2 WHERE id = ?1")?;
    let mut rows = read.query([])?;
    // The series being gathered: id, kind, its ladder and time points.
    let mut current: Option<(i64, String, Vec<LadderPoint>, Vec<TimePoint>)> = None;
    let mut flush = |s: (i64, String, Vec<LadderPoint>, Vec<TimePoint>)| -> rusqlite::Result<()> {
        let (id, kind, ladder_points, time_points) = s;
        match kind.as_str() {
            "timeseries" => set_points.execute(rusqlite::params![id, time_series(&time_points)])?,
            "value" => set_value.execute(rusqlite::params![
                id,
                ladder_points.first().and_then(|p| p.value)
            ])?,
            _ => set_points.execute(rusqlite::params![id, ladder(&ladder_points)])?,
        };
        Ok(())
    };
    while let Some(r) = rows.next()? {
        let id: i64 = r.get(0)?;
        if current.as_ref().is_none_or(|c| c.0 != id) {
            if let Some(done) = current.take() {
                flush(done)?;
            }
            current = Some((id, r.get(1)?, Vec::new(), Vec::new()));
        }
        let c = current.as_mut().expect("set above");
        let value: Option<f64> = r.get(4)?;
        c.2.push(LadderPoint {
            percentile: r.get::<_, Option<f64>>(2)?.unwrap_or(f64::NAN),
            value,
            line_value: r.get(5)?,
        });
        c.3.push(TimePoint {
            t: r.get::<_, Option<f64>>(3)?.unwrap_or(f64::NAN),
            value,
        });
    }
    if let Some(done) = current.take() {
        flush(done)?;
    }
    drop(rows);
    tx.execute_batch("DROP TABLE point")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ladders_round_trip_with_and_without_line_values() {
        let mut pts = vec![
            LadderPoint {
                percentile: 50.0,
                value: Some(1.5),
                line_value: None,
            },
            LadderPoint {
                percentile: 100.0,
                value: None,
                line_value: None,
            },
        ];
        let blob = ladder(&pts);
        assert_eq!(blob.len(), 1 + 2 * 16);
        assert_eq!(unpack_ladder(Some(&blob)).unwrap(), pts);
        pts[1].line_value = Some(7.25);
        let blob = ladder(&pts);
        assert_eq!(blob.len(), 1 + 2 * 24);
        assert_eq!(unpack_ladder(Some(&blob)).unwrap(), pts);
        assert!(unpack_ladder(None).unwrap().is_empty());
    }

    #[test]
    fn time_series_round_trip_and_corruption_is_an_error() {
        let pts = vec![
            TimePoint {
                t: 1.0,
                value: Some(-0.0),
            },
            TimePoint {
                t: 2.0,
                value: None,
            },
        ];
        let blob = time_series(&pts);
        let back = unpack_time_series(Some(&blob)).unwrap();
        assert_eq!(back, pts);
        assert!(back[0].value.unwrap().is_sign_negative());
        assert!(unpack_time_series(Some(&blob[..blob.len() - 1])).is_err());
        assert!(
            unpack_ladder(Some(&blob)).is_err(),
            "layout byte is checked"
        );
    }
}
