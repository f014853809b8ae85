//! Change points in a series, exactly as Apache Otava 0.8 finds them.
//!
//! A port of `otava.analysis.compute_change_points` (apache-otava 0.8.0, `analysis.py`
//! `split()` / `merge()`, with `change_point_divisive/{base,calculator,detector}.py`): the
//! algorithm of Fleming et al., "Hunter: Using Change Point Detection to Hunt for
//! Performance Regressions", ICPE 2023 (doi:10.1145/3578244.3583719), built on the
//! E-Divisive means of Matteson & James (doi:10.48550/arXiv.1306.4933).
//!
//! 1. Split: sliding windows of `window_len` points, each starting at the later of the
//!    last change point found and the previous start plus `window_len / 2`. In each
//!    window E-Divisive means picks the split maximising Q̂; a two-sided Student t-test
//!    (pooled variance, population standard deviations as Otava passes them) keeps it
//!    when p ≤ 10× the p-value, and the window is split again until a candidate fails.
//! 2. Merge: bottom-up, the weakest point (highest p, else smallest relative change) is
//!    dropped until every remaining point has p < `max_pvalue` and a relative change
//!    above `min_magnitude`.
//!
//! The arithmetic follows Otava's numpy code step for step (same cumulative sums in
//! the same order, the same row-major arg-max, NumPy's pairwise summation for means),
//! so that near-ties resolve the same way. Otava's quirks are kept on purpose: after a
//! point is dropped in the merge, the two points *after* it are recomputed (not the
//! one before it). Pure: slices in, plain structs out.

use thiserror::Error;

/// Otava's defaults (`AnalysisOptions` in `series.py`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// Sliding window length (Otava: 50).
    pub window_len: usize,
    /// Final significance level (Otava: 0.001).
    pub max_pvalue: f64,
    /// Minimum relative change, as a fraction (Otava: 0.0).
    pub min_magnitude: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            window_len: 50,
            max_pvalue: 0.001,
            min_magnitude: 0.0,
        }
    }
}

#[derive(Debug, Error, PartialEq)]
pub enum ChangePointError {
    #[error("window length must be at least 2, got {0}")]
    Window(usize),
    #[error("p-value must be in (0, 1], got {0}")]
    PValue(f64),
    #[error("magnitude must be a finite number ≥ 0, got {0}")]
    Magnitude(f64),
    #[error("the series has a non-finite value at index {0}")]
    NotFinite(usize),
}

/// Otava's `TTestStats`: the two sides of a change point and the t-test p-value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TTestStats {
    pub mean_1: f64,
    pub mean_2: f64,
    /// Population standard deviations (NumPy's `np.std`, ddof 0).
    pub std_1: f64,
    pub std_2: f64,
    pub pvalue: f64,
}

impl TTestStats {
    /// `mean_2 / mean_1 − 1` (0 when `mean_1` is 0).
    pub fn forward_rel_change(&self) -> f64 {
        if self.mean_1 == 0.0 {
            return 0.0;
        }
        self.mean_2 / self.mean_1 - 1.0
    }

    /// `mean_1 / mean_2 − 1` (0 when `mean_2` is 0).
    pub fn backward_rel_change(&self) -> f64 {
        if self.mean_2 == 0.0 {
            return 0.0;
        }
        self.mean_1 / self.mean_2 - 1.0
    }

    /// The larger absolute relative change, either way.
    pub fn change_magnitude(&self) -> f64 {
        self.forward_rel_change()
            .abs()
            .max(self.backward_rel_change().abs())
    }
}

/// A change point: `index` is the first point after the change.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChangePoint {
    pub index: usize,
    /// E-Divisive's Q̂ when the point was found.
    pub qhat: f64,
    pub stats: TTestStats,
}

/// A candidate before its significance is known.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    index: usize,
    qhat: f64,
}

