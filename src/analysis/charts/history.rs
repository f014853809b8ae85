//! What a history over ingests draws: for each label, benchmark and configuration (the
//! target rate among it), branch and metric of a suite whose runs without commits come
//! from several sources (JLBH's warm-up runs left out), the value at each percentile run
//! after run in ingest order, with its noise band.

use crate::analysis::samples::config_text;
use crate::dataset::StoredRun;
use crate::numfmt as fmt;
use crate::stats::variation::median_in_place;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Percentiles a history follows, when the ladder has them.
pub const PERCENTILES: [f64; 5] = [50.0, 90.0, 99.0, 99.9, 100.0];

/// One followed value (a percentile, or the value itself).
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryLine {
    pub name: String,
    /// Values in ingest order (`None` where a run lacks it).
    pub values: Vec<Option<f64>>,
    /// Noise band (low, high); `None` when it cannot be estimated.
    pub band: Option<(f64, f64)>,
}

/// What a history chart draws.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryInput {
    pub title: String,
    /// What the values are (the metric's display name): the value axis' caption.
    pub quantity: String,
    pub unit: String,
    pub lines: Vec<HistoryLine>,
    /// What each run in order is (see [`super::about_run`]), for its points' hover text.
    pub runs: Vec<String>,
}

/// The noise band of a value's history: median ± 2 · 1.4826 · MAD (Hampel 1974; the
/// factor makes MAD estimate σ under normality, and ±2σ holds about 95% of the runs),
/// not below zero for values that never are.
pub fn noise_band(values: &[f64]) -> Option<(f64, f64)> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.len() < 3 {
        return None;
    }
    let med = median_in_place(&mut v)?;
    let mut dev: Vec<f64> = v.iter().map(|x| (x - med).abs()).collect();
    let sigma = 1.4826 * median_in_place(&mut dev)?;
    // Values that are never negative (latencies, rates) have no band below zero.
    let floor = if v.iter().all(|x| *x >= 0.0) {
        0.0
    } else {
        f64::NEG_INFINITY
    };
    Some(((med - 2.0 * sigma).max(floor), med + 2.0 * sigma))
}

/// One history per metric of the runs (one suite's), for metrics whose runs come
/// from at least two sources; runs are ordered by ingest time, then source, block, run.
pub fn from_runs(runs: &[&StoredRun]) -> Vec<HistoryInput> {
    let mut b = Histories::default();
    for r in runs {
        b.add(r);
    }
    b.finish()
}

/// [`from_runs`] one run at a time: of each run it keeps what the histories draw (its
/// place in ingest order, its experiment, what it is, its values at the followed
/// percentiles), never the run with its series.
#[derive(Debug, Default)]
pub struct Histories {
    rows: Vec<Row>,
    /// Every (metric, display, unit, is a ladder) seen, each once.
    defs: Vec<(String, String, String, bool)>,
    def_index: HashMap<(String, String, String, bool), u32>,
    /// Every metric name seen, each once.
    names: Vec<String>,
    name_index: HashMap<String, u32>,
    /// Each def's metric name, as an index into `names`.
    def_name: Vec<u32>,
    /// Every experiment (label, benchmark and configuration, branch) seen, each once.
    experiments: Vec<Experiment>,
    experiment_index: HashMap<Experiment, u32>,
    /// The previous run's series and experiment.
    last_series: Vec<u32>,
    last_experiment: Option<u32>,
}

/// One given label, benchmark, configuration (a JLBH target rate is one) and branch: the
/// same experiment.
type Experiment = (
    String,
    Option<String>,
    Vec<(String, String)>,
    Option<String>,
);

/// What a history keeps of one run.
#[derive(Debug)]
struct Row {
    /// Ingest time, source, block, run index: the histories' order.
    ingested_at: String,
    source_id: i64,
    block_index: u32,
    index: u32,
    experiment: u32,
    about: String,
    /// Its series, in its order, as indices into `defs`.
    series: Vec<u32>,
    /// Per metric name (index into `names`) the run holds: its value at each of
    /// [`PERCENTILES`], then its single value.
    values: Vec<(u32, [Option<f64>; PERCENTILES.len() + 1])>,
}

impl Row {
    fn values_of(&self, name: u32) -> Option<&[Option<f64>; PERCENTILES.len() + 1]> {
        self.values.iter().find(|v| v.0 == name).map(|v| &v.1)
    }
}

fn intern<K: std::hash::Hash + Eq + Clone>(
    key: K,
    all: &mut Vec<K>,
    index: &mut HashMap<K, u32>,
) -> u32 {
    if let Some(&i) = index.get(&key) {
        return i;
    }
    let i = all.len() as u32;
    all.push(key.clone());
    index.insert(key, i);
    i
}

