//! Yuen's two-sample trimmed-mean t-test (Welch form on trimmed means with winsorized
//! variances): robust to the occasional outlier run that rank tests and t-tests handle badly.
//!
//! Source: Yuen (1974), "The two-sample trimmed t for unequal population variances",
//! *Biometrika* 61(1):165–170; formulas as in Wilcox (2012), *Introduction to Robust
//! Estimation and Hypothesis Testing*, 3rd ed., §5.3.

use super::describe::{trim_count, trimmed_mean, winsorized_variance};
use super::dist::student_t_sf;

/// Outcome of Yuen's test of `x` against `y`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Yuen {
    /// Trimmed mean of x minus trimmed mean of y.
    pub diff: f64,
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    /// P-value for "x is larger than y".
    pub p_greater: f64,
    /// P-value for "x is smaller than y".
    pub p_less: f64,
    pub p_two_sided: f64,
}

/// Welch's unequal-variance t-test (Welch 1947, *Biometrika* 34:28–35): Yuen's test
/// without trimming.
pub fn welch(x: &[f64], y: &[f64]) -> Option<Yuen> {
    yuen(x, y, 0.0)
}

/// Runs the test with trimming `gamma`. For each sample: g = ⌊γn⌋, h = n − 2g,
/// d = (n − 1)·s²_w / (h(h − 1)); T = (x̄_t − ȳ_t)/√(d₁ + d₂) and
/// ν = (d₁ + d₂)² / (d₁²/(h₁ − 1) + d₂²/(h₂ − 1)).
/// `None` when a sample keeps fewer than two values after trimming. When both samples
/// are constant the answer is exact: p = 1 for equal values, 0 in the direction they differ.
pub fn yuen(x: &[f64], y: &[f64], gamma: f64) -> Option<Yuen> {
    let parts = |s: &[f64]| -> Option<(f64, f64, f64)> {
        let n = s.len();
        let h = n.checked_sub(2 * trim_count(n, gamma))?;
        if h < 2 {
            return None;
        }
        let hf = h as f64;
        let d = (n as f64 - 1.0) * winsorized_variance(s, gamma)? / (hf * (hf - 1.0));
        Some((trimmed_mean(s, gamma)?, d, hf))
    };
    let (mx, d1, h1) = parts(x)?;
    let (my, d2, h2) = parts(y)?;
    // Constant samples: compare the values themselves, since summing identical values
    // can leave rounding noise in the means and variances.
    let constant = |s: &[f64]| s.iter().all(|v| *v == s[0]);
    let (diff, se2) = if constant(x) && constant(y) {
        (x[0] - y[0], 0.0)
    } else {
        (mx - my, d1 + d2)
    };
    if se2 <= 0.0 {
        let (pg, pl) = match diff.partial_cmp(&0.0)? {
            std::cmp::Ordering::Greater => (0.0, 1.0),
            std::cmp::Ordering::Less => (1.0, 0.0),
            std::cmp::Ordering::Equal => (1.0, 1.0),
        };
        let t = if diff == 0.0 {
            0.0
        } else {
            diff.signum() * f64::INFINITY
        };
        return Some(Yuen {
            diff,
            t,
            df: f64::INFINITY,
            p_greater: pg,
            p_less: pl,
            p_two_sided: (2.0 * pg.min(pl)).min(1.0),
        });
    }
    let t = diff / se2.sqrt();
    let df = se2 * se2 / (d1 * d1 / (h1 - 1.0) + d2 * d2 / (h2 - 1.0));
    let p_greater = student_t_sf(t, df);
    let p_less = student_t_sf(-t, df);
    Some(Yuen {
        diff,
        t,
        df,
        p_greater,
        p_less,
        p_two_sided: (2.0 * p_greater.min(p_less)).min(1.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn without_trimming_it_is_welch() {
        // Welch t-test of [1..5] vs [2,4,6,8,10]: t = −1.8974, df = 5.882 (R t.test), p = 0.1075.
        let r = welch(&[1.0, 2.0, 3.0, 4.0, 5.0], &[2.0, 4.0, 6.0, 8.0, 10.0]).unwrap();
        assert!((r.t + 1.897_367).abs() < 1e-5, "{}", r.t);
        assert!((r.df - 5.882_353).abs() < 1e-5, "{}", r.df);
        assert!((r.p_two_sided - 0.1075).abs() < 5e-4, "{}", r.p_two_sided);
    }

    #[test]
    fn trimming_ignores_one_wild_value() {
        let base = [10.0, 10.2, 9.9, 10.1, 10.0, 9.8, 10.1, 10.0, 10.2, 9.9];
        let mut cand = base.map(|v| v * 1.05);
        cand[3] = 500.0;
        let r = yuen(&cand, &base, 0.2).unwrap();
        assert!(r.p_greater < 1e-3, "{r:?}");
        assert!(yuen(&[1.0], &[1.0, 2.0], 0.2).is_none());
        assert_eq!(
            yuen(&[2.0, 2.0], &[2.0, 2.0], 0.2).unwrap().p_two_sided,
            1.0
        );
        let five = [5f64.ln(); 11];
        assert_eq!(welch(&five[..10], &five).unwrap().p_two_sided, 1.0);
        assert_eq!(yuen(&[3.0, 3.0], &[2.0, 2.0], 0.2).unwrap().p_greater, 0.0);
    }

    proptest! {
        #[test]
        fn p_values_are_probabilities_and_tails_complement(
            x in prop::collection::vec(0.0f64..100.0, 3..15),
            y in prop::collection::vec(0.0f64..100.0, 3..15),
        ) {
            if let Some(r) = yuen(&x, &y, 0.2) {
                prop_assert!((0.0..=1.0).contains(&r.p_two_sided));
                if r.t.is_finite() {
                    prop_assert!((r.p_greater + r.p_less - 1.0).abs() < 1e-9);
                }
            }
        }
    }
}