/// `compute_change_points(series, window_len, max_pvalue, min_magnitude)` of Otava 0.8.
pub fn compute_change_points(
    series: &[f64],
    opts: &Options,
) -> Result<Vec<ChangePoint>, ChangePointError> {
    if opts.window_len < 2 {
        return Err(ChangePointError::Window(opts.window_len));
    }
    if !(opts.max_pvalue > 0.0 && opts.max_pvalue <= 1.0) {
        return Err(ChangePointError::PValue(opts.max_pvalue));
    }
    if !(opts.min_magnitude.is_finite() && opts.min_magnitude >= 0.0) {
        return Err(ChangePointError::Magnitude(opts.min_magnitude));
    }
    if let Some(i) = series.iter().position(|v| !v.is_finite()) {
        return Err(ChangePointError::NotFinite(i));
    }
    let p = opts.max_pvalue;
    let first_pass = if p < 0.05 {
        p * 10.0
    } else if p < 0.5 {
        p * 2.0
    } else {
        p
    };
    let weak = split(series, opts.window_len, first_pass);
    Ok(merge(weak, series, opts.max_pvalue, opts.min_magnitude))
}

/// `split()`: weak change points from sliding windows, with stats over the whole series.
fn split(series: &[f64], window_len: usize, max_pvalue: f64) -> Vec<ChangePoint> {
    let n = series.len();
    let step = window_len / 2;
    let mut start = 0;
    let mut found: Vec<ChangePoint> = Vec::new();
    while start < n {
        let end = (start + window_len).min(n);
        let mut new = detect(&series[start..end], max_pvalue);
        for cp in &mut new {
            cp.index += start;
        }
        let last = new.last().map_or(0, |c| c.index);
        start = last.max(start + step);
        for cp in new {
            if !found.iter().any(|c| c.index == cp.index) {
                found.push(cp);
            }
        }
    }
    found.sort_by_key(|c| c.index);
    let intervals = intervals(&found, n);
    found
        .iter()
        .map(|cp| {
            change_point(
                Candidate {
                    index: cp.index,
                    qhat: cp.qhat,
                },
                series,
                &intervals,
            )
        })
        .collect()
}

/// `merge()`: drops the weakest point until the rest pass both thresholds.
fn merge(
    mut cps: Vec<ChangePoint>,
    series: &[f64],
    max_pvalue: f64,
    min_magnitude: f64,
) -> Vec<ChangePoint> {
    while !cps.is_empty() {
        // Python's max()/min(): the first of equals wins; a NaN first stays.
        let mut weakest = 0;
        for (i, c) in cps.iter().enumerate().skip(1) {
            if c.stats.pvalue > cps[weakest].stats.pvalue {
                weakest = i;
            }
        }
        if cps[weakest].stats.pvalue < max_pvalue {
            weakest = 0;
            for (i, c) in cps.iter().enumerate().skip(1) {
                if c.stats.change_magnitude() < cps[weakest].stats.change_magnitude() {
                    weakest = i;
                }
            }
            if cps[weakest].stats.change_magnitude() > min_magnitude {
                return cps;
            }
        }
        cps.remove(weakest);
        let intervals = intervals(&cps, series.len());
        // As Otava: the points now at `weakest` and `weakest + 1` are recomputed.
        for k in [weakest, weakest + 1] {
            if k < cps.len() {
                let cand = Candidate {
                    index: cps[k].index,
                    qhat: cps[k].qhat,
                };
                cps[k] = change_point(cand, series, &intervals);
            }
        }
    }
    cps
}

/// `ChangePointDetector.get_change_points` on one window (indices relative to it).
fn detect(window: &[f64], max_pvalue: f64) -> Vec<ChangePoint> {
    let calc = PairDistance::new(window);
    let mut cps: Vec<ChangePoint> = Vec::new();
    loop {
        let ivs = intervals(&cps, window.len());
        let Some(cand) = calc.next_candidate(&ivs) else {
            break;
        };
        let cp = change_point(cand, window, &ivs);
        if cp.stats.pvalue <= max_pvalue {
            cps.push(cp);
            cps.sort_by_key(|c| c.index);
        } else {
            break;
        }
    }
    cps
}

