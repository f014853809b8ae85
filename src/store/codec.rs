//! Packed points: the ladder or time series of one series as one blob.
//!
//! ```text
//! byte 0     layout: 0x74 = ladder (percentile, value)
//!                    0x75 = ladder with line values (percentile, value, line_value)
//!                    0x76 = time series (t, value)
//!                    0x77 = no points: the checksum of a single-value series' row
//!                    (4, 5, 6: the same without a checksum, still read, unchecked; the
//!                     version-1 data migration writes them, knowing only the points;
//!                     1, 2, 3: the same with every number a plain f64, still read)
//! bytes 1..  the points, each its 2 or 3 numbers in that order
//! last 4     (layouts 0x74..=0x77) CRC-32 (IEEE), little-endian, of every byte before it
//!            followed by the series row's other columns (see `rows::series_row`)
//! ```
//!
//! A number is one tag byte and its payload. Tag `0x00`: absent (`None`). Tag `0x1E`
//! (e = 0..=9): a decimal `m / 10^e`, `m` a zigzag LEB128 varint, used only when that
//! division gives back exactly the same bits (so 12.3, 99.99 and 50 take 2–3 bytes, as
//! printed numbers do). Tag `0x20`: any other number, 8 bytes of little-endian IEEE-754.
//! Written by hand rather than with a serialisation crate: the layout is fixed by the
//! database, not by a crate's version, and the decimal form keeps the database smaller
//! than the logs it came from.
//!
//! The checksum makes a damaged blob an error instead of other numbers: CRC-32 detects
//! every single-bit flip and every burst of up to 32 bits. It also covers the columns of
//! the series row beside the blob (kind, names, unit, count, printed statistics, single
//! value), which SQLite stores as plain values, so a flipped bit there is caught too. Not
//! the run it belongs to: run ids are the store's bookkeeping and may be renumbered.
//!
//! The checked layouts are the unchecked ones with bits 4–6 set, so that no single flipped
//! bit of the layout byte turns a checked blob into an unchecked layout (which would be
//! read without a check).

use bench_db_parsers::{LadderPoint, TimePoint};

const LADDER: u8 = 4;
const LADDER_LINES: u8 = 5;
const TIME_SERIES: u8 = 6;
/// A checksum only, of a single-value series' row.
const VALUE: u8 = 7;
/// Set on a layout byte: the blob ends with a CRC-32 of everything before it.
const CHECKED: u8 = 0x70;
const CHECKSUM_LEN: usize = 4;
/// Layouts with every number as 8 raw bytes (`None` = [`FIXED_ABSENT`]).
const FIXED_LADDER: u8 = 1;
const FIXED_LADDER_LINES: u8 = 2;
const FIXED_TIME_SERIES: u8 = 3;
const FIXED_ABSENT: u64 = 0x7ff8_dead_0000_0001;

const TAG_ABSENT: u8 = 0x00;
const TAG_DECIMAL: u8 = 0x10;
const TAG_RAW: u8 = 0x20;
const POW10: [f64; 10] = [1.0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];
/// Mantissas stay below 2^53, where every integer is an exact f64.
const EXACT: f64 = 9_007_199_254_740_992.0;

/// `(m, e)` with `m / 10^e` bit-identical to `x`, fewest decimals first.
fn decimal(x: f64) -> Option<(i64, u8)> {
    if !x.is_finite() {
        return None;
    }
    for (e, p) in POW10.iter().enumerate() {
        let y = x * p;
        // `y.round()` (half away from zero) as an integer, without a call into libm
        // (`round` is one on x86-64's baseline): below 2^53 the truncation and the
        // fraction it leaves are exact, and from 2^52 on every f64 is an integer.
        if y.abs() >= EXACT {
            return None;
        }
        let t = y as i64;
        let frac = y - t as f64;
        // Checked as it will be decoded: from the integer (so -0.0 stays raw).
        let m = if frac >= 0.5 {
            t + 1
        } else if frac <= -0.5 {
            t - 1
        } else {
            t
        };
        if (m as f64 / p).to_bits() == x.to_bits() {
            return Some((m, e as u8));
        }
    }
    None
}

