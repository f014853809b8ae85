//! `calibrate`: the false-alarm rate of a gate policy on the user's own stored runs, and
//! the smallest shift it detects given their noise. Pure: runs in, numbers out.
//!
//! Method: runs are grouped as the gate pools them, by benchmark (suite, bench,
//! configuration, given label; the log files of one commit are one group), and after the
//! warm-up rule each group is split `trials` times with a fixed seed into a
//! pseudo-baseline and a pseudo-candidate that the gate judges. The split follows the
//! replicates the gate would test ([`SplitBy`]): in a CI history (at least 3 tagged
//! commits) one commit against the others, as the CI gate judges a commit against main;
//! else halves of the invocations (at least 4), else halves of the runs (sizes ⌊n/2⌋ and
//! ⌈n/2⌉). Nothing changed between the sides, so every regression is a false alarm. Rates
//! come with a 95% Wilson score interval (Wilson 1927, *JASA* 22:209–212).
//!
//! Smallest detectable shift (80% power, one-sided at the policy's α, per cell before the
//! family correction): a log shift d = (t₁₋α + t₀.₈)·s·√(1/n₁ + 1/n₂) with n₁ + n₂ − 2
//! degrees of freedom, s the standard deviation of the cell's log values across the
//! group's replicates (runs, or invocations' centres when whole invocations are split; with
//! one invocation on the candidate side this is the t prediction the gate uses) (the normal-theory power of the t-test the permutation test approximates;
//! Lehmann 1975, §2.4), in the worsening direction: a rise of 100·(eᵈ − 1)% for a
//! lower-is-better metric, a fall of 100·(e⁻ᵈ − 1)% for a higher-is-better one; its
//! magnitude at least the threshold and the noise floor the gate also requires; `None`
//! when the halves cannot reach α at all (C(n, n₁) < 1/α), a fall would have to reach
//! 100%, or the cell is not gated.

use super::compare::{CompareOptions, centre};
use super::gate::{GateError, Outcome, Policy, Status, gate};
use super::polarity::Polarity;
use super::samples::{Axis, CellKey, Identity, gather_per_run};
use crate::dataset::StoredRun;
use crate::stats::describe::{mean, variance};
use crate::stats::dist::student_t_quantile;
use crate::stats::shift::choose;
use crate::stats::variation::robust_cv_pct;
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::SliceRandom;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// What a group is split into, as the gate would group its replicates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SplitBy {
    /// One tagged commit against the others (a CI history).
    Commits,
    /// Halves of the invocations (one process's output each).
    Invocations,
    /// Halves of the runs.
    Runs,
}

/// Commits a group needs to be split as a CI history.
const MIN_COMMITS: usize = 3;
/// Invocations a group needs to be split into halves of invocations (2 a side).
const MIN_INVOCATIONS: usize = 4;

/// One gated cell's calibration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CellRate {
    pub suite: String,
    /// The given label (`""` when none was given: log file names are pooled).
    pub label: String,
    /// The benchmark (`null` when the format names none).
    pub bench: Option<String>,
    /// Its configuration.
    pub config: BTreeMap<String, String>,
    /// What the group was split into.
    pub split_by: SplitBy,
    pub metric: String,
    pub percentile: Option<f64>,
    pub trials: usize,
    pub alarms: usize,
    /// Fraction of splits where this cell regressed (0–1).
    pub alarm_rate: f64,
    pub alarm_ci_low: f64,
    pub alarm_ci_high: f64,
    /// The better direction the gate judged the cell by.
    pub polarity: Polarity,
    /// Smallest worsening (percent change, signed: negative for a higher-is-better
    /// metric) detected with 80% power.
    pub mde_pct: Option<f64>,
}

/// A group that could not be split.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skipped {
    pub suite: String,
    pub label: String,
    /// The benchmark (`null` when the format names none).
    pub bench: Option<String>,
    /// Its configuration.
    pub config: BTreeMap<String, String>,
    /// Measured runs (after the warm-up rule, where it applies).
    pub runs: usize,
    pub reason: String,
}