/// `SignificanceTester.get_intervals`: the segments between sorted change points,
/// as half-open `(start, stop)` ranges (an open end is `len`).
fn intervals(cps: &[ChangePoint], len: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::with_capacity(cps.len() + 1);
    for i in 0..=cps.len() {
        let start = if i == 0 { 0 } else { cps[i - 1].index };
        let stop = if i == cps.len() {
            None
        } else {
            Some(cps[i].index)
        };
        if stop != Some(start) {
            out.push((start, stop.unwrap_or(len)));
        }
    }
    out
}

/// `TTestSignificanceTester.change_point`: a candidate inside an interval splits it
/// (split step); one at an interval's end compares it with the next (merge step).
fn change_point(cand: Candidate, series: &[f64], intervals: &[(usize, usize)]) -> ChangePoint {
    let mut sides = None;
    for (i, &(start, stop)) in intervals.iter().enumerate() {
        if stop == cand.index {
            let next = intervals.get(i + 1).map_or(stop..stop, |&(s, e)| s..e);
            sides = Some((start..stop, next));
            break;
        } else if start < cand.index && cand.index < stop {
            sides = Some((start..cand.index, cand.index..stop));
            break;
        }
    }
    // Callers only pass candidates that lie in or end an interval.
    let (left, right) = sides.unwrap_or((0..cand.index, cand.index..series.len()));
    ChangePoint {
        index: cand.index,
        qhat: cand.qhat,
        stats: ttest(&series[left], &series[right]),
    }
}

/// `TTestSignificanceTester.compare`: scipy's `ttest_ind_from_stats` (equal variances,
/// two-sided) on NumPy's mean and population standard deviation of each side.
fn ttest(left: &[f64], right: &[f64]) -> TTestStats {
    let (n1, n2) = (left.len(), right.len());
    let mean_1 = np_mean(left);
    let mean_2 = np_mean(right);
    let std_1 = if n1 >= 2 { np_std(left, mean_1) } else { 0.0 };
    let std_2 = if n2 >= 2 { np_std(right, mean_2) } else { 0.0 };
    let pvalue = if n1 + n2 > 2 {
        // scipy `_equal_var_ttest_denom`: a one-point side has variance 0.
        let v1 = if n1 == 1 { 0.0 } else { std_1 * std_1 };
        let v2 = if n2 == 1 { 0.0 } else { std_2 * std_2 };
        let (f1, f2) = (n1 as f64, n2 as f64);
        let df = f1 + f2 - 2.0;
        let svar = ((f1 - 1.0) * v1 + (f2 - 1.0) * v2) / df;
        let denom = (svar * (1.0 / f1 + 1.0 / f2)).sqrt();
        let t = (mean_1 - mean_2) / denom;
        2.0 * student_t_cdf(df, -t.abs())
    } else {
        1.0
    };
    TTestStats {
        mean_1,
        mean_2,
        std_1,
        std_2,
        pvalue,
    }
}

/// E-Divisive's Q̂ over every split of an interval (`PairDistanceCalculator`).
struct PairDistance {
    n: usize,
    /// |x_i − x_j| (power 1), row-major n×n.
    d: Vec<f64>,
    /// `V[j] = Σ_{i ≤ j} d[i][j+1]`.
    v: Vec<f64>,
    /// `H[i][j] = Σ_{t=i+1..=j+1} d[i][t]` (0 where j < i), row-major (n−1)×(n−1).
    h: Vec<f64>,
}

