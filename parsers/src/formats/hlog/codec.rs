//! The serialized histograms of `.hlog` lines: base64 text → [`Histogram`] plus its V2
//! DEFLATE encoding (what the model stores).
//!
//! V2 encodings go through `hdrhistogram`'s own deserializer. The crate reads only V2, but
//! logs from 2015 (format 1.01 and 1.1, `HISTiQ…`/`HISTgg…`) carry the older V0 and V1
//! encodings, so those two are decoded here, following the Java reader
//! (`AbstractHistogram.decodeFromByteBuffer`): a fixed header, then one big-endian word per
//! counts-array slot, in the same slot layout as today's histograms.
//!
//! Every encoding writes its counts in logical order (the Java encoder reads them through
//! `getCountAtIndex`), so a header's normalizing index offset (left by shifting a
//! `DoubleHistogram`'s inner histogram) and its integer-to-double conversion ratio (which
//! only a `DoubleHistogram` reads) do not change which value holds which count: they are
//! read past, as HdrHistogram_py does, and such a histogram is re-encoded with both at
//! their neutral values (HdrHistogramJS 1.x writes offset 1 and ratio bits `0x1`).

use base64::Engine;
use base64::engine::general_purpose::STANDARD_PAD_INDIFFERENT;
use flate2::read::ZlibDecoder;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};
use std::io::Read;

// Cookie bases (the cookie with its word-size nibble, bits 4–7, cleared).
const V0: u32 = 0x1c84_9308;
const V0_DEFLATE: u32 = 0x1c84_9309;
const V1: u32 = 0x1c84_9301;
const V1_DEFLATE: u32 = 0x1c84_9302;
const V2: u32 = 0x1c84_9303;
const V2_DEFLATE: u32 = 0x1c84_9304;
/// Where the V1/V2 header keeps its normalizing index offset (u32) and its
/// integer-to-double conversion ratio (f64).
const OFFSET_AT: usize = 8;
const RATIO_AT: usize = 32;
/// Header sizes of the plain encodings.
const V0_HEADER: usize = 32;
const V1_V2_HEADER: usize = 40;
/// Real interval histograms inflate to a few KiB; the cap keeps junk from using memory.
const MAX_INFLATED: u64 = 16 << 20;

/// One decoded histogram.
#[derive(Debug, Clone)]
pub struct Decoded {
    pub histogram: Histogram<u64>,
    /// V2 DEFLATE bytes: the input's own when it already was V2 DEFLATE, else re-encoded.
    pub encoded: Vec<u8>,
}

fn be32(b: &[u8], at: usize) -> Result<u32, String> {
    b.get(at..at + 4)
        .map(|s| u32::from_be_bytes(s.try_into().expect("4 bytes")))
        .ok_or_else(|| "histogram data is cut short".to_string())
}

fn be64(b: &[u8], at: usize) -> Result<u64, String> {
    b.get(at..at + 8)
        .map(|s| u64::from_be_bytes(s.try_into().expect("8 bytes")))
        .ok_or_else(|| "histogram data is cut short".to_string())
}

fn base(cookie: u32) -> u32 {
    cookie & !0xf0
}

/// Decodes a base64 histogram as written in `.hlog` interval lines.
pub fn decode_base64(text: &str) -> Result<Decoded, String> {
    let bytes = STANDARD_PAD_INDIFFERENT
        .decode(text)
        .map_err(|e| format!("the histogram is not valid base64 ({e})"))?;
    decode(&bytes)
}

/// Decodes a serialized histogram (V0, V1 or V2; plain or DEFLATE-compressed).
pub fn decode(bytes: &[u8]) -> Result<Decoded, String> {
    let cookie = be32(bytes, 0)?;
    let (histogram, original) = match base(cookie) {
        b @ (V0_DEFLATE | V1_DEFLATE | V2_DEFLATE) => {
            let len = be32(bytes, 4)? as usize;
            let end = len
                .checked_add(8)
                .filter(|&e| e <= bytes.len())
                .ok_or("the compressed histogram is shorter than its stated length")?;
            let inner = inflate(&bytes[8..end])?;
            let expected = match b {
                V0_DEFLATE => V0,
                V1_DEFLATE => V1,
                _ => V2,
            };
            if base(be32(&inner, 0)?) != expected {
                return Err("the compressed histogram holds an unexpected encoding".into());
            }
            let (h, neutral) = decode_plain(&inner)?;
            (
                h,
                (b == V2_DEFLATE && neutral).then(|| bytes[..end].to_vec()),
            )
        }
        V0 | V1 | V2 => (decode_plain(bytes)?.0, None),
        _ => {
            return Err(format!(
                "not a serialized HdrHistogram (cookie {cookie:#010x})"
            ));
        }
    };
    let encoded = match original {
        Some(b) => b,
        None => encode(&histogram)?,
    };
    Ok(Decoded { histogram, encoded })
}