/// The whole calibration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Calibration {
    /// Splits judged, over all groups.
    pub trials: usize,
    /// Splits where the gate's outcome was a regression.
    pub alarms: usize,
    pub alarm_rate: f64,
    pub alarm_ci_low: f64,
    pub alarm_ci_high: f64,
    pub alpha: f64,
    pub cells: Vec<CellRate>,
    pub skipped: Vec<Skipped>,
}

/// 95% Wilson score interval of `k` successes in `n`.
pub fn wilson(k: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = 1.959_963_984_540_054_f64;
    let (nf, p) = (n as f64, k as f64 / n as f64);
    let denom = 1.0 + z * z / nf;
    let center = (p + z * z / (2.0 * nf)) / denom;
    let half = z * (p * (1.0 - p) / nf + z * z / (4.0 * nf * nf)).sqrt() / denom;
    // k = 0 (k = n) has its lower (upper) bound at 0 (1) exactly; rounding would not.
    let lo = if k == 0 {
        0.0
    } else {
        (center - half).max(0.0)
    };
    let hi = if k == n {
        1.0
    } else {
        (center + half).min(1.0)
    };
    (lo, hi)
}

/// Items grouped by `key`, groups in order of their first item (one look-up per item,
/// however many groups).
fn grouped<T, K: std::hash::Hash + Eq>(
    items: impl IntoIterator<Item = T>,
    key: impl Fn(&T) -> K,
) -> Vec<Vec<T>> {
    let mut index: HashMap<K, usize> = HashMap::new();
    let mut out: Vec<Vec<T>> = Vec::new();
    for item in items {
        let i = *index.entry(key(&item)).or_insert_with(|| {
            out.push(Vec::new());
            out.len() - 1
        });
        out[i].push(item);
    }
    out
}

/// Groups (the gate's cells less metric and percentile) in order of their first run.
fn groups(runs: &[StoredRun]) -> Vec<Vec<StoredRun>> {
    let axis = Axis::default();
    grouped(runs.iter().cloned(), |r| axis.identity(r))
}

/// A group's units (indices into its measured runs) and what they are: per commit when
/// every run is tagged with one of at least [`MIN_COMMITS`] commits, else per invocation
/// when there are at least [`MIN_INVOCATIONS`], else per run.
fn units(measured: &[StoredRun]) -> (SplitBy, Vec<Vec<usize>>) {
    if measured.iter().all(|r| r.run.tags.contains_key("commit")) {
        let u = grouped(0..measured.len(), |&i| measured[i].run.tags.get("commit"));
        if u.len() >= MIN_COMMITS {
            return (SplitBy::Commits, u);
        }
    }
    let u = grouped(0..measured.len(), |&i| measured[i].invocation());
    if u.len() >= MIN_INVOCATIONS {
        return (SplitBy::Invocations, u);
    }
    (
        SplitBy::Runs,
        (0..measured.len()).map(|i| vec![i]).collect(),
    )
}

/// Per invocation of `runs`, each cell's centre ([`centre`]: the replicate a test of
/// whole invocations uses) over the means of its runs' values.
fn invocation_centres(runs: &[StoredRun]) -> Vec<BTreeMap<CellKey, f64>> {
    let per_run = gather_per_run(runs, &[], &Axis::default());
    grouped(0..runs.len(), |&i| runs[i].invocation())
        .into_iter()
        .map(|inv| {
            let mut values: BTreeMap<CellKey, Vec<f64>> = BTreeMap::new();
            for i in inv {
                for (k, s) in &per_run[i] {
                    if let Some(v) = mean(&s.values) {
                        values.entry(k.clone()).or_default().push(v);
                    }
                }
            }
            values
                .into_iter()
                .map(|(k, v)| {
                    let positive = v.iter().all(|x| *x > 0.0);
                    (k, centre(&v, positive))
                })
                .filter(|(_, c)| c.is_finite())
                .collect()
        })
        .collect()
}