impl PairDistance {
    fn new(x: &[f64]) -> Self {
        let n = x.len();
        let mut d = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                d[i * n + j] = (x[i] - x[j]).abs();
            }
        }
        let m = n.saturating_sub(1);
        let mut v = vec![0.0; m];
        let mut h = vec![0.0; m * m];
        for i in 0..m {
            let mut acc = 0.0;
            for j in 0..m {
                let t = if j >= i { d[i * n + j + 1] } else { 0.0 };
                v[j] += t;
                acc += t;
                h[i * m + j] = acc;
            }
        }
        PairDistance { n, d, v, h }
    }

    /// `get_next_candidate`: the best candidate over intervals longer than one point.
    fn next_candidate(&self, intervals: &[(usize, usize)]) -> Option<Candidate> {
        let mut best: Option<Candidate> = None;
        for &(start, stop) in intervals {
            if stop - start > 1 {
                let c = self.candidate(start, stop);
                if best.is_none_or(|b| c.qhat > b.qhat) {
                    best = Some(c);
                }
            }
        }
        best
    }

    /// `_get_Q_vals` and its arg-max, for `series[start..end]`: Q = A − B − C with
    /// τ = start+1+i, κ = start+2+j, computed as NumPy does (see Otava's docstring).
    fn candidate(&self, start: usize, end: usize) -> Candidate {
        let (n, m) = (self.n, end - 1 - start);
        let hm = n - 1;
        // V restricted to the interval: V[start+k] − Σ_{r<start} d[r][start+1+k].
        let mut cum_v = vec![0.0; m];
        let mut acc = 0.0;
        for (k, c) in cum_v.iter_mut().enumerate() {
            let mut col = 0.0;
            for r in 0..start {
                col += self.d[r * n + start + 1 + k];
            }
            acc += self.v[start + k] - col;
            *c = acc;
        }
        let hw = |i: usize, j: usize| self.h[(start + i) * hm + start + j];
        // Column-wise cumulative sums of H from the top (A) and from the bottom (C).
        let mut cum_h = vec![0.0; m * m];
        for j in 0..m {
            let mut acc = 0.0;
            for i in 0..m {
                acc += hw(i, j);
                cum_h[i * m + j] = acc;
            }
        }
        let mut rev_h = vec![0.0; m * m];
        for j in 1..m {
            let mut acc = 0.0;
            for i in (0..m - 1).rev() {
                acc += hw(i + 1, j);
                rev_h[i * m + j] = acc;
            }
        }
        let mut best = Candidate {
            index: start + 1,
            qhat: f64::NEG_INFINITY,
        };
        let mut first = true;
        for i in 0..m {
            for j in 0..m {
                let a = if j >= i {
                    let prev = if i >= 1 { cum_v[i - 1] } else { 0.0 };
                    (2.0 / (j + 2) as f64) * (cum_h[i * m + j] - prev)
                } else {
                    0.0
                };
                let b = if i >= 1 && j >= i {
                    (2 * (j + 1 - i)) as f64 / ((j + 2) * i) as f64 * cum_v[i - 1]
                } else {
                    0.0
                };
                let c = if i + 1 < m && j > i {
                    (2 * (i + 1)) as f64 / ((j + 2) * (j - i)) as f64 * rev_h[i * m + j]
                } else {
                    0.0
                };
                let q = a - b - c;
                if first || q > best.qhat {
                    best = Candidate {
                        index: i + 1 + start,
                        qhat: q,
                    };
                    first = false;
                }
            }
        }
        best
    }
}

/// NumPy's `np.mean` on a contiguous float64 array: pairwise sum / n.
fn np_mean(x: &[f64]) -> f64 {
    pairwise_sum(x) / x.len() as f64
}

/// NumPy's `np.std` (ddof 0): sqrt(mean(|x − mean|²)).
fn np_std(x: &[f64], mean: f64) -> f64 {
    let sq: Vec<f64> = x.iter().map(|v| (v - mean) * (v - mean)).collect();
    (pairwise_sum(&sq) / x.len() as f64).sqrt()
}

