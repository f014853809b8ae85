//! Change points side by side with Apache Otava 0.8: the same generated series go
//! through `otava.analysis.compute_change_points` (Python, from PyPI, in the venv that
//! `.ci/run` builds and names in `$OTAVA_PYTHON`) and through our port; the indices
//! must be identical and the p-values equal to rounding.

use bench_db::stats::change_point::{Options, compute_change_points};
use std::io::Write;
use std::process::{Command, Stdio};

/// Runs Otava on every series; one `[[index, pvalue], …]` per series.
const OTAVA: &str = r#"
import json, sys
from otava.analysis import compute_change_points
job = json.load(sys.stdin)
out = []
for s in job["series"]:
    cps, _ = compute_change_points(list(s), window_len=job["window"], max_pvalue=job["p"],
                                   min_magnitude=job["magnitude"])
    out.append([[int(c.index), float(c.stats.pvalue)] for c in cps])
print(json.dumps(out))
"#;

/// The interpreter with apache-otava installed, or `None` (skip) outside CI.
pub fn otava_python() -> Option<String> {
    match std::env::var("OTAVA_PYTHON") {
        Ok(p) if std::path::Path::new(&p).exists() => Some(p),
        _ if std::env::var_os("CI").is_some() => {
            panic!("CI is set but $OTAVA_PYTHON does not name a Python with apache-otava 0.8")
        }
        _ => {
            eprintln!("skipping: $OTAVA_PYTHON (a Python with apache-otava==0.8.0) is not set");
            None
        }
    }
}

/// Otava's change points (index, p-value) for each series.
pub fn otava(python: &str, series: &[Vec<f64>], opts: &Options) -> Vec<Vec<(usize, f64)>> {
    let job = serde_json::json!({
        "series": series,
        "window": opts.window_len,
        "p": opts.max_pvalue,
        "magnitude": opts.min_magnitude,
    });
    let mut child = Command::new(python)
        .args(["-c", OTAVA])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start python");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(job.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "otava failed");
    serde_json::from_slice(&out.stdout).expect("otava json")
}

/// xorshift64* with Box–Muller: reproducible noise without depending on a crate's stream.
pub struct Noise(u64);

impl Noise {
    pub fn new(seed: u64) -> Noise {
        Noise(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn uniform(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D);
        ((x >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }
    pub fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
    /// Student t with 2 degrees of freedom: heavy tails, infinite variance.
    pub fn heavy(&mut self) -> f64 {
        let z = self.normal();
        let chi2 = self.normal().powi(2) + self.normal().powi(2);
        z / (chi2 / 2.0).sqrt()
    }
}

/// Piecewise-constant levels `(from_index, level)` plus noise of scale `sd`.
pub fn steps(n: usize, levels: &[(usize, f64)], sd: f64, noise: &mut Noise) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let level = levels
                .iter()
                .rev()
                .find(|(from, _)| i >= *from)
                .map_or(0.0, |l| l.1);
            level + sd * noise.normal()
        })
        .collect()
}