impl Histories {
    /// Keeps what the histories need of one run.
    pub fn add(&mut self, r: &StoredRun) {
        // Over ingests: the runs without a commit (those with one are followed over
        // commits), less JLBH's warm-up runs, as every other chart leaves them out.
        if r.run.tags.contains_key("commit") || crate::analysis::warmup::is_warmup(r) {
            return;
        }
        let mut series = Vec::with_capacity(r.run.series.len());
        let mut values: Vec<(u32, [Option<f64>; PERCENTILES.len() + 1])> = Vec::new();
        for (i, s) in r.run.series.iter().enumerate() {
            let d = self.def_of(i, s);
            series.push(d);
            let name = self.def_name[d as usize];
            if values.iter().any(|v| v.0 == name) {
                continue;
            }
            let mut at = [None; PERCENTILES.len() + 1];
            for (slot, p) in at.iter_mut().zip(PERCENTILES.iter().map(|p| Some(*p))) {
                *slot = r.value_at(&s.metric, p);
            }
            at[PERCENTILES.len()] = r.value_at(&s.metric, None);
            values.push((name, at));
        }
        // A label that only names the log file is no experiment's: such runs are pooled.
        let label = r.given_label().unwrap_or_default();
        let config: Vec<(String, String)> = r
            .run
            .config_params()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let branch = r.run.tags.get("branch");
        // Runs come in runs of one experiment: the last one is looked at first.
        let experiment = match self.last_experiment {
            Some(e)
                if self.experiments[e as usize].0 == label
                    && self.experiments[e as usize].1 == r.run.bench
                    && self.experiments[e as usize].2 == config
                    && self.experiments[e as usize].3.as_ref() == branch =>
            {
                e
            }
            _ => intern(
                (
                    label.to_string(),
                    r.run.bench.clone(),
                    config,
                    branch.cloned(),
                ),
                &mut self.experiments,
                &mut self.experiment_index,
            ),
        };
        self.last_experiment = Some(experiment);
        self.last_series.clone_from(&series);
        self.rows.push(Row {
            ingested_at: r.ingested_at.clone(),
            source_id: r.source_id,
            block_index: r.block_index,
            index: r.run.index,
            experiment,
            about: super::about_run(r),
            series,
            values,
        });
    }

    /// The index of series `i` of a run in `defs`: the previous run's series at the same
    /// place when it is the same (runs of a suite mostly are), else looked up.
    fn def_of(&mut self, i: usize, s: &bench_db_parsers::Series) -> u32 {
        let is_ladder = s.ladder().is_some();
        if let Some(&d) = self.last_series.get(i) {
            let (metric, display, unit, ladder) = &self.defs[d as usize];
            if *metric == s.metric
                && *display == s.display
                && *unit == s.unit
                && *ladder == is_ladder
            {
                return d;
            }
        }
        let def = (
            s.metric.clone(),
            s.display.clone(),
            s.unit.clone(),
            is_ladder,
        );
        let d = intern(def, &mut self.defs, &mut self.def_index);
        if d as usize == self.def_name.len() {
            let name = intern(s.metric.clone(), &mut self.names, &mut self.name_index);
            self.def_name.push(name);
        }
        d
    }

    /// Every history, as [`from_runs`] returns them.
    pub fn finish(mut self) -> Vec<HistoryInput> {
        // A stable sort: runs of one place keep the order they came in.
        self.rows.sort_by(|a, b| {
            (&a.ingested_at, a.source_id, a.block_index, a.index).cmp(&(
                &b.ingested_at,
                b.source_id,
                b.block_index,
                b.index,
            ))
        });
        // Metrics in first-seen order, each as its first series describes it.
        let mut metrics: Vec<u32> = Vec::new();
        for row in &self.rows {
            for &d in &row.series {
                if !metrics
                    .iter()
                    .any(|&m| self.defs[m as usize].0 == self.defs[d as usize].0)
                {
                    metrics.push(d);
                }
            }
        }
        // Experiments in first-seen order, each with its runs in order.
        let mut experiments: Vec<(u32, Vec<&Row>)> = Vec::new();
        let mut at: HashMap<u32, usize> = HashMap::new();
        for row in &self.rows {
            match at.get(&row.experiment) {
                Some(&i) => experiments[i].1.push(row),
                None => {
                    at.insert(row.experiment, experiments.len());
                    experiments.push((row.experiment, vec![row]));
                }
            }
        }
        // Titles name the configuration keys that tell the experiments apart.
        let told = telling_keys(&self.experiments);
        let mut out = Vec::new();
        for (exp, rows) in &experiments {
            let exp = &self.experiments[*exp as usize];
            let config = config_text(
                exp.2
                    .iter()
                    .filter(|(k, _)| told.contains(k.as_str()))
                    .map(|(k, v)| (k, v)),
            );
            for &d in &metrics {
                let (metric, display, unit, is_ladder) = &self.defs[d as usize];
                let name = self.name_index[metric];
                let with: Vec<(&Row, &[Option<f64>; PERCENTILES.len() + 1])> = rows
                    .iter()
                    .filter_map(|r| r.values_of(name).map(|v| (*r, v)))
                    .collect();
                if let Some(h) = history_of(&with, display, unit, *is_ladder, exp, &config) {
                    out.push(h);
                }
            }
        }
        out
    }
}

