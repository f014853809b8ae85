//! Outlier rejection by the modified z-score (Iglewicz & Hoaglin 1993, *How to Detect and
//! Handle Outliers*, ASQC, §3.3): Mᵢ = 0.6745·(xᵢ − median)/MAD, outlier when |Mᵢ| > 3.5.
//! The same rule hyperfine uses to warn about outlier runs. Like hyperfine, bench-db only
//! reports them: dropping values before a permutation test breaks its exchangeability
//! (measured: 1.5–1.7% A/A alarms at a nominal 1%), and a slow mode in 2 of 5 runs is
//! exactly what a regression looks like.

use super::variation::median_in_place;

/// The cut-off on |M| recommended by Iglewicz & Hoaglin.
pub const MODIFIED_Z_LIMIT: f64 = 3.5;

/// How many values have a modified z-score beyond the limit. With a zero MAD (half the
/// values equal) none: the score is undefined there.
pub fn outlier_count(x: &[f64]) -> usize {
    x.len() - without_outliers(x).len()
}

/// The values whose modified z-score is within the limit, in input order.
fn without_outliers(x: &[f64]) -> Vec<f64> {
    let mut v = x.to_vec();
    let Some(med) = median_in_place(&mut v) else {
        return Vec::new();
    };
    let mut dev: Vec<f64> = x.iter().map(|v| (v - med).abs()).collect();
    let mad = median_in_place(&mut dev).unwrap_or(0.0);
    if mad == 0.0 {
        return x.to_vec();
    }
    x.iter()
        .copied()
        .filter(|v| (0.6745 * (v - med) / mad).abs() <= MODIFIED_Z_LIMIT)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn drops_the_wild_run_only() {
        let x = [10.0, 10.2, 9.9, 10.1, 30.0, 10.0];
        assert_eq!(without_outliers(&x), vec![10.0, 10.2, 9.9, 10.1, 10.0]);
        assert_eq!(
            without_outliers(&[5.0, 5.0, 5.0, 9.0]),
            vec![5.0, 5.0, 5.0, 9.0]
        );
        assert!(without_outliers(&[]).is_empty());
        assert_eq!(outlier_count(&x), 1);
    }

    proptest! {
        #[test]
        fn keeps_at_least_half(x in prop::collection::vec(-1e3f64..1e3, 1..30)) {
            let kept = without_outliers(&x);
            prop_assert!(kept.len() * 2 >= x.len());
        }
    }
}
