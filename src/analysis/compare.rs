//! Before/after comparison: one cell per metric (and percentile) present on both sides,
//! with central values, the relative delta, a bootstrap CI, a p-value corrected across
//! the whole comparison, and a verdict.
//!
//! Methods:
//! - central value: median across runs for a ladder percentile; the percentile of the
//!   merged histogram for histograms (never an average of percentiles); the mean for
//!   time-series samples and single values;
//! - CI: percentile bootstrap of the relative change of that same estimator
//!   ([`crate::stats::bootstrap`]); for histograms, of the median of the runs' own values;
//! - test: an exact permutation test of the difference of means when the rearrangements
//!   can be enumerated, Welch's t-test beyond that ([`crate::stats::permutation`]), on log
//!   values when all are positive (raw values otherwise), after dropping each side's
//!   outliers by the modified z-score ([`crate::stats::outliers`]). Latencies are
//!   right-skewed and change multiplicatively: the log makes a shift symmetric; dropping
//!   the rare wild run (a GC pause, a noisy neighbour) keeps it from hiding a real shift,
//!   where a rank test (Mann-Whitney U) gives away power. The gate proof test
//!   (`gate_proof.rs`) measures the difference;
//! - family: Benjamini–Hochberg across every tested cell of one comparison. When nothing
//!   really changed (an A/A comparison) it bounds the chance of any false call at α exactly
//!   as Holm does (FDR = FWER under the global null; Benjamini & Hochberg 1995, §2), and
//!   when a change moves a whole ladder it does not divide α by the number of percentiles,
//!   which with the exact test's p-value floor would make 5 runs a side undecidable;
//! - verdict: `better`/`worse` when the adjusted p is below α and the CI excludes zero,
//!   `same` otherwise (and for 0 → 0), `insufficient` with fewer than two replicates a
//!   side (single values).

use super::polarity::{Kind, Polarity, kind, polarity};
use super::samples::{CellKey, Shape, SideCell, gather};
use crate::dataset::StoredRun;
use crate::stats::bootstrap::{Estimator, delta_pct_ci};
use crate::stats::correction::benjamini_hochberg;
use crate::stats::histogram;
use crate::stats::outliers::without_outliers;
use crate::stats::permutation::shift_test;
use crate::stats::variation::robust_cv_pct;
use serde::Serialize;
use std::collections::BTreeMap;

/// Knobs of a comparison.
#[derive(Debug, Clone)]
pub struct CompareOptions {
    /// Family-wise significance level.
    pub alpha: f64,
    /// Bootstrap resamples for the CI (0 = no CI).
    pub resamples: usize,
    /// Two-sided CI coverage.
    pub confidence: f64,
    /// Bootstrap seed (fixed, so output is reproducible).
    pub seed: u64,
    /// Per-metric polarity overrides.
    pub polarity: BTreeMap<String, Polarity>,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            alpha: 0.05,
            resamples: 2000,
            confidence: 0.95,
            seed: 0x5eed,
            polarity: BTreeMap::new(),
        }
    }
}

/// The verdict on one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Better,
    Worse,
    Same,
    Insufficient,
}

impl Verdict {
    /// The word printed for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Better => "better",
            Verdict::Worse => "worse",
            Verdict::Same => "same",
            Verdict::Insufficient => "insufficient",
        }
    }
}

/// One compared metric (and percentile).
#[derive(Debug, Clone)]
pub struct Cell {
    /// Suites of the runs behind the cell (joined with `+` when several).
    pub suite: String,
    pub metric: String,
    pub percentile: Option<f64>,
    pub unit: String,
    pub shape: Shape,
    pub kind: Kind,
    pub polarity: Polarity,
    /// Replicates per side (runs, or samples for a time series).
    pub n_baseline: usize,
    pub n_candidate: usize,
    pub baseline: Option<f64>,
    pub candidate: Option<f64>,
    /// `100·(candidate/baseline − 1)`; `None` when the baseline is 0.
    pub delta_pct: Option<f64>,
    pub ci_low_pct: Option<f64>,
    pub ci_high_pct: Option<f64>,
    /// Two-sided p-value, raw and after the Benjamini–Hochberg correction.
    pub p_value: Option<f64>,
    pub p_adjusted: Option<f64>,
    /// One-sided p-value for "the candidate is worse" (the gate's test).
    pub p_worse: Option<f64>,
    /// The smallest one-sided p-value the test can reach with these replicate counts
    /// (non-zero for the exact permutation test).
    pub p_floor: Option<f64>,
    /// Robust CV (%) of the baseline replicates: its own run-to-run (or sample) noise.
    pub noise_pct: Option<f64>,
    pub verdict: Verdict,
    pub baseline_values: Vec<f64>,
    pub candidate_values: Vec<f64>,
}