fn put(out: &mut Vec<u8>, v: Option<f64>) {
    match v {
        None => out.push(TAG_ABSENT),
        Some(x) => match decimal(x) {
            Some((m, e)) => {
                out.push(TAG_DECIMAL | e);
                let mut z = ((m << 1) ^ (m >> 63)) as u64;
                while z >= 0x80 {
                    out.push((z as u8) | 0x80);
                    z >>= 7;
                }
                out.push(z as u8);
            }
            None => {
                out.push(TAG_RAW);
                out.extend_from_slice(&x.to_bits().to_le_bytes());
            }
        },
    }
}

/// Reads numbers from a blob body.
struct Numbers<'a> {
    body: &'a [u8],
    fixed: bool,
}

impl Numbers<'_> {
    fn next(&mut self) -> Result<Option<f64>, Corrupt> {
        if self.fixed {
            let (head, rest) = self
                .body
                .split_first_chunk::<8>()
                .ok_or(Corrupt("cut inside a number"))?;
            self.body = rest;
            let bits = u64::from_le_bytes(*head);
            return Ok((bits != FIXED_ABSENT).then(|| f64::from_bits(bits)));
        }
        let (&tag, rest) = self
            .body
            .split_first()
            .ok_or(Corrupt("cut inside a number"))?;
        self.body = rest;
        match tag & 0xf0 {
            TAG_ABSENT if tag == TAG_ABSENT => Ok(None),
            TAG_DECIMAL if usize::from(tag & 0x0f) < POW10.len() => {
                let mut z: u64 = 0;
                let mut shift = 0;
                loop {
                    let (&b, rest) = self
                        .body
                        .split_first()
                        .ok_or(Corrupt("cut inside a number"))?;
                    self.body = rest;
                    if shift > 63 {
                        return Err(Corrupt("varint too long"));
                    }
                    z |= u64::from(b & 0x7f) << shift;
                    shift += 7;
                    if b < 0x80 {
                        break;
                    }
                }
                let m = ((z >> 1) as i64) ^ -((z & 1) as i64);
                Ok(Some(m as f64 / POW10[usize::from(tag & 0x0f)]))
            }
            TAG_RAW if tag == TAG_RAW => {
                let (head, rest) = self
                    .body
                    .split_first_chunk::<8>()
                    .ok_or(Corrupt("cut inside a number"))?;
                self.body = rest;
                Ok(Some(f64::from_bits(u64::from_le_bytes(*head))))
            }
            _ => Err(Corrupt("unknown number tag")),
        }
    }

    fn done(&self) -> bool {
        self.body.is_empty()
    }
}

/// Packs a ladder; the line values are stored only when one is present. With `row` (the
/// series row's other columns) the blob carries the checksum of both; without, it is the
/// unchecked layout.
pub fn ladder(points: &[LadderPoint], row: Option<&[u8]>) -> Vec<u8> {
    let lines = points.iter().any(|p| p.line_value.is_some());
    let mut out = Vec::with_capacity(1 + 9 * points.len() + CHECKSUM_LEN);
    out.push(if lines { LADDER_LINES } else { LADDER });
    for p in points {
        put(&mut out, Some(p.percentile));
        put(&mut out, p.value);
        if lines {
            put(&mut out, p.line_value);
        }
    }
    seal(out, row)
}

/// Packs a time series (`row` as for [`ladder`]).
pub fn time_series(points: &[TimePoint], row: Option<&[u8]>) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + 8 * points.len() + CHECKSUM_LEN);
    out.push(TIME_SERIES);
    for p in points {
        put(&mut out, Some(p.t));
        put(&mut out, p.value);
    }
    seal(out, row)
}

/// The blob of a single-value series: no points, the checksum of its row.
pub fn value(row: &[u8]) -> Vec<u8> {
    seal(vec![VALUE], Some(row))
}