/// The V2 DEFLATE encoding of `h`.
pub fn encode(h: &Histogram<u64>) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    V2DeflateSerializer::new()
        .serialize(h, &mut out)
        .map_err(|e| format!("cannot re-encode the histogram: {e:?}"))?;
    Ok(out)
}

fn inflate(body: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    ZlibDecoder::new(body)
        .take(MAX_INFLATED + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("the compressed histogram does not inflate ({e})"))?;
    if out.len() as u64 > MAX_INFLATED {
        return Err("the compressed histogram inflates to more than 16 MiB".into());
    }
    Ok(out)
}

/// Whether a V1/V2 header has the neutral normalizing index offset (0) and conversion
/// ratio (1.0) that `hdrhistogram`'s deserializer and encoder know.
fn neutral_header(b: &[u8]) -> Result<bool, String> {
    Ok(be32(b, OFFSET_AT)? == 0 && f64::from_bits(be64(b, RATIO_AT)?) == 1.0)
}

/// A plain histogram, and whether its header was already neutral (else its bytes
/// are not what the crate writes, and the caller re-encodes).
fn decode_plain(b: &[u8]) -> Result<(Histogram<u64>, bool), String> {
    match base(be32(b, 0)?) {
        V2 => {
            // The deserializer allocates the stated payload length up front: check it first.
            let payload = be32(b, 4)? as usize;
            if b.len() < V1_V2_HEADER || payload > b.len() - V1_V2_HEADER {
                return Err("the histogram payload is shorter than its header says".into());
            }
            let neutral = neutral_header(b)?;
            let mut patched;
            let mut input = b;
            if !neutral {
                patched = b.to_vec();
                patched[OFFSET_AT..OFFSET_AT + 4].copy_from_slice(&0u32.to_be_bytes());
                patched[RATIO_AT..RATIO_AT + 8].copy_from_slice(&1f64.to_be_bytes());
                input = &patched;
            }
            let h = Deserializer::new()
                .deserialize(&mut input)
                .map_err(|e| format!("the histogram does not decode ({e})"))?;
            Ok((h, neutral))
        }
        V1 => Ok((legacy(b, false)?, false)),
        V0 => Ok((legacy(b, true)?, false)),
        _ => Err("not a serialized HdrHistogram".into()),
    }
}

/// Decodes the V0 and V1 encodings.
fn legacy(b: &[u8], v0: bool) -> Result<Histogram<u64>, String> {
    let cookie = be32(b, 0)?;
    let word = (((cookie & 0xf0) >> 4) & 0xe) as usize;
    if !matches!(word, 2 | 4 | 8) {
        return Err(format!("unsupported histogram word size {word}"));
    }
    let (digits, low, high, payload) = if v0 {
        let payload = b.get(V0_HEADER..).ok_or("histogram data is cut short")?;
        (be32(b, 4)?, be64(b, 8)?, be64(b, 16)?, payload)
    } else {
        // The normalizing index offset and conversion ratio are read past (module doc).
        let len = be32(b, 4)? as usize;
        let payload = b
            .get(V1_V2_HEADER..)
            .and_then(|p| p.get(..len))
            .ok_or("the histogram payload is shorter than its header says")?;
        (be32(b, 12)?, be64(b, 16)?, be64(b, 24)?, payload)
    };
    let digits =
        u8::try_from(digits).map_err(|_| format!("invalid significant digits {digits}"))?;
    let mut h = Histogram::<u64>::new_with_bounds(low, high, digits)
        .map_err(|e| format!("invalid histogram parameters ({e:?})"))?;
    let layout = SlotLayout::new(low, digits);
    for (index, w) in payload.chunks_exact(word).enumerate() {
        let count = match word {
            2 => i64::from(i16::from_be_bytes([w[0], w[1]])),
            4 => i64::from(i32::from_be_bytes([w[0], w[1], w[2], w[3]])),
            _ => i64::from_be_bytes(w.try_into().expect("8 bytes")),
        };
        if count == 0 {
            continue;
        }
        let count = u64::try_from(count).map_err(|_| format!("negative count {count}"))?;
        let value = layout
            .value_at(index)
            .filter(|_| index < h.distinct_values())
            .ok_or("the histogram holds more counts than its value range")?;
        h.record_n(value, count)
            .map_err(|_| "a count lies outside the histogram's value range".to_string())?;
    }
    Ok(h)
}