/// NumPy's pairwise summation (`pairwise_sum` in `loops_utils.h.src`): plain loop
/// below 8 values, eight accumulators up to 128, halves (multiple of 8) above.
fn pairwise_sum(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        let mut res = 0.0;
        for v in a {
            res += v;
        }
        res
    } else if n <= 128 {
        let mut r = [0.0; 8];
        r.copy_from_slice(&a[..8]);
        let whole = n - n % 8;
        let mut i = 8;
        while i < whole {
            for k in 0..8 {
                r[k] += a[i + k];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for v in &a[whole..] {
            res += v;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise_sum(&a[..n2]) + pairwise_sum(&a[n2..])
    }
}

/// Student's t CDF, `scipy.special.stdtr(df, t)` for t ≤ 0:
/// ½·I_{df/(df+t²)}(df/2, ½) (Abramowitz & Stegun 26.7.1 with 26.5.27).
fn student_t_cdf(df: f64, t: f64) -> f64 {
    if t.is_nan() || df.is_nan() {
        return f64::NAN;
    }
    if t == f64::NEG_INFINITY {
        return 0.0;
    }
    if t == 0.0 {
        return 0.5;
    }
    let x = df / (df + t * t);
    0.5 * super::dist::incomplete_beta(df / 2.0, 0.5, x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn indices(series: &[f64]) -> Vec<usize> {
        compute_change_points(series, &Options::default())
            .unwrap()
            .iter()
            .map(|c| c.index)
            .collect()
    }

    /// A deterministic wobble (no RNG): ±1 around the level.
    fn wobble(i: usize) -> f64 {
        ((i * 7919) % 13) as f64 / 6.0 - 1.0
    }

    #[test]
    fn finds_a_clean_step() {
        let s: Vec<f64> = (0..60)
            .map(|i| if i < 30 { 100.0 } else { 120.0 } + wobble(i))
            .collect();
        assert_eq!(indices(&s), vec![30]);
        let cp = compute_change_points(&s, &Options::default()).unwrap()[0];
        assert!((cp.stats.mean_2 / cp.stats.mean_1 - 1.2).abs() < 0.01);
        assert!(cp.stats.pvalue < 1e-10);
    }

    #[test]
    fn flat_and_tiny_series_have_none() {
        let s: Vec<f64> = (0..80).map(|i| 50.0 + wobble(i)).collect();
        assert!(indices(&s).is_empty());
        assert!(indices(&[]).is_empty());
        assert!(indices(&[1.0]).is_empty());
        assert!(indices(&[1.0, 2.0]).is_empty());
    }

    #[test]
    fn t_distribution_matches_scipy() {
        // scipy.special.stdtr(10, -2.5) and stdtr(3, -10), printed by scipy 1.16
        assert!((student_t_cdf(10.0, -2.5) - 0.015_723_422_118_304_388).abs() < 1e-13);
        assert!((student_t_cdf(3.0, -10.0) - 0.001_064_199_529_207_074_7).abs() < 1e-13);
        assert!((student_t_cdf(1.0, -1.0) - 0.25).abs() < 1e-14);
    }

    #[test]
    fn pairwise_sum_matches_plain_sum_in_value() {
        let x: Vec<f64> = (0..300).map(|i| i as f64 * 0.5).collect();
        assert_eq!(pairwise_sum(&x), 22_425.0);
    }

    #[test]
    fn rejects_bad_options_and_values() {
        let bad = |o: Options| compute_change_points(&[1.0, 2.0], &o).unwrap_err();
        let d = Options::default();
        assert_eq!(
            bad(Options { window_len: 1, ..d }),
            ChangePointError::Window(1)
        );
        assert!(matches!(
            bad(Options {
                max_pvalue: 0.0,
                ..d
            }),
            ChangePointError::PValue(_)
        ));
        assert_eq!(
            compute_change_points(&[1.0, f64::NAN], &d).unwrap_err(),
            ChangePointError::NotFinite(1)
        );
    }
}