/// With `row`: marks the layout checked and appends the checksum of the blob and `row`.
fn seal(mut out: Vec<u8>, row: Option<&[u8]>) -> Vec<u8> {
    let Some(row) = row else {
        return out;
    };
    out[0] |= CHECKED;
    let crc = checksum(&out, row);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

fn checksum(blob: &[u8], row: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(blob);
    h.update(row);
    h.finalize()
}

/// Verifies a blob's checksum against its series row without unpacking its points
/// (an unchecked layout, an empty blob or none: nothing to verify).
pub fn verify(blob: Option<&[u8]>, row: &[u8]) -> Result<(), Corrupt> {
    open(blob, row).map(|_| ())
}

/// Verifies the blob of a single-value series: absent (stored before checksums) or the
/// checksum of its row.
pub fn verify_value(blob: Option<&[u8]>, row: &[u8]) -> Result<(), Corrupt> {
    match open(blob, row)? {
        None | Some((VALUE, [])) => Ok(()),
        Some(_) => Err(Corrupt("not a single value's checksum")),
    }
}

/// The layout byte and the body of a blob, its checksum verified when the layout has one
/// (`None` for an empty blob or none).
fn open<'b>(blob: Option<&'b [u8]>, row: &[u8]) -> Result<Option<(u8, &'b [u8])>, Corrupt> {
    let Some(&layout) = blob.and_then(|b| b.first()) else {
        return Ok(None);
    };
    let blob = blob.expect("has a first byte");
    if layout & CHECKED != CHECKED {
        return Ok(Some((layout, &blob[1..])));
    }
    let Some((data, sum)) = blob.split_last_chunk::<CHECKSUM_LEN>() else {
        return Err(Corrupt("cut inside the checksum"));
    };
    if checksum(data, row) != u32::from_le_bytes(*sum) {
        return Err(Corrupt("checksum mismatch"));
    }
    Ok(Some((layout & !CHECKED, &data[1..])))
}

