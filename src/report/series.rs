//! Shaping data for drawing: bounded min/max decimation of long lines and
//! per-percentile statistics across runs. Pure functions over numbers.

use std::collections::BTreeMap;

/// Lines longer than this are decimated before drawing.
pub const MAX_POINTS: usize = 800;

/// Keeps at most about `max` points of an x-sorted line: each bucket contributes its
/// lowest and highest point in x order, so spikes survive (plain striding would drop
/// them) while the SVG stays bounded.
pub fn decimate(points: &[(f64, f64)], max: usize) -> Vec<(f64, f64)> {
    if points.len() <= max || max < 4 {
        return points.to_vec();
    }
    let buckets = max / 2;
    let size = points.len().div_ceil(buckets);
    let mut out = Vec::with_capacity(buckets * 2);
    for chunk in points.chunks(size) {
        let lo = chunk
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.1.total_cmp(&b.1.1));
        let hi = chunk
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.1.total_cmp(&b.1.1));
        if let (Some((il, l)), Some((ih, h))) = (lo, hi) {
            match il.cmp(&ih) {
                std::cmp::Ordering::Less => out.extend([*l, *h]),
                std::cmp::Ordering::Greater => out.extend([*h, *l]),
                std::cmp::Ordering::Equal => out.push(*l),
            }
        }
    }
    out
}

/// The `q`-quantile (0–1) of sorted values, linear interpolation between closest ranks
/// (Hyndman & Fan 1996, definition 7, as numpy's default).
pub fn quantile_sorted(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let h = (sorted.len() - 1) as f64 * q.clamp(0.0, 1.0);
    let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
    Some(sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo]))
}

/// For each percentile (ascending), the values every run has there, sorted.
/// Percentiles are keyed by their value in millionths to group equal printings.
pub fn by_percentile<'a>(runs: impl IntoIterator<Item = &'a [(f64, f64)]>) -> Vec<(f64, Vec<f64>)> {
    let mut map: BTreeMap<i64, (f64, Vec<f64>)> = BTreeMap::new();
    for run in runs {
        for &(p, v) in run {
            if p.is_finite() && v.is_finite() {
                let e = map
                    .entry((p * 1e6).round() as i64)
                    .or_insert((p, Vec::new()));
                e.1.push(v);
            }
        }
    }
    map.into_values()
        .map(|(p, mut v)| {
            v.sort_by(f64::total_cmp);
            (p, v)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimation_keeps_spikes_and_bounds_size() {
        let mut pts: Vec<(f64, f64)> = (0..10_000).map(|i| (i as f64, 1.0)).collect();
        pts[5_000].1 = 99.0;
        let d = decimate(&pts, 100);
        assert!(d.len() <= 100, "{}", d.len());
        assert!(d.iter().any(|p| p.1 == 99.0));
        assert!(d.windows(2).all(|w| w[0].0 <= w[1].0));
    }

    #[test]
    fn quantiles_interpolate() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile_sorted(&v, 0.5), Some(2.5));
        assert_eq!(quantile_sorted(&v, 1.0), Some(4.0));
        assert_eq!(quantile_sorted(&[], 0.5), None);
    }

    #[test]
    fn groups_by_percentile() {
        let a = [(50.0, 2.0), (99.0, 9.0)];
        let b = [(50.0, 1.0)];
        let g = by_percentile([&a[..], &b[..]]);
        assert_eq!(g, vec![(50.0, vec![1.0, 2.0]), (99.0, vec![9.0])]);
    }
}
