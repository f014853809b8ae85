//! Run-to-run variation of one percentile across runs.

/// JLBH's `% Variation`: `100 · (max − min) / (max + min / 2)` over the given values.
///
/// Source: OpenHFT/JLBH `PercentileSummary.calculateVariance` (unchanged since
/// Chronicle-Core 2016-03-08); the odd denominator `max + min/2` is the original's.
/// Non-finite values are ignored, as JLBH ignores infinite cells. `None` when no
/// value is left (JLBH would print `-200.00` there).
pub fn jlbh_variation(values: &[f64]) -> Option<f64> {
    let mut it = values.iter().copied().filter(|v| v.is_finite());
    let first = it.next()?;
    let (min, max) = it.fold((first, first), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let denom = max + min / 2.0;
    if denom == 0.0 {
        return Some(0.0);
    }
    Some(100.0 * (max - min) / denom)
}

/// Robust coefficient of variation in percent: `100 · 1.4826 · MAD / median`.
///
/// MAD is the median absolute deviation from the median (Hampel 1974); the factor
/// 1.4826 makes it estimate the standard deviation under normality, so the result
/// reads like a CV that one outlier run cannot inflate. Medians use the midpoint of
/// the two middle values for even counts. `None` for no values or a zero median.
pub fn robust_cv_pct(values: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    let med = median_in_place(&mut v)?;
    if med == 0.0 {
        return None;
    }
    let mut dev: Vec<f64> = v.iter().map(|x| (x - med).abs()).collect();
    let mad = median_in_place(&mut dev)?;
    Some(100.0 * 1.4826 * mad / med.abs())
}

/// The median (midpoint of the two middle values for even counts); sorts `v`.
pub fn median_in_place(v: &mut [f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_000_end_to_end_p50() {
        // Runs 2 and 3 (run 1 skipped): 41.98 and 33.79 → 13.91.
        let v = jlbh_variation(&[41.98, 33.79]).unwrap();
        assert!((v - 13.91).abs() < 0.005, "{v}");
    }

    #[test]
    fn equal_values_have_no_variation() {
        assert_eq!(jlbh_variation(&[5.0, 5.0]), Some(0.0));
        assert_eq!(jlbh_variation(&[]), None);
        assert_eq!(jlbh_variation(&[f64::INFINITY]), None);
    }

    #[test]
    fn robust_cv_ignores_one_outlier() {
        let cv = robust_cv_pct(&[10.0, 10.0, 10.0, 10.0, 1000.0]).unwrap();
        assert_eq!(cv, 0.0);
        assert_eq!(median_in_place(&mut [3.0, 1.0, 2.0, 4.0]), Some(2.5));
    }
}
