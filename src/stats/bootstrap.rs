//! Seeded bootstrap confidence intervals for the relative change between two samples.
//! Deterministic: the same inputs and seed give the same interval on every platform.

use super::describe::{mean, median};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// The estimator whose relative change is bootstrapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Estimator {
    Mean,
    Median,
}

impl Estimator {
    /// Applies the estimator.
    pub fn apply(self, x: &[f64]) -> Option<f64> {
        match self {
            Estimator::Mean => mean(x),
            Estimator::Median => median(x),
        }
    }
}

/// Percentile-bootstrap interval (Efron & Tibshirani 1993, *An Introduction to the
/// Bootstrap*, §13.3) for `100·(est(candidate)/est(baseline) − 1)`: each side is resampled
/// with replacement on its own (two independent samples), `resamples` times.
///
/// `level` is the two-sided coverage (0.95). `None` with fewer than two values a side,
/// no resamples, or when fewer than half the resamples have a non-zero baseline estimate.
/// Quantiles of the bootstrap distribution use Hyndman–Fan definition 7.
pub fn delta_pct_ci(
    baseline: &[f64],
    candidate: &[f64],
    est: Estimator,
    resamples: usize,
    level: f64,
    seed: u64,
) -> Option<(f64, f64)> {
    if baseline.len() < 2 || candidate.len() < 2 || resamples == 0 {
        return None;
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut draw = |src: &[f64], buf: &mut Vec<f64>| {
        buf.clear();
        buf.extend((0..src.len()).map(|_| src[rng.random_range(0..src.len())]));
    };
    let (mut b, mut c) = (Vec::new(), Vec::new());
    let mut deltas = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        draw(baseline, &mut b);
        draw(candidate, &mut c);
        let (eb, ec) = (est.apply(&b)?, est.apply(&c)?);
        if eb != 0.0 {
            deltas.push(100.0 * (ec / eb - 1.0));
        }
    }
    if deltas.len() * 2 < resamples {
        return None;
    }
    let alpha = (1.0 - level) / 2.0;
    Some((
        super::describe::quantile(&deltas, alpha)?,
        super::describe::quantile(&deltas, 1.0 - alpha)?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn separated_samples_exclude_zero_and_are_reproducible() {
        let base = [3.38, 3.37, 3.44, 3.35, 3.33, 3.53, 3.46, 3.37, 3.34, 3.31];
        let cand = [
            2.97, 2.98, 2.99, 2.98, 2.93, 2.94, 3.01, 2.93, 2.96, 2.97, 2.92,
        ];
        let a = delta_pct_ci(&base, &cand, Estimator::Mean, 2000, 0.95, 7).unwrap();
        let b = delta_pct_ci(&base, &cand, Estimator::Mean, 2000, 0.95, 7).unwrap();
        assert_eq!(a, b);
        assert!(a.0 < -12.58 && a.1 > -12.58 && a.1 < 0.0, "{a:?}");
        assert!(delta_pct_ci(&[1.0], &cand, Estimator::Mean, 100, 0.95, 1).is_none());
    }

    proptest! {
        #[test]
        fn interval_is_ordered(
            x in prop::collection::vec(1.0f64..100.0, 2..10),
            y in prop::collection::vec(1.0f64..100.0, 2..10),
            seed in any::<u64>(),
        ) {
            let (lo, hi) = delta_pct_ci(&x, &y, Estimator::Median, 200, 0.9, seed).unwrap();
            prop_assert!(lo <= hi);
        }
    }
}