/// Calibrates `policy` on `runs` (see the module doc).
pub fn calibrate(
    runs: &[StoredRun],
    policy: &Policy,
    trials: usize,
    include_first: bool,
    seed: u64,
) -> Result<Calibration, GateError> {
    let opts = CompareOptions {
        interval: false,
        include_first: true,
        ..CompareOptions::default()
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let (mut total, mut alarms) = (0usize, 0usize);
    let mut cells: Vec<CellRate> = Vec::new();
    let mut skipped = Vec::new();
    // The terms that named something in some group, and the metrics the groups hold.
    let (mut named, mut present) = (
        std::collections::HashSet::new(),
        std::collections::BTreeSet::new(),
    );
    for group in groups(runs) {
        let measured = super::warmup::measured(&group, include_first);
        let first = &group[0];
        let suite = first.suite.clone();
        let label = first.given_label().unwrap_or_default().to_string();
        let (split_by, units) = units(&measured);
        if units.len() < MIN_INVOCATIONS && split_by == SplitBy::Runs {
            let reason = if measured.len() < group.len() {
                "fewer than 4 runs after the warm-up rule left out run 1: no two halves of 2"
            } else {
                "fewer than 4 runs: no two halves of 2"
            };
            skipped.push(Skipped {
                suite,
                label,
                bench: first.run.bench.clone(),
                config: first
                    .run
                    .config_params()
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                runs: measured.len(),
                reason: reason.into(),
            });
            continue;
        }
        let mut counts: BTreeMap<CellKey, (usize, Option<f64>, Polarity)> = BTreeMap::new();
        let mut order: Vec<usize> = (0..units.len()).collect();
        let mut judged = 0;
        let n1 = match split_by {
            SplitBy::Commits => units.len() - 1,
            _ => units.len() / 2,
        };
        // The terms naming something in this group: a term naming nothing here may name
        // something in another group, and leaves this group's other terms to apply.
        let mut group_policy = policy.clone();
        for _ in 0..trials {
            order.shuffle(&mut rng);
            let pick = |ix: &[usize]| {
                ix.iter()
                    .flat_map(|&u| units[u].iter().map(|&i| measured[i].clone()))
                    .collect::<Vec<_>>()
            };
            let (base, cand) = (pick(&order[..n1]), pick(&order[n1..]));
            let report = loop {
                match gate(&base, &cand, &group_policy, &opts) {
                    Ok(r) => break Some(r),
                    Err(GateError::UnknownTarget { term, .. }) => {
                        group_policy.terms.retain(|t| t.text != term);
                        // With none left the policy would gate by its defaults instead.
                        if group_policy.terms.is_empty() {
                            break None;
                        }
                    }
                    Err(e) => return Err(e),
                }
            };
            let Some(report) = report else { break };
            if judged == 0 {
                named.extend(group_policy.terms.iter().map(|t| t.text.clone()));
                present.extend(report.cells.iter().map(|c| c.cell.metric.clone()));
            }
            judged += 1;
            if report.outcome == Outcome::Regression {
                alarms += 1;
            }
            for c in report.gated() {
                let identity = Identity {
                    suite: c.cell.suite.clone(),
                    bench: c.cell.bench.clone(),
                    config: c.cell.config.clone(),
                    label: c.cell.label.clone(),
                };
                let key = CellKey::new(&identity, &c.cell.metric, c.cell.percentile);
                let e = counts
                    .entry(key)
                    .or_insert((0, c.threshold_pct, c.cell.polarity));
                if c.status == Status::Regression {
                    e.0 += 1;
                }
            }
        }
        total += judged;
        // The replicates the split tests, and how many fall on each side.
        let (per_replicate, sizes): (Vec<BTreeMap<CellKey, f64>>, (usize, usize)) = if split_by
            == SplitBy::Runs
        {
            let per_run = gather_per_run(&measured, &[], &Axis::default())
                .into_iter()
                .map(|m| {
                    m.into_iter()
                        .filter_map(|(k, s)| Some((k, crate::stats::describe::mean(&s.values)?)))
                        .collect()
                })
                .collect();
            (per_run, (n1, measured.len() - n1))
        } else {
            let centres = invocation_centres(&measured);
            // Invocations per unit: the candidate side holds one unit (a commit) or
            // the larger half.
            let k = centres.len();
            let per_unit = k as f64 / units.len() as f64;
            let n2 = ((units.len() - n1) as f64 * per_unit).round().max(1.0) as usize;
            (centres, (k.saturating_sub(n2), n2))
        };
        for (key, (k, threshold, polarity)) in counts {
            let values: Vec<f64> = per_replicate
                .iter()
                .filter_map(|m| m.get(&key).copied())
                .collect();
            let (lo, hi) = wilson(k, judged);
            cells.push(CellRate {
                suite: suite.clone(),
                label: label.clone(),
                bench: key.identity.bench.clone(),
                config: key.identity.config.iter().cloned().collect(),
                split_by,
                metric: key.metric.clone(),
                percentile: key.percentile(),
                trials: judged,
                alarms: k,
                alarm_rate: k as f64 / judged.max(1) as f64,
                alarm_ci_low: lo,
                alarm_ci_high: hi,
                polarity,
                mde_pct: threshold
                    .and_then(|t| mde_pct(&values, sizes.0, sizes.1, policy, t, polarity)),
            });
        }
    }
    if let Some(t) = policy.terms.iter().find(|t| !named.contains(&t.text)) {
        return Err(GateError::UnknownTarget {
            term: t.text.clone(),
            present: if present.is_empty() {
                "nothing in any group that could be split".to_string()
            } else {
                present.into_iter().collect::<Vec<_>>().join(", ")
            },
        });
    }
    let (lo, hi) = wilson(alarms, total);
    Ok(Calibration {
        trials: total,
        alarms,
        alarm_rate: alarms as f64 / total.max(1) as f64,
        alarm_ci_low: lo,
        alarm_ci_high: hi,
        alpha: policy.alpha,
        cells,
        skipped,
    })
}

/// The smallest worsening in percent detected with 80% power, as a signed change in the
/// worsening direction of `polarity` (module doc).
pub fn mde_pct(
    values: &[f64],
    n1: usize,
    n2: usize,
    policy: &Policy,
    threshold: f64,
    polarity: Polarity,
) -> Option<f64> {
    // One replicate against several is a t prediction (no rearrangement floor); two or
    // more a side need enough rearrangements to reach α.
    let permuted = n2 >= 2;
    if n1 < 2 || n2 < 1 || (permuted && choose(n1 + n2, n1) * policy.alpha < 1.0) {
        return None;
    }
    let floor = threshold.max(policy.noise_multiplier * robust_cv_pct(values).unwrap_or(0.0));
    let logs: Vec<f64> = values
        .iter()
        .filter(|v| **v > 0.0)
        .map(|v| v.ln())
        .collect();
    if logs.len() < values.len() {
        return None;
    }
    let s = variance(&logs)?.sqrt();
    let df = (n1 + n2 - 2) as f64;
    let z = student_t_quantile(1.0 - policy.alpha, df) + student_t_quantile(0.8, df);
    let d = z * s * (1.0 / n1 as f64 + 1.0 / n2 as f64).sqrt();
    match polarity {
        Polarity::Lower => Some((100.0 * d.exp_m1()).max(floor)),
        // The gate's worsening of a higher-is-better metric is the fall −Δ%, which
        // cannot reach 100%.
        Polarity::Higher => {
            let fall = (-100.0 * (-d).exp_m1()).max(floor);
            (fall < 100.0).then_some(-fall)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::testdata::{ladder_runs, stored};
    use bench_db_parsers::{Data, Series};
    use rand_distr::{Distribution, Normal};

    /// `n` runs of one throughput value each (ops/s, higher is better), ids from `first`,
    /// each 1000 × `factor` × exp(N(0, 10%)).
    fn throughput_runs(
        rng: &mut Xoshiro256PlusPlus,
        n: usize,
        first: i64,
        factor: f64,
    ) -> Vec<StoredRun> {
        let noise = Normal::<f64>::new(0.0, 0.10).unwrap();
        (0..n as i64)
            .map(|i| {
                let v = 1000.0 * factor * noise.sample(rng).exp();
                let data = Data::Value { value: Some(v) };
                stored(
                    first + i,
                    "k6",
                    "",
                    vec![Series::new("throughput", "throughput", "ops/s", data)],
                )
            })
            .collect()
    }

    #[test]
    fn a_throughput_worsens_by_a_fall_that_the_gate_detects_with_80_percent_power() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let runs = throughput_runs(&mut rng, 12, 2, 1.0);
        let c = calibrate(&runs, &Policy::default(), 20, false, 7).unwrap();
        let cell = &c.cells[0];
        assert_eq!(cell.polarity, Polarity::Higher);
        let mde = cell.mde_pct.unwrap();
        // A fall: the same log shift as a rise of 100·(eᵈ − 1)%.
        assert!((-60.0..-10.0).contains(&mde), "{mde}");
        // Power: fresh 6-against-6 pairs with the candidate changed by `mde` (a fall)
        // regress about 80% of the time; changed the other way (a rise), never.
        let opts = CompareOptions {
            interval: false,
            include_first: true,
            ..CompareOptions::default()
        };
        let power = |rng: &mut Xoshiro256PlusPlus, factor: f64| {
            let trials = 200;
            let hits = (0..trials)
                .filter(|_| {
                    let mut base = throughput_runs(rng, 6, 2, 1.0);
                    for r in &mut base {
                        r.label = "before".into();
                    }
                    let mut cand = throughput_runs(rng, 6, 100, factor);
                    for r in &mut cand {
                        r.label = "after".into();
                    }
                    gate(&base, &cand, &Policy::default(), &opts)
                        .unwrap()
                        .outcome
                        == Outcome::Regression
                })
                .count();
            hits as f64 / trials as f64
        };
        let fall = power(&mut rng, 1.0 + mde / 100.0);
        eprintln!("throughput: 80% power at {mde:.1}%, measured power {fall:.3}");
        assert!((0.65..=0.95).contains(&fall), "power at {mde:.1}%: {fall}");
        assert_eq!(power(&mut rng, 1.0 - mde / 100.0), 0.0);
    }

    #[test]
    fn wilson_matches_a_table() {
        // 0 of 100: [0, 0.0370]; 10 of 100: [0.0552, 0.1744] (Newcombe 1998, Table I style).
        let (lo, hi) = wilson(0, 100);
        assert_eq!(lo, 0.0);
        assert!((hi - 0.0370).abs() < 1e-4, "{hi}");
        let (lo, hi) = wilson(10, 100);
        assert!(
            (lo - 0.0552).abs() < 1e-4 && (hi - 0.1744).abs() < 1e-4,
            "{lo} {hi}"
        );
    }

    #[test]
    fn quiet_runs_raise_few_alarms_and_report_a_shift() {
        // 12 runs of one group (ids from 2: no warm-up run), p99 within ±3%.
        let p99 = [
            100.0, 102.0, 98.0, 101.0, 99.0, 103.0, 97.0, 100.5, 99.5, 101.5, 98.5, 100.2,
        ];
        let runs = ladder_runs("end_to_end", "us", &[(99.0, &p99)], 2);
        let c = calibrate(&runs, &Policy::default(), 40, false, 7).unwrap();
        assert_eq!(c.trials, 40);
        assert!(c.alarm_rate <= 0.1, "{c:?}");
        assert_eq!(c.cells.len(), 1);
        let cell = &c.cells[0];
        assert_eq!(cell.percentile, Some(99.0));
        // 6 against 6 runs with a 1.8% spread: the 10% threshold is the binding limit.
        assert_eq!(cell.mde_pct, Some(10.0));
        // Three runs cannot be split into halves of two; nor can JLBH's four once the
        // warm-up run is left out, and the reason says so only then.
        let c = calibrate(&runs[..3], &Policy::default(), 10, false, 7).unwrap();
        assert_eq!((c.trials, c.skipped.len()), (0, 1));
        assert_eq!(c.skipped[0].reason, "fewer than 4 runs: no two halves of 2");
        let jlbh = ladder_runs("end_to_end", "us", &[(99.0, &p99[..4])], 1);
        let c = calibrate(&jlbh, &Policy::default(), 10, false, 7).unwrap();
        assert_eq!(c.skipped[0].runs, 3);
        assert!(
            c.skipped[0].reason.contains("warm-up rule left out run 1"),
            "{c:?}"
        );
        // A threshold naming nothing is an error, as for the gate.
        let p = Policy::default().with_max(&["nothing=+5%".into()]).unwrap();
        assert!(calibrate(&runs, &p, 5, false, 7).is_err());
    }
}