/// The generated family: steps up and down, several steps, small steps, drift then a
/// step, flat heavy-tailed noise, series shorter than the window, long series.
pub fn family() -> Vec<Vec<f64>> {
    let mut out = Vec::new();
    let mut z = Noise::new(12);
    out.push(steps(120, &[(0, 100.0), (60, 110.0)], 2.0, &mut z)); // step up
    out.push(steps(80, &[(0, 200.0), (35, 170.0)], 4.0, &mut z)); // step down
    out.push(steps(
        200,
        &[(0, 100.0), (50, 115.0), (100, 105.0), (150, 130.0)],
        3.0,
        &mut z,
    )); // several steps
    out.push(steps(150, &[(0, 100.0), (75, 101.5)], 1.0, &mut z)); // small step
    out.push(steps(
        160,
        &[(0, 50.0), (40, 50.6), (80, 51.2), (120, 50.6)],
        1.0,
        &mut z,
    )); // several small steps
    let drift: Vec<f64> = (0..160)
        .map(|i| {
            let base = if i < 100 {
                100.0 + i as f64 * 0.1
            } else {
                125.0
            };
            base + 1.5 * z.normal()
        })
        .collect();
    out.push(drift); // drift then a step
    out.push((0..150).map(|_| 80.0 + 2.0 * z.heavy()).collect()); // flat heavy tails
    out.push((0..300).map(|_| 1_000.0 + 50.0 * z.heavy()).collect()); // long heavy tails
    out.push(steps(30, &[(0, 10.0), (15, 14.0)], 0.5, &mut z)); // shorter than the window
    out.push(steps(20, &[(0, 10.0)], 0.5, &mut z)); // short and flat
    out.push(steps(100, &[(0, 10.0), (95, 13.0)], 0.5, &mut z)); // step at the very end
    out.push(steps(
        320,
        &[
            (0, 100.0),
            (40, 97.0),
            (90, 103.0),
            (140, 99.0),
            (200, 108.0),
            (260, 104.0),
        ],
        2.0,
        &mut z,
    )); // many steps, long
    let lognormal: Vec<f64> = (0..130)
        .map(|i| {
            let mu = if i < 70 { 4.0 } else { 4.15 };
            (mu + 0.1 * z.normal()).exp()
        })
        .collect();
    out.push(lognormal); // latency-like, multiplicative step
    let bimodal: Vec<f64> = (0..140)
        .map(|i| {
            let mode = if (i * 37) % 5 < 2 { 20.0 } else { 0.0 };
            100.0 + mode + z.normal()
        })
        .collect();
    out.push(bimodal); // flat, bimodal
    // Steps near the detection limit, where p-values sit close to the thresholds.
    for seed in 0..16u64 {
        let mut z = Noise::new(100 + seed);
        let n = 60 + (seed as usize * 17) % 140;
        let at = n / 3 + (seed as usize * 5) % (n / 3);
        let size = 0.4 + 0.1 * (seed % 6) as f64;
        out.push(steps(n, &[(0, 20.0), (at, 20.0 + size)], 1.0, &mut z));
    }
    out
}

/// Asserts identical indices and p-values equal to rounding; returns how many points.
fn assert_same(python: &str, series: &[Vec<f64>], opts: &Options) -> usize {
    let reference = otava(python, series, opts);
    assert_eq!(reference.len(), series.len());
    let mut found = 0;
    for (k, (s, want)) in series.iter().zip(&reference).enumerate() {
        let got = compute_change_points(s, opts).unwrap();
        let got_idx: Vec<usize> = got.iter().map(|c| c.index).collect();
        let want_idx: Vec<usize> = want.iter().map(|c| c.0).collect();
        assert_eq!(
            got_idx,
            want_idx,
            "series {k} (length {}), {opts:?}",
            s.len()
        );
        for (g, w) in got.iter().zip(want) {
            let rel = (g.stats.pvalue - w.1).abs() / w.1.max(1e-300);
            assert!(
                rel < 1e-9 || (g.stats.pvalue - w.1).abs() < 1e-300,
                "series {k} index {}: p {} vs Otava {}",
                g.index,
                g.stats.pvalue,
                w.1
            );
        }
        found += got.len();
    }
    found
}

#[test]
fn change_points_match_apache_otava() {
    let Some(python) = otava_python() else {
        return;
    };
    let series = family();
    let found = assert_same(&python, &series, &Options::default());
    // The family is not degenerate: there are change points to agree on.
    assert!(found >= 15, "only {found} change points in the family");
    // Other windows, levels and a magnitude floor (the merge's second criterion).
    for opts in [
        Options {
            window_len: 20,
            max_pvalue: 0.01,
            min_magnitude: 0.0,
        },
        Options {
            window_len: 50,
            max_pvalue: 0.001,
            min_magnitude: 0.05,
        },
        Options {
            window_len: 7,
            max_pvalue: 0.1,
            min_magnitude: 0.01,
        },
    ] {
        assert_same(&python, &series, &opts);
    }
}
