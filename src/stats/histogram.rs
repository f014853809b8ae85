//! Merging serialized HDR histograms (V2 / V2-compressed encodings) and reading
//! percentiles from the merge: the right way to pool runs, instead of averaging percentiles.

use hdrhistogram::Histogram;
use hdrhistogram::serialization::Deserializer;

/// Decodes and adds every encoded histogram; undecodable ones are skipped. `None` when
/// nothing decodes.
pub fn merge<'a>(encoded: impl IntoIterator<Item = &'a Vec<u8>>) -> Option<Histogram<u64>> {
    let mut de = Deserializer::new();
    let mut out: Option<Histogram<u64>> = None;
    for bytes in encoded {
        let Ok(mut h) = de.deserialize::<u64, _>(&mut bytes.as_slice()) else {
            continue;
        };
        // Decoded histograms are sized to their own range; let the merge grow.
        h.auto(true);
        match out.as_mut() {
            None => out = Some(h),
            Some(acc) => {
                // With auto-resize on, `add` cannot run out of range; a failure would
                // only drop that one histogram.
                let _ = acc.add(&h);
            }
        }
    }
    out.filter(|h| !h.is_empty())
}

/// The value at `percentile` (0–100) of a histogram, HdrHistogram's definition (the
/// highest value equivalent to the first recorded value at or above that rank).
pub fn value_at(h: &Histogram<u64>, percentile: f64) -> f64 {
    h.value_at_percentile(percentile.clamp(0.0, 100.0)) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdrhistogram::serialization::{Serializer, V2Serializer};

    fn encode(values: &[u64]) -> Vec<u8> {
        let mut h = Histogram::<u64>::new(3).unwrap();
        for &v in values {
            h.record(v).unwrap();
        }
        let mut buf = Vec::new();
        V2Serializer::new().serialize(&h, &mut buf).unwrap();
        buf
    }

    #[test]
    fn merging_pools_the_samples() {
        let a = encode(&[10, 20, 30, 40]);
        let b = encode(&[1000, 2000, 3000, 4000]);
        let m = merge([&a, &b]).unwrap();
        assert_eq!(m.len(), 8);
        assert_eq!(value_at(&m, 50.0), 40.0);
        assert!((4000..=4004).contains(&m.max()), "{}", m.max());
        assert!(merge([&vec![1u8, 2, 3]]).is_none());
    }
}