/// Why a blob cannot be unpacked.
#[derive(Debug, thiserror::Error)]
#[error("stored values are corrupt ({0})")]
pub struct Corrupt(&'static str);

/// Unpacks a ladder (empty blob or none: no points), its checksum verified against `row`.
pub fn unpack_ladder(blob: Option<&[u8]>, row: &[u8]) -> Result<Vec<LadderPoint>, Corrupt> {
    let Some((layout, body)) = open(blob, row)? else {
        return Ok(Vec::new());
    };
    let (lines, fixed) = match layout {
        LADDER => (false, false),
        LADDER_LINES => (true, false),
        FIXED_LADDER => (false, true),
        FIXED_LADDER_LINES => (true, true),
        _ => return Err(Corrupt("not a ladder")),
    };
    let mut n = Numbers { body, fixed };
    let mut out = Vec::new();
    while !n.done() {
        out.push(LadderPoint {
            percentile: n.next()?.unwrap_or(f64::NAN),
            value: n.next()?,
            line_value: if lines { n.next()? } else { None },
        });
    }
    Ok(out)
}

/// Unpacks a time series (empty blob or none: no points), its checksum verified
/// against `row`.
pub fn unpack_time_series(blob: Option<&[u8]>, row: &[u8]) -> Result<Vec<TimePoint>, Corrupt> {
    let Some((layout, body)) = open(blob, row)? else {
        return Ok(Vec::new());
    };
    let fixed = match layout {
        TIME_SERIES => false,
        FIXED_TIME_SERIES => true,
        _ => return Err(Corrupt("not a time series")),
    };
    let mut n = Numbers { body, fixed };
    let mut out = Vec::new();
    while !n.done() {
        out.push(TimePoint {
            t: n.next()?.unwrap_or(f64::NAN),
            value: n.next()?,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A series row's other columns, as the checksum covers them.
    const ROW: &[u8] = b"ladder|latency|us";

    #[test]
    fn ladders_round_trip_with_and_without_line_values() {
        let mut pts = vec![
            LadderPoint {
                percentile: 50.0,
                value: Some(1.5),
                line_value: None,
            },
            LadderPoint {
                percentile: 99.99,
                value: Some(12_345.678),
                line_value: None,
            },
            LadderPoint {
                percentile: 100.0,
                value: None,
                line_value: None,
            },
        ];
        let blob = ladder(&pts, Some(ROW));
        // 50 (2 bytes) 1.5 (2) 99.99 (4) 12345.678 (5) 100 (3) absent (1), checksum (4)
        assert_eq!(blob.len(), 1 + 2 + 2 + 4 + 5 + 3 + 1 + 4);
        assert_eq!(unpack_ladder(Some(&blob), ROW).unwrap(), pts);
        pts[2].line_value = Some(7.25);
        let blob = ladder(&pts, Some(ROW));
        assert_eq!(blob[0], CHECKED | LADDER_LINES);
        assert_eq!(unpack_ladder(Some(&blob), ROW).unwrap(), pts);
        assert!(unpack_ladder(None, ROW).unwrap().is_empty());
    }

    #[test]
    fn every_number_comes_back_bit_identical() {
        let odd = [
            0.1 + 0.2,
            -0.0,
            f64::MIN_POSITIVE,
            1e300,
            -123_456_789.123,
            std::f64::consts::PI,
            9_007_199_254_740_993.0,
            f64::NAN,
            f64::INFINITY,
            -2.5e-7,
        ];
        let pts: Vec<TimePoint> = odd
            .iter()
            .map(|&v| TimePoint {
                t: 1.0,
                value: Some(v),
            })
            .collect();
        let back = unpack_time_series(Some(&time_series(&pts, Some(ROW))), ROW).unwrap();
        for (a, b) in pts.iter().zip(&back) {
            assert_eq!(a.value.unwrap().to_bits(), b.value.unwrap().to_bits());
        }
    }

    #[test]
    fn time_series_round_trip_and_corruption_is_an_error() {
        let pts = vec![
            TimePoint {
                t: 1_700_000_000.0,
                value: Some(3.0),
            },
            TimePoint {
                t: 2.0,
                value: None,
            },
        ];
        let blob = time_series(&pts, Some(ROW));
        assert_eq!(unpack_time_series(Some(&blob), ROW).unwrap(), pts);
        assert!(unpack_time_series(Some(&blob[..blob.len() - 2]), ROW).is_err());
        assert!(
            unpack_ladder(Some(&blob), ROW).is_err(),
            "layout byte is checked"
        );
        assert!(unpack_time_series(Some(&[TIME_SERIES, 0x7f]), ROW).is_err());
        assert!(unpack_time_series(Some(&[CHECKED | TIME_SERIES, 1, 2]), ROW).is_err());
    }

    #[test]
    fn unchecked_blobs_of_earlier_versions_are_still_read() {
        // Layout 4 as bench-db wrote it before blobs had a checksum: 50 → 1.5.
        let blob = [LADDER, 0x10, 100, 0x11, 30];
        let back = unpack_ladder(Some(&blob), ROW).unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!((back[0].percentile, back[0].value), (50.0, Some(1.5)));
    }

    #[test]
    fn a_changed_byte_is_a_checksum_error() {
        let pts = [LadderPoint {
            percentile: 99.0,
            value: Some(1234.5),
            line_value: None,
        }];
        let mut blob = ladder(&pts, Some(ROW));
        // The value's last varint byte: still a well-formed number, another one.
        let at = blob.len() - CHECKSUM_LEN - 1;
        blob[at] ^= 0x01;
        let err = unpack_ladder(Some(&blob), ROW).unwrap_err();
        assert!(err.to_string().contains("checksum"), "{err}");
    }

    #[test]
    fn the_checksum_covers_the_series_row_and_a_single_value() {
        let pts = [LadderPoint {
            percentile: 50.0,
            value: Some(2.0),
            line_value: None,
        }];
        let blob = ladder(&pts, Some(ROW));
        let err = unpack_ladder(Some(&blob), b"ladder|latency|ms").unwrap_err();
        assert!(err.to_string().contains("checksum"), "{err}");
        verify(Some(&blob), ROW).unwrap();
        assert!(verify(Some(&blob), b"other").is_err());
        // Without a row: the unchecked layout, as the version-1 migration writes it.
        let plain = ladder(&pts, None);
        assert_eq!(plain[0], LADDER);
        assert_eq!(unpack_ladder(Some(&plain), b"anything").unwrap(), pts);
        let v = value(b"value|x|1.5");
        assert_eq!(v.len(), 1 + CHECKSUM_LEN);
        verify_value(Some(&v), b"value|x|1.5").unwrap();
        verify_value(None, b"value|x|1.5").unwrap();
        assert!(verify_value(Some(&v), b"value|x|1.6").is_err());
        assert!(
            verify_value(Some(&blob), ROW).is_err(),
            "a ladder is no value"
        );
    }

    /// [`decimal`] as it was written with `f64::round`: the fast rounding must pick the
    /// same `(m, e)` for every number, or stored blobs would change.
    fn decimal_by_round(x: f64) -> Option<(i64, u8)> {
        if !x.is_finite() {
            return None;
        }
        for (e, p) in POW10.iter().enumerate() {
            let m = (x * p).round();
            if m.abs() >= EXACT {
                return None;
            }
            let m = m as i64;
            if (m as f64 / p).to_bits() == x.to_bits() {
                return Some((m, e as u8));
            }
        }
        None
    }

    #[test]
    fn decimal_picks_what_rounding_picks_at_the_edges() {
        let edges = [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            -2.5,
            0.49999999999999994,
            -0.49999999999999994,
            4_503_599_627_370_495.5,
            4_503_599_627_370_496.0,
            9_007_199_254_740_991.0,
            9_007_199_254_740_992.0,
            -9_007_199_254_740_991.0,
            900_719_925.474_099_1,
            99.999_999_999,
            14.51,
            0.731,
            1e-10,
            f64::MAX,
            f64::MIN_POSITIVE,
        ];
        for x in edges {
            assert_eq!(decimal(x), decimal_by_round(x), "{x:e}");
        }
    }

    proptest::proptest! {
        /// Every number packs as the rounding with `f64::round` packed it.
        #[test]
        fn decimal_matches_round(
            bits in proptest::num::u64::ANY,
            printed in -1_000_000_000i64..1_000_000_000,
            e in 0usize..10,
        ) {
            let x = f64::from_bits(bits);
            proptest::prop_assert_eq!(decimal(x), decimal_by_round(x));
            let x = printed as f64 / POW10[e];
            proptest::prop_assert_eq!(decimal(x), decimal_by_round(x));
            let x = x + 0.5 / POW10[e];
            proptest::prop_assert_eq!(decimal(x), decimal_by_round(x));
        }

        /// Whatever single bit of a blob flips, decoding fails; it never gives other numbers.
        #[test]
        fn one_flipped_bit_never_reads_as_other_numbers(
            values in proptest::collection::vec(
                (
                    0.0f64..100.0,
                    proptest::option::of(-1e12f64..1e12),
                    proptest::option::of(0.0f64..1e6),
                ),
                0..40,
            ),
            time in proptest::bool::ANY,
            bit in 0usize..usize::MAX,
        ) {
            let (blob, before) = if time {
                let pts: Vec<TimePoint> =
                    values.iter().map(|&(t, value, _)| TimePoint { t, value }).collect();
                (time_series(&pts, Some(ROW)), format!("{pts:?}"))
            } else {
                let pts: Vec<LadderPoint> = values
                    .iter()
                    .map(|&(percentile, value, line_value)| LadderPoint {
                        percentile,
                        value,
                        line_value,
                    })
                    .collect();
                (ladder(&pts, Some(ROW)), format!("{pts:?}"))
            };
            let mut bad = blob.clone();
            let bit = bit % (bad.len() * 8);
            bad[bit / 8] ^= 1 << (bit % 8);
            let after = if time {
                unpack_time_series(Some(&bad), ROW).map(|p| format!("{p:?}"))
            } else {
                unpack_ladder(Some(&bad), ROW).map(|p| format!("{p:?}"))
            };
            // CRC-32 detects every single-bit error, so the read must fail outright.
            proptest::prop_assert!(
                after.is_err(),
                "bit {} of {:?}: {:?} read as {:?}",
                bit,
                blob,
                before,
                after
            );
        }
    }

    #[test]
    fn fixed_width_blobs_are_still_read() {
        let mut blob = vec![FIXED_LADDER];
        for v in [50.0f64, 1.25] {
            blob.extend_from_slice(&v.to_bits().to_le_bytes());
        }
        blob.extend_from_slice(&100.0f64.to_bits().to_le_bytes());
        blob.extend_from_slice(&FIXED_ABSENT.to_le_bytes());
        let back = unpack_ladder(Some(&blob), ROW).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(back[0].value, Some(1.25));
        assert_eq!(back[1].value, None);
    }
}
