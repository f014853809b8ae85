//! Yuen's trimmed t (the statistic of every cell's permutation test, and the gate's
//! standard error) side by side with SciPy's `ttest_ind(equal_var=False, trim=γ)`: the
//! same samples, at every trim the test can choose, must give the same t, degrees of
//! freedom and two-sided p. SciPy comes with apache-otava in the venv `.ci/run` builds.

use super::otava::otava_python;
use bench_db::stats::yuen::yuen;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use std::io::Write;
use std::process::{Command, Stdio};

const SCIPY: &str = r#"
import json, sys
from scipy import stats
job = json.load(sys.stdin)
out = []
for x, y, trim in job:
    r = stats.ttest_ind(x, y, equal_var=False, trim=trim)
    out.append([float(r.statistic), float(r.df), float(r.pvalue)])
print(json.dumps(out))
"#;

#[test]
fn yuen_matches_scipy() {
    let Some(python) = otava_python() else {
        return;
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let mut cases: Vec<(Vec<f64>, Vec<f64>, f64)> = Vec::new();
    for k in 0..60 {
        let (nx, ny) = (5 + k % 17, 5 + (k * 7) % 23);
        // Log-latency-like values with a slow tail: a few runs far out.
        let mut draw = |n: usize, shift: f64| -> Vec<f64> {
            (0..n)
                .map(|_| {
                    let u: f64 = rng.random();
                    let wild = if rng.random::<f64>() < 0.1 { 0.7 } else { 0.0 };
                    3.0 + shift + 0.05 * (u - 0.5) * 12f64.sqrt() + wild
                })
                .collect()
        };
        let x = draw(nx, 0.02 * (k % 5) as f64);
        let y = draw(ny, 0.0);
        cases.push((x, y, [0.0, 0.1, 0.2][k % 3]));
    }
    let job = serde_json::to_string(&cases).unwrap();
    let mut child = Command::new(&python)
        .args(["-c", SCIPY])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start python");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(job.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "scipy failed");
    let want: Vec<[f64; 3]> = serde_json::from_slice(&out.stdout).expect("scipy json");
    for ((x, y, trim), [t, df, p]) in cases.iter().zip(want) {
        let got = yuen(x, y, *trim).expect("two values a side after trimming");
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
        assert!(
            close(got.t, t) && close(got.df, df) && close(got.p_two_sided, p),
            "n {}/{} trim {trim}: ours t {} df {} p {}, scipy t {t} df {df} p {p}",
            x.len(),
            y.len(),
            got.t,
            got.df,
            got.p_two_sided
        );
    }
}