/// The history of one metric over one experiment's runs (each with its values at
/// [`PERCENTILES`] and its single value), when they span two sources.
fn history_of(
    with: &[(&Row, &[Option<f64>; PERCENTILES.len() + 1])],
    display: &str,
    unit: &str,
    is_ladder: bool,
    exp: &Experiment,
    config: &str,
) -> Option<HistoryInput> {
    let sources: BTreeSet<i64> = with.iter().map(|r| r.0.source_id).collect();
    if sources.len() < 2 {
        return None;
    }
    let wanted: Vec<(usize, Option<f64>)> = if is_ladder {
        PERCENTILES.iter().map(|p| Some(*p)).enumerate().collect()
    } else {
        vec![(PERCENTILES.len(), None)]
    };
    let lines: Vec<HistoryLine> = wanted
        .into_iter()
        .filter_map(|(k, p)| {
            let values: Vec<Option<f64>> = with.iter().map(|r| r.1[k]).collect();
            let present: Vec<f64> = values.iter().flatten().copied().collect();
            if present.len() < 2 {
                return None;
            }
            let name = p.map_or_else(
                || display.to_string(),
                |p| {
                    let n = fmt::percentile_name(p);
                    if p >= 100.0 {
                        n
                    } else {
                        format!("p{}", n.trim_end_matches('%'))
                    }
                },
            );
            Some(HistoryLine {
                name,
                band: noise_band(&present),
                values,
            })
        })
        .collect();
    if lines.is_empty() {
        return None;
    }
    let (label, bench, _, branch) = exp;
    // Go names a metric after its benchmark (`BenchmarkJoin-2 ns/op`): said once.
    let bench = bench.as_ref().filter(|b| !display.contains(b.as_str()));
    let branch = branch.as_ref().map(|b| format!("branch {b}"));
    let name: String = [
        Some(label.as_str()),
        bench.map(String::as_str),
        Some(config),
    ]
    .into_iter()
    .chain([branch.as_deref()])
    .flatten()
    .filter(|p| !p.is_empty())
    .map(|p| format!(" · {p}"))
    .collect();
    Some(HistoryInput {
        title: format!("{display}{name}: history over {} runs", with.len()),
        quantity: display.to_string(),
        unit: unit.to_string(),
        lines,
        runs: with.iter().map(|r| r.0.about.clone()).collect(),
    })
}

/// The configuration keys whose values differ between experiments (or that some lack).
fn telling_keys(experiments: &[Experiment]) -> BTreeSet<&str> {
    let mut values: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (_, _, config, _) in experiments {
        for (k, v) in config {
            values.entry(k).or_default().insert(v);
        }
    }
    values
        .into_iter()
        .filter(|(k, vs)| {
            vs.len() > 1 || experiments.iter().any(|e| !e.2.iter().any(|(x, _)| x == k))
        })
        .map(|(k, _)| k)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn band_is_robust() {
        let (lo, hi) = noise_band(&[10.0, 11.0, 9.0, 10.0, 500.0]).unwrap();
        // median 10, MAD 1 → 10 ± 2.9652
        assert!(
            (lo - 7.0348).abs() < 1e-9 && (hi - 12.9652).abs() < 1e-9,
            "{lo} {hi}"
        );
        assert_eq!(noise_band(&[1.0, 2.0]), None);
        // Latencies never go below zero: neither does their band.
        let (lo, _) = noise_band(&[1.0, 1.0, 50.0, 60.0, 70.0]).unwrap();
        assert_eq!(lo, 0.0);
    }

    /// Two sources of JLBH-like runs (demo::many: 100 runs each, run 1 the warm-up): the
    /// history over ingests follows 99 runs a source and rate group, not the warm-up runs;
    /// with commits on their runs the sources are followed over commits only.
    #[test]
    fn the_history_over_ingests_leaves_out_warm_ups_and_runs_with_commits() {
        let runs = crate::analysis::demo::many(200);
        let all: Vec<&StoredRun> = runs.iter().collect();
        let drawn = from_runs(&all);
        let counted: usize = drawn.iter().map(|h| h.runs.len()).sum();
        assert_eq!(
            counted,
            200 - 2,
            "{:?}",
            drawn.iter().map(|h| &h.title).collect::<Vec<_>>()
        );
        let with_commits: Vec<StoredRun> = runs
            .iter()
            .cloned()
            .map(|mut r| {
                r.run
                    .tags
                    .insert("commit".into(), format!("c{}", r.source_id));
                r
            })
            .collect();
        let all: Vec<&StoredRun> = with_commits.iter().collect();
        assert!(from_runs(&all).is_empty());
    }
}
