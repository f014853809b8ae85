//! Distribution functions the tests need: the standard normal and Student's t CDFs.
//!
//! Hand-written because no maintained dependency of the workspace provides CDFs
//! (`rand_distr` only samples); the algorithms are the classic ones cited below.

/// Standard normal CDF Φ(z), from `erfc`.
pub fn normal_cdf(z: f64) -> f64 {
    0.5 * erfc(-z / std::f64::consts::SQRT_2)
}

/// Complementary error function with fractional error below 1.2e-7 everywhere:
/// Numerical Recipes in C, 2nd ed. (1992), §6.2, `erfcc` (Chebyshev fit).
pub fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

/// Regularized incomplete beta I_x(a, b) by the continued fraction of Numerical
/// Recipes (3rd ed., §6.4, modified Lentz) iterated to full double precision: the
/// change-point port must match scipy's t-test p-values near its 0.001 threshold.
pub fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    let front = ln_front.exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_cf(a, b, x) / a
    } else {
        1.0 - front * beta_cf(b, a, 1.0 - x) / b
    }
}

fn beta_cf(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..10_000 {
        let m = m as f64;
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() <= f64::EPSILON {
            break;
        }
    }
    h
}

/// ln Γ(x) for x ≥ ½: Lanczos approximation, g = 7, nine coefficients (relative error
/// below 1e-15), as in Press et al. and Boost's reference tables.
pub fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    let x = x - 1.0;
    let mut a = C[0];
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    let t = x + G + 0.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// Upper tail P(T > t) of Student's t with `df` (real, > 0) degrees of freedom:
/// P(|T| > |t|) = I_{df/(df+t²)}(df/2, 1/2) (Abramowitz & Stegun 26.7.1 with 26.5.27).
pub fn student_t_sf(t: f64, df: f64) -> f64 {
    if t.is_nan() || df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    if t.is_infinite() {
        return if t > 0.0 { 0.0 } else { 1.0 };
    }
    let two_sided = incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
    if t >= 0.0 {
        two_sided / 2.0
    } else {
        1.0 - two_sided / 2.0
    }
}

/// Quantile of Student's t: the t with P(T ≤ t) = `q`, by bisection on
/// [`student_t_sf`] (monotone; 200 halvings reach the f64 resolution).
pub fn student_t_quantile(q: f64, df: f64) -> f64 {
    if !(q > 0.0 && q < 1.0) || df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    let (mut lo, mut hi) = (-1e6, 1e6);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if 1.0 - student_t_sf(mid, df) < q {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo < 1e-12 * mid.abs().max(1.0) {
            break;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_cdf_matches_tables() {
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-7);
        assert!((normal_cdf(1.959_964) - 0.975).abs() < 1e-6);
        assert!((normal_cdf(-2.575_829) - 0.005).abs() < 1e-6);
    }

    #[test]
    fn student_t_matches_tables() {
        // t(0.975; 10) = 2.228139, t(0.995; 3) = 5.840909 (Student's t table).
        assert!((student_t_sf(2.228_139, 10.0) - 0.025).abs() < 1e-6);
        assert!((student_t_sf(5.840_909, 3.0) - 0.005).abs() < 1e-6);
        assert!((student_t_sf(-2.228_139, 10.0) - 0.975).abs() < 1e-6);
        // Large df tends to the normal.
        assert!((student_t_sf(1.959_964, 1e7) - 0.025).abs() < 1e-5);
        assert!((student_t_quantile(0.975, 10.0) - 2.228_139).abs() < 1e-5);
        assert!((student_t_quantile(0.005, 3.0) + 5.840_909).abs() < 1e-4);
    }
}
