//! Mann-Whitney U (Wilcoxon rank-sum) two-sample test: exact null distribution for small
//! samples without ties, normal approximation with tie and continuity corrections otherwise.
//! This is the test benchstat and asv use; kept as the reference the gate is measured against.

use super::dist::normal_cdf;

/// Exact p-values are computed when there are no ties and n₁·n₂ is at most this.
const EXACT_MAX_PAIRS: usize = 400;

/// Outcome of a Mann-Whitney U test of `x` against `y`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MannWhitney {
    /// U of `x`: the number of pairs (xᵢ, yⱼ) with xᵢ > yⱼ, ties counting ½.
    pub u: f64,
    /// P-value for "x tends to be larger than y".
    pub p_greater: f64,
    /// P-value for "x tends to be smaller than y".
    pub p_less: f64,
    /// Two-sided p-value: `min(1, 2·min(p_greater, p_less))`.
    pub p_two_sided: f64,
    /// Whether the exact null distribution was used.
    pub exact: bool,
}

/// Runs the test; `None` when either sample is empty or holds a non-finite value.
///
/// U = R₁ − n₁(n₁+1)/2 with midranks for ties (Mann & Whitney 1947). Exact tails come from
/// their recurrence f(u; m, n) = f(u − n; m − 1, n) + f(u; m, n − 1). The approximation uses
/// mean n₁n₂/2 and the tie-corrected variance n₁n₂/12 · ((n+1) − Σ(t³ − t)/(n(n − 1)))
/// (Lehmann 1975, *Nonparametrics*, eq. 1.56), with a ½ continuity correction.
pub fn mann_whitney(x: &[f64], y: &[f64]) -> Option<MannWhitney> {
    let (n1, n2) = (x.len(), y.len());
    if n1 == 0 || n2 == 0 || x.iter().chain(y).any(|v| !v.is_finite()) {
        return None;
    }
    let mut all: Vec<(f64, bool)> = x
        .iter()
        .map(|&v| (v, true))
        .chain(y.iter().map(|&v| (v, false)))
        .collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0));
    let n = all.len();
    let (mut r1, mut tie_sum, mut i) = (0.0, 0.0, 0);
    while i < n {
        let mut j = i;
        while j + 1 < n && all[j + 1].0 == all[i].0 {
            j += 1;
        }
        let t = (j - i + 1) as f64;
        let midrank = (i + j) as f64 / 2.0 + 1.0;
        r1 += midrank * all[i..=j].iter().filter(|e| e.1).count() as f64;
        tie_sum += t * t * t - t;
        i = j + 1;
    }
    let u = r1 - (n1 * (n1 + 1)) as f64 / 2.0;
    let (p_greater, p_less, exact) = if tie_sum == 0.0 && n1 * n2 <= EXACT_MAX_PAIRS {
        let (ge, le) = exact_tails(n1, n2, u.round() as usize);
        (ge, le, true)
    } else {
        let (n1f, n2f, nf) = (n1 as f64, n2 as f64, n as f64);
        let mu = n1f * n2f / 2.0;
        let var = n1f * n2f / 12.0 * ((nf + 1.0) - tie_sum / (nf * (nf - 1.0)));
        if var <= 0.0 {
            // Every value is the same: no evidence either way.
            (1.0, 1.0, false)
        } else {
            let sd = var.sqrt();
            let z_hi = (u - mu - 0.5) / sd;
            let z_lo = (u - mu + 0.5) / sd;
            (
                (1.0 - normal_cdf(z_hi)).min(1.0),
                normal_cdf(z_lo).min(1.0),
                false,
            )
        }
    };
    Some(MannWhitney {
        u,
        p_greater,
        p_less,
        p_two_sided: (2.0 * p_greater.min(p_less)).min(1.0),
        exact,
    })
}

/// P(U ≥ u) and P(U ≤ u) under the null for sample sizes m and n, no ties.
fn exact_tails(m: usize, n: usize, u: usize) -> (f64, f64) {
    let max_u = m * n;
    // layer[k][v] = number of arrangements of (current m, k) with U = v.
    let mut prev: Vec<Vec<f64>> = (0..=n)
        .map(|_| {
            let mut row = vec![0.0; max_u + 1];
            row[0] = 1.0;
            row
        })
        .collect();
    for _mi in 1..=m {
        let mut cur = vec![vec![0.0; max_u + 1]; n + 1];
        cur[0][0] = 1.0;
        for k in 1..=n {
            for v in 0..=max_u {
                let from_x = if v >= k { prev[k][v - k] } else { 0.0 };
                cur[k][v] = from_x + cur[k - 1][v];
            }
        }
        prev = cur;
    }
    let dist = &prev[n];
    let total: f64 = dist.iter().sum();
    let ge: f64 = dist[u.min(max_u)..].iter().sum();
    let le: f64 = dist[..=u.min(max_u)].iter().sum();
    (ge / total, le / total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn fully_separated_four_by_four_is_two_in_seventy() {
        // Seed 002: every TCP run beats every default-transport run.
        let tcp = [13490.0, 13462.0, 13476.0, 13440.0];
        let default = [13402.0, 13155.0, 13344.0, 13107.0];
        let r = mann_whitney(&tcp, &default).unwrap();
        assert!(r.exact);
        assert_eq!(r.u, 16.0);
        assert!((r.p_greater - 1.0 / 70.0).abs() < 1e-12);
        assert!((r.p_two_sided - 2.0 / 70.0).abs() < 1e-12);
    }

    #[test]
    fn ties_use_the_corrected_normal_approximation() {
        // U = 3; two tie groups of 3: var = 16/12·(9 − 48/56) = 10.857, z = (8 − 3 − ½)/3.2950
        // = 1.3657, two-sided p = 0.1720 (scipy's method="asymptotic" agrees).
        let r = mann_whitney(&[1.0, 2.0, 2.0, 3.0], &[2.0, 3.0, 3.0, 4.0]).unwrap();
        assert!(!r.exact);
        assert_eq!(r.u, 3.0);
        assert!((r.p_two_sided - 0.1720).abs() < 5e-4, "{}", r.p_two_sided);
        let same = mann_whitney(&[1.0, 1.0], &[1.0, 1.0]).unwrap();
        assert_eq!(same.p_two_sided, 1.0);
        assert!(mann_whitney(&[], &[1.0]).is_none());
    }

    proptest! {
        #[test]
        fn swapping_samples_mirrors_the_tails(
            x in prop::collection::vec(0.0f64..100.0, 1..12),
            y in prop::collection::vec(0.0f64..100.0, 1..12),
        ) {
            let a = mann_whitney(&x, &y).unwrap();
            let b = mann_whitney(&y, &x).unwrap();
            prop_assert!((a.p_greater - b.p_less).abs() < 1e-9);
            prop_assert!((a.p_two_sided - b.p_two_sided).abs() < 1e-9);
            prop_assert!((a.u + b.u - (x.len() * y.len()) as f64).abs() < 1e-9);
            prop_assert!(a.p_two_sided > 0.0 && a.p_two_sided <= 1.0);
        }
    }
}
