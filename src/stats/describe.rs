//! Descriptive statistics over plain slices: mean, median, quantiles, trimmed means and
//! winsorized variances. Non-finite values are the caller's business: these functions
//! expect finite input and return `None` only for empty (or too short) slices.

use super::variation::median_in_place;

/// Arithmetic mean; `None` for an empty slice.
pub fn mean(x: &[f64]) -> Option<f64> {
    if x.is_empty() {
        return None;
    }
    Some(x.iter().sum::<f64>() / x.len() as f64)
}

/// Median (midpoint of the two middle values for an even count).
pub fn median(x: &[f64]) -> Option<f64> {
    let mut v = x.to_vec();
    median_in_place(&mut v)
}

/// Quantile `q` in [0, 1] by linear interpolation between order statistics:
/// Hyndman & Fan (1996) definition 7, `h = (n − 1)·q`, the default of R and NumPy.
pub fn quantile(x: &[f64], q: f64) -> Option<f64> {
    if x.is_empty() || !(0.0..=1.0).contains(&q) {
        return None;
    }
    let mut v = x.to_vec();
    v.sort_by(f64::total_cmp);
    let h = (v.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    Some(v[lo] + (h - lo as f64) * (v[hi] - v[lo]))
}

/// Number of values cut from each end by a `gamma`-trimmed mean: `g = ⌊γ·n⌋`
/// (Wilcox 2012, *Introduction to Robust Estimation and Hypothesis Testing*, 3rd ed., §2.2.3);
/// the product is nudged by 1e-9 so that γ·n exact in decimals (0.2 · 15) floors to itself.
pub fn trim_count(n: usize, gamma: f64) -> usize {
    (gamma * n as f64 + 1e-9).floor() as usize
}

/// The `gamma`-trimmed mean (Wilcox 2012, eq. 2.9): the mean of the values left after
/// dropping the `⌊γ·n⌋` smallest and largest.
pub fn trimmed_mean(x: &[f64], gamma: f64) -> Option<f64> {
    let mut v = x.to_vec();
    v.sort_by(f64::total_cmp);
    let g = trim_count(v.len(), gamma);
    mean(v.get(g..v.len().saturating_sub(g))?)
}

/// The `gamma`-winsorized sample variance (Wilcox 2012, eq. 3.13): the `⌊γ·n⌋` smallest
/// values are set to the next one up, the largest to the next one down, then the usual
/// unbiased variance (denominator n − 1). `None` for fewer than two values.
pub fn winsorized_variance(x: &[f64], gamma: f64) -> Option<f64> {
    let n = x.len();
    if n < 2 {
        return None;
    }
    let mut v = x.to_vec();
    v.sort_by(f64::total_cmp);
    let g = trim_count(n, gamma);
    if 2 * g >= n {
        return None;
    }
    let (lo, hi) = (v[g], v[n - 1 - g]);
    for w in v.iter_mut() {
        *w = w.clamp(lo, hi);
    }
    let m = mean(&v)?;
    Some(v.iter().map(|w| (w - m).powi(2)).sum::<f64>() / (n - 1) as f64)
}

/// Unbiased sample variance (denominator n − 1); `None` for fewer than two values.
pub fn variance(x: &[f64]) -> Option<f64> {
    winsorized_variance(x, 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn known_values() {
        assert_eq!(mean(&[1.0, 2.0, 6.0]), Some(3.0));
        assert_eq!(median(&[5.0, 1.0, 3.0]), Some(3.0));
        // R: quantile(c(1,2,3,4), 0.9) = 3.7 (type 7).
        assert!((quantile(&[4.0, 1.0, 3.0, 2.0], 0.9).unwrap() - 3.7).abs() < 1e-12);
        // 20% trimming of 10 values drops 2 from each end.
        let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 100.0];
        assert_eq!(trimmed_mean(&x, 0.2), Some(5.5));
        // Winsorized: [3,3,3,4,5,6,7,8,8,8], mean 5.5, sum of squares 42.5 → 42.5/9.
        assert!((winsorized_variance(&x, 0.2).unwrap() - 42.5 / 9.0).abs() < 1e-12);
        assert_eq!(variance(&[1.0]), None);
        assert_eq!(mean(&[]), None);
    }

    proptest! {
        #[test]
        fn estimates_lie_within_the_range(x in prop::collection::vec(-1e6f64..1e6, 1..40), q in 0.0f64..=1.0) {
            let lo = x.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            for v in [mean(&x), median(&x), quantile(&x, q), trimmed_mean(&x, 0.2)] {
                let v = v.unwrap();
                prop_assert!(v >= lo - 1e-6 && v <= hi + 1e-6);
            }
        }

        #[test]
        fn winsorized_variance_is_at_most_the_variance(x in prop::collection::vec(-1e3f64..1e3, 2..40)) {
            prop_assert!(winsorized_variance(&x, 0.2).unwrap() <= variance(&x).unwrap() + 1e-6);
        }
    }
}