/// Maps a counts-array slot to its value, as HdrHistogram lays slots out: bucket 0 has
/// the full sub-bucket count, every later bucket the upper half, each doubling the unit.
struct SlotLayout {
    unit_magnitude: u32,
    sub_bucket_count_magnitude: u32,
}

impl SlotLayout {
    fn new(low: u64, digits: u8) -> Self {
        let largest_single_unit = 2.0 * 10f64.powi(i32::from(digits));
        SlotLayout {
            unit_magnitude: (low as f64).log2().floor() as u32,
            sub_bucket_count_magnitude: largest_single_unit.log2().ceil() as u32,
        }
    }

    fn value_at(&self, index: usize) -> Option<u64> {
        let half_magnitude = self.sub_bucket_count_magnitude - 1;
        let half_count = 1usize << half_magnitude;
        let mut bucket = (index >> half_magnitude) as i64 - 1;
        let mut sub = (index & (half_count - 1)) + half_count;
        if bucket < 0 {
            sub -= half_count;
            bucket = 0;
        }
        let shift = u32::try_from(bucket).ok()? + self.unit_magnitude;
        if shift + self.sub_bucket_count_magnitude > 63 {
            return None;
        }
        Some((sub as u64) << shift)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v2_round_trip_keeps_the_bytes() {
        let mut h = Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
        for v in [1, 5, 1000, 123_456, 2_000_000] {
            h.record_n(v, v % 7 + 1).unwrap();
        }
        let bytes = encode(&h).unwrap();
        let d = decode(&bytes).unwrap();
        assert_eq!(d.histogram, h);
        assert_eq!(d.encoded, bytes);
    }

    #[test]
    fn slot_layout_matches_the_crate() {
        // Recording each slot's value must land in that same slot: every slot counts once.
        let mut h = Histogram::<u64>::new_with_bounds(1000, 10_000_000_000, 2).unwrap();
        let layout = SlotLayout::new(1000, 2);
        for i in 0..h.distinct_values() {
            h.record(layout.value_at(i).unwrap()).unwrap();
        }
        assert!(h.iter_all().all(|v| v.count_since_last_iteration() == 1));
    }

    #[test]
    fn a_normalizing_offset_and_odd_ratio_are_read_past() {
        let mut h = Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
        for v in [3, 700, 90_000] {
            h.record_n(v, 2).unwrap();
        }
        let mut plain = Vec::new();
        hdrhistogram::serialization::V2Serializer::new()
            .serialize(&h, &mut plain)
            .unwrap();
        // As HdrHistogramJS 1.x writes them: offset 1, ratio bits 0x1.
        plain[OFFSET_AT..OFFSET_AT + 4].copy_from_slice(&1u32.to_be_bytes());
        plain[RATIO_AT..RATIO_AT + 8].copy_from_slice(&1u64.to_be_bytes());
        let d = decode(&plain).unwrap();
        assert_eq!(d.histogram, h);
        assert_eq!(decode(&d.encoded).unwrap().histogram, h);
        // The real interval of HdrHistogramJS's `bug-whitespace.hlog` (empty, DEFLATE).
        let js = decode_base64("HISTFAAAABx4nJNpmSzMwMDACMXMDBDAyCD/HwzgfAB/wwdn").unwrap();
        assert_eq!(js.histogram.len(), 0);
        assert_eq!(js.histogram.high(), (1 << 53) - 1);
        assert_eq!(decode(&js.encoded).unwrap().histogram.len(), 0);
    }

    #[test]
    fn junk_is_an_error() {
        assert!(decode_base64("!!!").is_err());
        assert!(decode(&[0x1c, 0x84]).is_err());
        assert!(decode(&[0x1c, 0x84, 0x93, 0x14, 0xff, 0xff, 0xff, 0xff, 1, 2]).is_err());
        // A V2 header that claims a 4 GiB payload.
        let mut b = vec![0x1c, 0x84, 0x93, 0x13, 0xff, 0xff, 0xff, 0xff];
        b.extend([0; 40]);
        assert!(decode(&b).is_err());
    }
}