impl Cell {
    /// The change in the bad direction, in percent (positive = worse).
    pub fn worsening_pct(&self) -> Option<f64> {
        self.delta_pct.map(|d| match self.polarity {
            Polarity::Lower => d,
            Polarity::Higher => -d,
        })
    }

    /// `metric` or `metric@percentile`.
    pub fn name(&self) -> String {
        match self.percentile {
            Some(p) => format!("{}@{}", self.metric, fmt_percentile(p)),
            None => self.metric.clone(),
        }
    }
}

/// A percentile printed without trailing zeros (`99`, `99.9`).
pub fn fmt_percentile(p: f64) -> String {
    let s = format!("{p:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A p-value for people: four decimals, or `<0.0001`.
pub fn fmt_p(p: f64) -> String {
    if p < 1e-4 {
        "<0.0001".to_string()
    } else {
        format!("{p:.4}")
    }
}

/// Compares `candidate` against `baseline` on every cell present on both sides (only the
/// given `metrics` when not empty). Cells come sorted by metric, then percentile.
pub fn compare(
    baseline: &[StoredRun],
    candidate: &[StoredRun],
    metrics: &[String],
    opts: &CompareOptions,
) -> Vec<Cell> {
    let base = gather(baseline, metrics);
    let cand = gather(candidate, metrics);
    let mut cells: Vec<Cell> = base
        .iter()
        .filter_map(|(key, b)| Some(cell(key, b, cand.get(key)?, opts)))
        .collect();
    let tested: Vec<usize> = (0..cells.len())
        .filter(|&i| cells[i].p_value.is_some())
        .collect();
    let adjusted = benjamini_hochberg(
        &tested
            .iter()
            .map(|&i| cells[i].p_value.unwrap_or(1.0))
            .collect::<Vec<_>>(),
    );
    for (&i, adj) in tested.iter().zip(adjusted) {
        cells[i].p_adjusted = Some(adj);
    }
    for c in &mut cells {
        c.verdict = verdict(c, opts.alpha);
    }
    cells
}

fn cell(key: &CellKey, b: &SideCell, c: &SideCell, opts: &CompareOptions) -> Cell {
    let percentile = key.percentile();
    // Candidate values in the baseline's unit (time units convert; others must match).
    let cand_values: Vec<f64> = c
        .values
        .iter()
        .filter_map(|&v| super::units::convert(v, &c.unit, &b.unit))
        .collect();
    // Units that do not convert leave the candidate empty (verdict `insufficient`) and
    // show both units, so the mismatch is visible rather than silently compared.
    let unit = if cand_values.is_empty() && !c.values.is_empty() {
        format!("{}≠{}", b.unit, c.unit)
    } else {
        b.unit.clone()
    };
    let est = match b.shape {
        Shape::Ladder | Shape::Histogram => Estimator::Median,
        Shape::TimeSeries | Shape::Value => Estimator::Mean,
    };
    let central = |side: &SideCell, values: &[f64]| -> Option<f64> {
        if side.shape == Shape::Histogram {
            merged_percentile(side, percentile?)
                .and_then(|v| super::units::convert(v, &side.unit, &b.unit))
        } else {
            est.apply(values)
        }
    };
    let baseline = central(b, &b.values);
    let candidate = central(c, &cand_values);
    let delta_pct = match (baseline, candidate) {
        (Some(x), Some(y)) if x != 0.0 => Some(100.0 * (y / x - 1.0)),
        _ => None,
    };
    let ci = delta_pct_ci(
        &b.values,
        &cand_values,
        est,
        opts.resamples,
        opts.confidence,
        opts.seed,
    );
    let logs = b.values.iter().chain(&cand_values).all(|&v| v > 0.0);
    let tx = |v: &[f64]| -> Vec<f64> {
        if logs {
            v.iter().map(|x| x.ln()).collect()
        } else {
            v.to_vec()
        }
    };
    let test = shift_test(
        &without_outliers(&tx(&cand_values)),
        &without_outliers(&tx(&b.values)),
    );
    let pol = opts
        .polarity
        .get(&key.metric)
        .copied()
        .unwrap_or_else(|| polarity(&key.metric, &b.unit));
    let suites: std::collections::BTreeSet<&String> = b.suites.iter().chain(&c.suites).collect();
    Cell {
        suite: suites
            .into_iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join("+"),
        metric: key.metric.clone(),
        percentile,
        unit,
        shape: b.shape,
        kind: kind(
            &key.metric,
            &b.unit,
            matches!(b.shape, Shape::Ladder | Shape::Histogram),
        ),
        polarity: pol,
        n_baseline: b.values.len(),
        n_candidate: cand_values.len(),
        baseline,
        candidate,
        delta_pct,
        ci_low_pct: ci.map(|c| c.0),
        ci_high_pct: ci.map(|c| c.1),
        p_value: test.map(|t| t.p_two_sided),
        p_adjusted: None,
        p_worse: test.map(|t| match pol {
            Polarity::Lower => t.p_greater,
            Polarity::Higher => t.p_less,
        }),
        p_floor: test.map(|t| t.p_floor),
        noise_pct: robust_cv_pct(&b.values),
        verdict: Verdict::Insufficient,
        baseline_values: b.values.clone(),
        candidate_values: cand_values,
    }
}

/// The percentile of one side's merged histograms, in the side's unit.
fn merged_percentile(side: &SideCell, percentile: f64) -> Option<f64> {
    let scale = side.histograms.first()?.0;
    let merged = histogram::merge(
        side.histograms
            .iter()
            .flat_map(|(_, iv)| iv.iter().map(|i| &i.encoded)),
    )?;
    Some(histogram::value_at(&merged, percentile) * scale)
}

fn verdict(c: &Cell, alpha: f64) -> Verdict {
    // 0 → 0 has no relative delta and nothing to test: the same, whatever the counts.
    if c.baseline == Some(0.0) && c.candidate == Some(0.0) {
        return Verdict::Same;
    }
    if c.n_baseline < 2 || c.n_candidate < 2 {
        return Verdict::Insufficient;
    }
    let (Some(p), Some(delta)) = (c.p_adjusted, c.delta_pct) else {
        return Verdict::Insufficient;
    };
    let ci_excludes_zero = match (c.ci_low_pct, c.ci_high_pct) {
        (Some(lo), Some(hi)) => lo > 0.0 || hi < 0.0,
        _ => false,
    };
    if p < alpha && ci_excludes_zero {
        let improved = match c.polarity {
            Polarity::Lower => delta < 0.0,
            Polarity::Higher => delta > 0.0,
        };
        if improved {
            Verdict::Better
        } else {
            Verdict::Worse
        }
    } else {
        Verdict::Same
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::testdata::*;
    use bench_db_parsers::Series;

    fn find<'a>(cells: &'a [Cell], metric: &str) -> &'a Cell {
        cells.iter().find(|c| c.metric == metric).unwrap()
    }

    fn round2(v: Option<f64>) -> f64 {
        (v.unwrap() * 100.0).round() / 100.0
    }

    #[test]
    fn seed_003_patch_block_as_candidate() {
        let cells = compare(
            &seed003_master(),
            &seed003_patch(),
            &[],
            &CompareOptions::default(),
        );
        let rt = find(&cells, "ts.rt");
        assert!((rt.baseline.unwrap() - 3.388).abs() < 1e-9);
        assert!((rt.candidate.unwrap() - 2.961_818).abs() < 1e-6);
        assert_eq!(round2(rt.delta_pct), -12.58);
        assert_eq!(rt.verdict, Verdict::Better);
        assert!(rt.p_adjusted.unwrap() < 0.001, "{rt:?}");
        assert!(rt.ci_high_pct.unwrap() < 0.0);
        let cpu = find(&cells, "cpu.util");
        assert_eq!(round2(cpu.baseline), 68.36);
        assert_eq!(round2(cpu.candidate), 70.08);
        assert_eq!(round2(cpu.delta_pct), 2.51);
        assert_eq!(cpu.verdict, Verdict::Worse);
        assert!(cpu.p_adjusted.unwrap() < 0.001);
        // Little's law: 92.0K/s × 3.388 ms ≈ 319 requests in flight before the patch.
        let l = find(&cells, "ts.concurrency");
        assert!(
            l.baseline.unwrap() > 300.0 && l.baseline.unwrap() < 330.0,
            "{l:?}"
        );
        assert_eq!(l.verdict, Verdict::Better);
        // Every cell of the family is adjusted.
        assert!(cells.iter().all(|c| c.p_adjusted >= c.p_value));
    }

    #[test]
    fn seed_004_single_values_give_a_delta_only() {
        let cells = compare(
            &seed004_before(),
            &seed004_after(),
            &["latency_avg".to_string()],
            &CompareOptions::default(),
        );
        assert_eq!(cells.len(), 1);
        let c = &cells[0];
        assert_eq!(round2(c.baseline), 8.88);
        assert_eq!(round2(c.candidate), 2.45);
        assert_eq!(round2(c.delta_pct), -72.41);
        assert_eq!(c.verdict, Verdict::Insufficient);
        assert_eq!(c.p_value, None);
        let zero = |id| {
            stored(
                id,
                "arthas",
                "z",
                vec![Series::value("errors", "", Some(0.0))],
            )
        };
        let cells = compare(&[zero(1)], &[zero(2)], &[], &CompareOptions::default());
        assert_eq!(
            (cells[0].delta_pct, cells[0].verdict),
            (None, Verdict::Same)
        );
    }

    #[test]
    fn seed_002_tcp_against_the_default_transport() {
        let cells = compare(
            &seed002_default(),
            &seed002_tcp(),
            &[],
            &CompareOptions::default(),
        );
        let c = find(&cells, "msgs_per_sec");
        assert_eq!(c.polarity, Polarity::Higher);
        assert_eq!(c.baseline, Some(13252.0));
        assert_eq!(c.candidate, Some(13467.0));
        assert_eq!(round2(c.delta_pct), 1.62);
        assert_eq!(c.n_baseline, 4);
        // Every TCP run beats every default run: exact p = 2/C(8,4) = 2/70.
        assert!((c.p_value.unwrap() - 2.0 / 70.0).abs() < 1e-12, "{c:?}");
        assert_eq!(c.p_floor, Some(1.0 / 70.0));
        assert_eq!(c.verdict, Verdict::Better);
    }

    #[test]
    fn identical_sides_are_the_same() {
        let runs = seed003_master();
        let cells = compare(&runs, &runs, &[], &CompareOptions::default());
        assert!(!cells.is_empty());
        for c in &cells {
            assert_eq!(c.delta_pct, Some(0.0), "{c:?}");
            assert_eq!(c.verdict, Verdict::Same, "{c:?}");
        }
    }

    #[test]
    fn histograms_compare_merged_percentiles_not_averages() {
        use bench_db_parsers::{Data, HistInterval, LadderPoint, Series};
        use hdrhistogram::Histogram;
        use hdrhistogram::serialization::{Serializer, V2Serializer};
        let run = |id: i64, lo: u64| {
            let mut h = Histogram::<u64>::new(3).unwrap();
            for v in lo..lo + 100 {
                h.record(v).unwrap();
            }
            let mut encoded = Vec::new();
            V2Serializer::new().serialize(&h, &mut encoded).unwrap();
            let point = |p: f64| LadderPoint {
                percentile: p,
                value: Some(h.value_at_percentile(p) as f64),
                line_value: None,
            };
            let data = Data::Histogram {
                intervals: vec![HistInterval {
                    t: None,
                    duration: None,
                    tag: None,
                    encoded,
                }],
                count: Some(100),
                points: vec![point(50.0), point(100.0)],
            };
            stored(
                id,
                "hlog",
                "h",
                vec![Series::new("latency", "latency", "us", data)],
            )
        };
        let base = vec![run(1, 100), run(2, 1000)];
        let cand = vec![run(3, 100), run(4, 1000)];
        let cells = compare(&base, &cand, &[], &CompareOptions::default());
        let p50 = cells.iter().find(|c| c.percentile == Some(50.0)).unwrap();
        assert_eq!(p50.shape, Shape::Histogram);
        // The merged 200 values have their median at 199; the median of the two runs'
        // own medians would be (149 + 1049) / 2 = 599.
        assert_eq!(p50.baseline, Some(199.0));
        assert_eq!(p50.delta_pct, Some(0.0));
        assert_eq!(p50.verdict, Verdict::Same);
    }

    #[test]
    fn time_units_convert_before_comparing() {
        let base = ladder_runs("end_to_end", "us", &[(99.0, &[100.0, 110.0, 105.0])], 1);
        let cand = ladder_runs("end_to_end", "ms", &[(99.0, &[0.1, 0.11, 0.105])], 10);
        let cells = compare(&base, &cand, &[], &CompareOptions::default());
        assert_eq!(cells.len(), 1);
        assert!(cells[0].delta_pct.unwrap().abs() < 1e-9);
        assert_eq!(cells[0].percentile, Some(99.0));
        assert_eq!(cells[0].name(), "end_to_end@99");
        let pct = ladder_runs("end_to_end", "%", &[(99.0, &[1.0, 2.0])], 20);
        let cells = compare(&base, &pct, &[], &CompareOptions::default());
        assert_eq!(cells[0].unit, "us≠%");
        assert_eq!(cells[0].verdict, Verdict::Insufficient);
    }
}
