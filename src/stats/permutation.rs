//! Two-sample location tests for the analyses: an exact permutation test when every
//! rearrangement of the pooled values can be enumerated, Welch's t otherwise.
//!
//! The permutation test (Fisher 1935, *The Design of Experiments*, §21; Pitman 1937,
//! *JRSS Suppl.* 4:119–130) uses the difference of means; with the pooled total fixed, that
//! is the sum of the first sample, so each rearrangement costs one addition per value. It
//! is exact under exchangeability whatever the distribution, which matters with the 3–8
//! runs a side benchmarks usually have, where a t approximation can be far too confident.
//! Welch's t is its large-sample approximation and is used beyond [`MAX_ENUMERATED`].

use super::yuen::welch;

/// Largest number of rearrangements, C(n₁ + n₂, n₁), enumerated exactly.
pub const MAX_ENUMERATED: u64 = 20_000;

/// How a [`ShiftTest`] was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    ExactPermutation,
    Welch,
}

/// Outcome of a test of "x is shifted relative to y".
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShiftTest {
    pub method: Method,
    /// P-value for "x is larger than y".
    pub p_greater: f64,
    /// P-value for "x is smaller than y".
    pub p_less: f64,
    pub p_two_sided: f64,
    /// The smallest one-sided p-value this test can give with these sample sizes
    /// (1 / number of rearrangements for the exact test, 0 for Welch).
    pub p_floor: f64,
}

/// C(n, k) as a float (saturating far above [`MAX_ENUMERATED`]).
fn choose(n: usize, k: usize) -> f64 {
    let k = k.min(n - k);
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// Tests `x` against `y`; `None` with fewer than two values a side.
pub fn shift_test(x: &[f64], y: &[f64]) -> Option<ShiftTest> {
    if x.len() < 2 || y.len() < 2 {
        return None;
    }
    let total = choose(x.len() + y.len(), x.len());
    if total <= MAX_ENUMERATED as f64 {
        return Some(exact(x, y, total));
    }
    let w = welch(x, y)?;
    Some(ShiftTest {
        method: Method::Welch,
        p_greater: w.p_greater,
        p_less: w.p_less,
        p_two_sided: w.p_two_sided,
        p_floor: 0.0,
    })
}

fn exact(x: &[f64], y: &[f64], total: f64) -> ShiftTest {
    let pooled: Vec<f64> = x.iter().chain(y).copied().collect();
    let k = x.len();
    let observed: f64 = x.iter().sum();
    // Sums that differ only by rounding count as ties.
    let scale: f64 = pooled
        .iter()
        .map(|v| v.abs())
        .sum::<f64>()
        .max(f64::MIN_POSITIVE);
    let tol = 1e-12 * scale;
    let (mut ge, mut le) = (0u64, 0u64);
    // Every k-combination of indices, in lexicographic order.
    let mut idx: Vec<usize> = (0..k).collect();
    loop {
        let s: f64 = idx.iter().map(|&i| pooled[i]).sum();
        if s >= observed - tol {
            ge += 1;
        }
        if s <= observed + tol {
            le += 1;
        }
        let mut i = k;
        while i > 0 && idx[i - 1] == pooled.len() - k + i - 1 {
            i -= 1;
        }
        if i == 0 {
            break;
        }
        idx[i - 1] += 1;
        for j in i..k {
            idx[j] = idx[j - 1] + 1;
        }
    }
    let (p_greater, p_less) = (ge as f64 / total, le as f64 / total);
    ShiftTest {
        method: Method::ExactPermutation,
        p_greater,
        p_less,
        p_two_sided: (2.0 * p_greater.min(p_less)).min(1.0),
        p_floor: 1.0 / total,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn separated_four_by_four_is_one_in_seventy() {
        let tcp = [13490.0, 13462.0, 13476.0, 13440.0];
        let default = [13402.0, 13155.0, 13344.0, 13107.0];
        let t = shift_test(&tcp, &default).unwrap();
        assert_eq!(t.method, Method::ExactPermutation);
        assert!((t.p_greater - 1.0 / 70.0).abs() < 1e-12);
        assert!((t.p_two_sided - 2.0 / 70.0).abs() < 1e-12);
        assert!((t.p_floor - 1.0 / 70.0).abs() < 1e-12);
        assert_eq!(t.p_less, 1.0);
    }

    #[test]
    fn large_samples_use_welch_and_constants_are_no_evidence() {
        let x: Vec<f64> = (0..12).map(f64::from).collect();
        let y: Vec<f64> = (0..12).map(|v| f64::from(v) + 0.5).collect();
        assert_eq!(shift_test(&x, &y).unwrap().method, Method::Welch);
        let t = shift_test(&[5.0, 5.0, 5.0], &[5.0, 5.0]).unwrap();
        assert_eq!((t.p_greater, t.p_less, t.p_two_sided), (1.0, 1.0, 1.0));
        assert!(shift_test(&[1.0], &[1.0, 2.0]).is_none());
        assert_eq!(choose(20, 10), 184_756.0);
    }

    proptest! {
        #[test]
        fn exact_tails_cover_every_rearrangement(
            x in prop::collection::vec(0.0f64..10.0, 2..7),
            y in prop::collection::vec(0.0f64..10.0, 2..7),
        ) {
            let t = shift_test(&x, &y).unwrap();
            prop_assert_eq!(t.method, Method::ExactPermutation);
            // Every rearrangement is ≥ or ≤ the observed one (ties count in both).
            prop_assert!(t.p_greater + t.p_less >= 1.0 - 1e-12);
            prop_assert!(t.p_greater >= t.p_floor - 1e-15 && t.p_less >= t.p_floor - 1e-15);
            let s = shift_test(&y, &x).unwrap();
            prop_assert!((s.p_two_sided - t.p_two_sided).abs() < 1e-12);
        }
    }
}
