//! Multiple-comparison corrections: adjusted p-values for a family of tests.

/// Holm (1979) step-down adjusted p-values, in input order: with p sorted ascending,
/// p̃₍ᵢ₎ = max_{j≤i} min(1, (m − j + 1)·p₍ⱼ₎). Controls the family-wise error rate.
/// NaN inputs are treated as 1.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    let val = |i: usize| if p[i].is_nan() { 1.0 } else { p[i] };
    order.sort_by(|&a, &b| val(a).total_cmp(&val(b)));
    let mut out = vec![1.0; m];
    let mut running: f64 = 0.0;
    for (rank, &i) in order.iter().enumerate() {
        running = running.max(((m - rank) as f64 * val(i)).min(1.0));
        out[i] = running;
    }
    out
}

/// Benjamini–Hochberg (1995) step-up adjusted p-values, in input order: with p sorted
/// ascending, p̃₍ᵢ₎ = min_{j≥i} min(1, m·p₍ⱼ₎/j). Controls the false discovery rate.
pub fn benjamini_hochberg(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    let val = |i: usize| if p[i].is_nan() { 1.0 } else { p[i] };
    order.sort_by(|&a, &b| val(a).total_cmp(&val(b)));
    let mut out = vec![1.0; m];
    let mut running: f64 = 1.0;
    for (rank, &i) in order.iter().enumerate().rev() {
        running = running.min((m as f64 * val(i) / (rank + 1) as f64).min(1.0));
        out[i] = running;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn matches_r_p_adjust() {
        // R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") = 0.03 0.06 0.06 0.02
        let h = holm(&[0.01, 0.04, 0.03, 0.005]);
        for (a, b) in h.iter().zip([0.03, 0.06, 0.06, 0.02]) {
            assert!((a - b).abs() < 1e-12, "{h:?}");
        }
        // R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "BH") = 0.02 0.04 0.04 0.02
        let bh = benjamini_hochberg(&[0.01, 0.04, 0.03, 0.005]);
        for (a, b) in bh.iter().zip([0.02, 0.04, 0.04, 0.02]) {
            assert!((a - b).abs() < 1e-12, "{bh:?}");
        }
        assert!(holm(&[]).is_empty());
    }

    proptest! {
        #[test]
        fn adjusted_is_at_least_raw_and_at_most_one(p in prop::collection::vec(0.0f64..=1.0, 1..20)) {
            for adj in [holm(&p), benjamini_hochberg(&p)] {
                for (a, r) in adj.iter().zip(&p) {
                    prop_assert!(*a >= *r - 1e-12 && *a <= 1.0);
                }
            }
            for (h, b) in holm(&p).iter().zip(benjamini_hochberg(&p)) {
                prop_assert!(*h >= b - 1e-12);
            }
        }
    }
}
