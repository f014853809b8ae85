//! Pool sizing (seed 001): the best worker count by the formula `(wait/cpu + 1) × cores`,
//! and from measurements (threads, qps) of a pool-size sweep: where qps stops rising and
//! where the pool saturates. Pure numbers beside `littles_law`; no threads, no IO.

use std::time::Duration;

/// A pool size is "as good as the best" when its qps is within this fraction of the max.
const BEST_WITHIN: f64 = 0.05;

/// The seed's estimate of the best pool size: `(wait/cpu + 1) × cores`.
pub fn formula_best(cpu: Duration, io: Duration, cores: usize) -> f64 {
    if cpu.is_zero() {
        return f64::INFINITY;
    }
    (io.as_secs_f64() / cpu.as_secs_f64() + 1.0) * cores as f64
}

/// The measured best pool size: the first whose qps is within 5% of the highest, i.e.
/// where adding threads stops raising qps.
pub fn measured_best(points: &[(usize, f64)]) -> Option<usize> {
    let max = points.iter().map(|p| p.1).fold(f64::NAN, f64::max);
    points
        .iter()
        .find(|p| p.1 >= (1.0 - BEST_WITHIN) * max)
        .map(|p| p.0)
}

/// Where the pool saturates, from the measurements alone: the highest qps divided by
/// the best qps per thread (reached while threads are still the limit). Comparable to
/// the formula even when the tried pool sizes skip the knee (…, 8, 16, …).
pub fn saturation_threads(points: &[(usize, f64)]) -> Option<f64> {
    let max = points.iter().map(|p| p.1).fold(0.0, f64::max);
    let per_thread = points.iter().map(|p| p.1 / p.0 as f64).fold(0.0, f64::max);
    (max > 0.0 && per_thread > 0.0).then(|| max / per_thread)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_is_the_seeds() {
        let f = formula_best(Duration::from_millis(1), Duration::from_millis(4), 2);
        assert_eq!(f, 10.0);
        // Seed 001: (10/2 + 1) × 2 = 12.
        let f = formula_best(Duration::from_millis(2), Duration::from_millis(10), 2);
        assert_eq!(f, 12.0);
    }

    #[test]
    fn best_is_where_qps_stops_rising() {
        let pts = [
            (1, 200.0),
            (2, 400.0),
            (4, 790.0),
            (8, 1900.0),
            (16, 1990.0),
            (32, 1950.0),
        ];
        assert_eq!(measured_best(&pts), Some(8));
        assert_eq!(measured_best(&[]), None);
        // 1990 / (237.5 per thread at 8) = 8.38.
        let k = saturation_threads(&pts).unwrap();
        assert!((k - 1990.0 / 237.5).abs() < 1e-9, "{k}");
        assert_eq!(saturation_threads(&[]), None);
    }
}
