//! Gathers, for one side of a comparison, the replicates of every cell out of stored
//! runs. A cell is one benchmark's metric (and percentile for ladders): its [`Identity`]
//! is the run's suite, bench and configuration, less what the comparison compares
//! ([`Axis`]), so replicates are only ever pooled within their own benchmark.
//!
//! Replicates are: one value per run for a ladder percentile or a single value (and for
//! the mean of a JMH sample-mode ladder, JMH's score of that mode); every
//! sample for a time series (tsar minutes). Values convert to the first unit seen for the
//! metric when both are time units; values in an incompatible unit are left out.
//! Histogram series also keep their encoded intervals so percentiles can be read from the
//! merged histogram.

use super::littles_law::concurrency_series;
use crate::dataset::StoredRun;
use crate::selector::Contrast;
use crate::units::convert;
use bench_db_parsers::{Data, HistInterval, Param, Series};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Display;

/// The data shape behind a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Shape {
    Ladder,
    Histogram,
    TimeSeries,
    Value,
}

/// Which benchmark a cell's numbers belong to: the run's suite, bench, configuration
/// (`(key, value)` pairs in key order, values as printed) and given label
/// ([`StoredRun::given_label`]), less the comparison's [`Axis`].
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Identity {
    pub suite: String,
    pub bench: Option<String>,
    pub config: Vec<(String, String)>,
    pub label: Option<String>,
}

/// The identity fields a comparison does not match because they are what it compares
/// (both sides' selectors name them with different values): the suite, the bench,
/// configuration keys and the label.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Axis {
    pub suite: bool,
    pub bench: bool,
    pub config_keys: BTreeSet<String>,
    pub label: bool,
    /// The configuration keys compared although no selector names them, because each side
    /// holds one configuration and they differ in these: per key, the baseline's and the
    /// candidate's value (`None` where a side lacks the key).
    pub paired_config: BTreeMap<String, (Option<String>, Option<String>)>,
}

impl Axis {
    /// The axis of two selectors' contrast.
    pub fn of(c: &Contrast) -> Axis {
        Axis {
            suite: c.suite,
            bench: c.bench,
            config_keys: c.params.clone(),
            label: c.label,
            paired_config: BTreeMap::new(),
        }
    }

    /// This axis, plus the label when no label is on both sides, plus each identity field
    /// (suite, bench) that takes one value on each side, different between them, and the
    /// configuration keys in which each side's one configuration differs from the other's
    /// ([`Axis::paired_config`]): two sides of one benchmark each are compared with each
    /// other whatever their names. A side of several configurations pairs none of them
    /// this way: its configurations are never pooled.
    pub fn widened(&self, baseline: &[StoredRun], candidate: &[StoredRun]) -> Axis {
        let mut axis = self.clone();
        let ids = |runs: &[StoredRun]| -> Vec<Identity> {
            let mut v: Vec<Identity> = runs.iter().map(|r| self.identity(r)).collect();
            v.sort();
            v.dedup();
            v
        };
        let (b, c) = (ids(baseline), ids(candidate));
        let single = |f: &dyn Fn(&Identity) -> String| -> bool {
            let one = |ids: &[Identity]| {
                let mut v: Vec<String> = ids.iter().map(f).collect();
                v.sort();
                v.dedup();
                (v.len() == 1).then(|| v.remove(0))
            };
            matches!((one(&b), one(&c)), (Some(x), Some(y)) if x != y)
        };
        axis.suite |= single(&|i| i.suite.clone());
        axis.bench |= single(&|i| format!("{:?}", i.bench));
        // Labels that no cell could pair (each side's set disjoint from the other's, as
        // when a lead line before each log carries its run's date) are what is compared.
        let labels =
            |ids: &[Identity]| ids.iter().map(|i| i.label.clone()).collect::<BTreeSet<_>>();
        axis.label |= labels(&b).is_disjoint(&labels(&c));
        if single(&|i| format!("{:?}", i.config)) {
            let map = |i: &Identity| i.config.iter().cloned().collect::<BTreeMap<_, _>>();
            let (bc, cc) = (map(&b[0]), map(&c[0]));
            for key in bc.keys().chain(cc.keys()) {
                let (x, y) = (bc.get(key), cc.get(key));
                if x != y {
                    axis.config_keys.insert(key.clone());
                    axis.paired_config
                        .insert(key.clone(), (x.cloned(), y.cloned()));
                }
            }
        }
        axis
    }

    /// The configuration of `run` with the axis keys left out, in key order, values as
    /// stored.
    pub fn config<'r>(&self, run: &'r StoredRun) -> impl Iterator<Item = (&'r str, &'r Param)> {
        run.run
            .config_params()
            .into_iter()
            .filter(|(k, _)| !self.config_keys.contains(*k))
    }

    /// The identity of `run` with the axis left out.
    pub fn identity(&self, run: &StoredRun) -> Identity {
        let config = self
            .config(run)
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Identity {
            suite: if self.suite {
                String::new()
            } else {
                run.suite.clone()
            },
            bench: if self.bench {
                None
            } else {
                run.run.bench.clone()
            },
            config,
            label: if self.label {
                None
            } else {
                run.given_label().map(str::to_string)
            },
        }
    }
}

/// A configuration value as stored (a flag, a number or text), for keys that must order
/// configurations: equal and ordered by its printed text, as identities match
/// configurations ([`Identity`]), then by kind; JSON writes it with its own type, as
/// `runs --json` does.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(transparent)]
pub struct ConfigValue(pub Param);

impl ConfigValue {
    /// Where the printed texts are equal: flags, then numbers, then text.
    fn kind(&self) -> u8 {
        match self.0 {
            Param::Bool(_) => 0,
            Param::Num(_) => 1,
            Param::Text(_) => 2,
        }
    }
}

impl Ord for ConfigValue {
    fn cmp(&self, other: &Self) -> Ordering {
        match (&self.0, &other.0) {
            // As the texts order, without printing them.
            (Param::Text(a), Param::Text(b)) => a.cmp(b),
            (Param::Bool(a), Param::Bool(b)) => a.cmp(b),
            (Param::Num(a), Param::Num(b)) if a.to_bits() == b.to_bits() => Ordering::Equal,
            _ => (self.to_string(), self.kind()).cmp(&(other.to_string(), other.kind())),
        }
    }
}

impl PartialOrd for ConfigValue {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for ConfigValue {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for ConfigValue {}

/// As [`Eq`] tells values apart: equal values print the same text in the same kind, and
/// two numbers print the same text only when they are the same number (any NaN prints
/// `NaN`), so a number hashes its bits without printing.
impl std::hash::Hash for ConfigValue {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.kind().hash(state);
        match &self.0 {
            Param::Text(t) => t.hash(state),
            Param::Bool(b) => b.hash(state),
            Param::Num(n) if n.is_nan() => f64::NAN.to_bits().hash(state),
            Param::Num(n) => n.to_bits().hash(state),
        }
    }
}

impl Display for ConfigValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// A configuration as one line, `[key=value …]`; empty when there is none.
pub fn config_text<K: Display, V: Display>(pairs: impl IntoIterator<Item = (K, V)>) -> String {
    let pairs: Vec<String> = pairs.into_iter().map(|(k, v)| format!("{k}={v}")).collect();
    if pairs.is_empty() {
        String::new()
    } else {
        format!("[{}]", pairs.join(" "))
    }
}

/// A benchmark's identity as one line, `bench [key=value …] (label)`, leaving out what is
/// absent; empty when all is.
pub fn identity_text<K: Display, V: Display>(
    bench: Option<&str>,
    config: impl IntoIterator<Item = (K, V)>,
    label: Option<&str>,
) -> String {
    let config = config_text(config);
    let mut parts: Vec<String> = bench.map(str::to_string).into_iter().collect();
    if !config.is_empty() {
        parts.push(config);
    }
    if let Some(label) = label {
        parts.push(format!("({label})"));
    }
    parts.join(" ")
}

/// A run's benchmark and configuration as one line, `bench [key=value …]`, as
/// [`identity_text`] names a cell without its label; empty when the run has neither.
pub fn run_bench_text(run: &StoredRun) -> String {
    identity_text(run.run.bench.as_deref(), run.run.config_params(), None)
}

/// A cell's key: the benchmark's [`Identity`], the metric and, for ladders, the
/// percentile in millionths (an exact, ordered key).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CellKey {
    pub identity: Identity,
    pub metric: String,
    pub percentile_micro: Option<i64>,
}

impl CellKey {
    /// Builds a key from a percentile in 0–100.
    pub fn new(identity: &Identity, metric: &str, percentile: Option<f64>) -> Self {
        CellKey {
            identity: identity.clone(),
            metric: metric.to_string(),
            percentile_micro: percentile.map(|p| (p * 1e6).round() as i64),
        }
    }

    /// The percentile in 0–100.
    pub fn percentile(&self) -> Option<f64> {
        self.percentile_micro.map(|p| p as f64 / 1e6)
    }
}

/// One side's replicates of one cell.
#[derive(Debug, Clone)]
pub struct SideCell {
    pub shape: Shape,
    pub unit: String,
    /// Replicates in `unit` (see the module doc).
    pub values: Vec<f64>,
    /// Suites and run ids contributing.
    pub suites: BTreeSet<String>,
    pub run_ids: BTreeSet<i64>,
    /// For histograms: per run, the encoded intervals and the factor from recorded
    /// integers to `unit`.
    pub histograms: Vec<(f64, Vec<HistInterval>)>,
}

/// Every cell of one side, including derived Little's-law concurrency.
pub fn gather(runs: &[StoredRun], metrics: &[String], axis: &Axis) -> BTreeMap<CellKey, SideCell> {
    let mut cells: BTreeMap<CellKey, SideCell> = BTreeMap::new();
    for run in runs {
        add_run(&mut cells, run, metrics, axis);
    }
    cells
}

/// The (benchmark, metric) pairs of `runs` whose series hold no number at all: the tool
/// printed none (JMH's `≈ 10⁻⁴` below its printed precision, a `NaN` score), so they
/// make no cell.
pub fn unnumbered(
    runs: &[StoredRun],
    metrics: &[String],
    axis: &Axis,
) -> BTreeSet<(Identity, String)> {
    let wanted = |m: &str| metrics.is_empty() || metrics.iter().any(|w| w == m);
    let finite = |v: &Option<f64>| v.is_some_and(f64::is_finite);
    let numbered = |run: &StoredRun, s: &Series| match &s.data {
        Data::Histogram { .. } => true,
        Data::Ladder { points, .. } => {
            points.iter().any(|p| finite(&p.value)) || sample_mode_mean(run, s).is_some()
        }
        Data::TimeSeries { points } => points.iter().any(|p| finite(&p.value)),
        Data::Value { value } => finite(value),
    };
    let mut out = BTreeSet::new();
    for run in runs {
        for s in run.run.series.iter().filter(|s| wanted(&s.metric)) {
            if !numbered(run, s) {
                out.insert((axis.identity(run), s.metric.clone()));
            }
        }
    }
    out
}

/// The cells of each run on its own, in run order.
pub fn gather_per_run(
    runs: &[StoredRun],
    metrics: &[String],
    axis: &Axis,
) -> Vec<BTreeMap<CellKey, SideCell>> {
    runs.iter()
        .map(|run| {
            let mut cells = BTreeMap::new();
            add_run(&mut cells, run, metrics, axis);
            cells
        })
        .collect()
}

fn add_run(
    cells: &mut BTreeMap<CellKey, SideCell>,
    run: &StoredRun,
    metrics: &[String],
    axis: &Axis,
) {
    let wanted = |m: &str| metrics.is_empty() || metrics.iter().any(|w| w == m);
    let derived = concurrency_series(run);
    let identity = axis.identity(run);
    for s in run.run.series.iter().chain(&derived) {
        if !wanted(&s.metric) {
            continue;
        }
        let mean = sample_mode_mean(run, s).map(|v| {
            (
                CellKey::new(&identity, &s.metric, None),
                Shape::Value,
                vec![v],
            )
        });
        for (key, shape, vals) in replicates(&identity, s).into_iter().chain(mean) {
            let cell = cells.entry(key).or_insert_with(|| SideCell {
                shape,
                unit: s.unit.clone(),
                values: Vec::new(),
                suites: BTreeSet::new(),
                run_ids: BTreeSet::new(),
                histograms: Vec::new(),
            });
            let before = cell.values.len();
            cell.values.extend(
                vals.into_iter()
                    .filter_map(|v| convert(v, &s.unit, &cell.unit)),
            );
            if cell.values.len() > before {
                cell.suites.insert(run.suite.clone());
                cell.run_ids.insert(run.id);
            }
        }
        if let Data::Histogram {
            intervals, points, ..
        } = &s.data
        {
            add_histograms(cells, &identity, s, intervals, points);
        }
    }
}

/// The mean of a JMH sample-mode ladder: JMH scores sample mode by it (the `sample` row's
/// `Score ± Error`), so it is a cell of its own beside the percentiles, as an `avgt`
/// score is: an iteration's mean, or the score of a table row read alone.
fn sample_mode_mean(run: &StoredRun, s: &Series) -> Option<f64> {
    if run.format != "jmh" || s.metric != "sample" || !matches!(s.data, Data::Ladder { .. }) {
        return None;
    }
    let mean = s.stats.get("mean").or_else(|| s.stats.get("score"));
    mean.copied().filter(|v| v.is_finite())
}

/// (key, shape, replicate values) contributed by one series of one run.
fn replicates(identity: &Identity, s: &Series) -> Vec<(CellKey, Shape, Vec<f64>)> {
    let finite = |v: Option<f64>| v.filter(|x| x.is_finite());
    match &s.data {
        Data::Ladder { points, .. } | Data::Histogram { points, .. } => {
            let shape = if matches!(s.data, Data::Ladder { .. }) {
                Shape::Ladder
            } else {
                Shape::Histogram
            };
            points
                .iter()
                .filter_map(|p| {
                    let v = finite(p.value)?;
                    Some((
                        CellKey::new(identity, &s.metric, Some(p.percentile)),
                        shape,
                        vec![v],
                    ))
                })
                .collect()
        }
        Data::TimeSeries { points } => {
            let v: Vec<f64> = points.iter().filter_map(|p| finite(p.value)).collect();
            if v.is_empty() {
                return Vec::new();
            }
            vec![(
                CellKey::new(identity, &s.metric, None),
                Shape::TimeSeries,
                v,
            )]
        }
        Data::Value { value } => finite(*value)
            .map(|v| {
                vec![(
                    CellKey::new(identity, &s.metric, None),
                    Shape::Value,
                    vec![v],
                )]
            })
            .unwrap_or_default(),
    }
}

/// Attaches a run's encoded histograms to each of its percentile cells. The factor from
/// recorded integers to the series unit is the run's printed worst value over the
/// decoded maximum (the derived ladder is read from the same merge).
fn add_histograms(
    cells: &mut BTreeMap<CellKey, SideCell>,
    identity: &Identity,
    s: &Series,
    intervals: &[HistInterval],
    points: &[bench_db_parsers::LadderPoint],
) {
    let Some(merged) = crate::stats::histogram::merge(intervals.iter().map(|i| &i.encoded)) else {
        return;
    };
    let worst = points
        .iter()
        .find(|p| p.percentile >= 100.0)
        .and_then(|p| p.value);
    let scale = match worst {
        Some(w) if merged.max() > 0 => w / merged.max() as f64,
        _ => 1.0,
    };
    for p in points {
        if let Some(cell) = cells.get_mut(&CellKey::new(identity, &s.metric, Some(p.percentile))) {
            cell.histograms.push((scale, intervals.to_vec()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::testdata::stored;

    fn labelled(id: i64, label: &str) -> StoredRun {
        stored(id, "jlbh", label, Vec::new())
    }

    /// A run of `threads` threads and `connections` connections.
    fn configured(id: i64, threads: f64, connections: Option<f64>) -> StoredRun {
        let mut r = labelled(id, "");
        for (k, v) in [("threads", Some(threads)), ("connections", connections)] {
            if let Some(v) = v {
                r.run
                    .params
                    .insert(k.into(), bench_db_parsers::Param::Num(v));
                r.run.config.insert(k.into());
            }
        }
        r
    }

    #[test]
    fn one_configuration_a_side_pairs_across_the_keys_it_differs_in_only() {
        let axis = Axis::default();
        let (a, b) = (
            configured(1, 1.0, Some(64.0)),
            configured(2, 64.0, Some(64.0)),
        );
        let w = axis.widened(std::slice::from_ref(&a), std::slice::from_ref(&b));
        // The shared connections stay the cell's configuration.
        assert_eq!(w.identity(&a), w.identity(&b));
        assert_eq!(w.identity(&a).config, [("connections".into(), "64".into())]);
        assert_eq!(
            w.paired_config,
            BTreeMap::from([("threads".into(), (Some("1".into()), Some("64".into())))])
        );
        // A key one side lacks is a difference too.
        let c = configured(3, 1.0, None);
        let w = axis.widened(std::slice::from_ref(&c), std::slice::from_ref(&a));
        assert_eq!(
            w.paired_config,
            BTreeMap::from([("connections".into(), (None, Some("64".into())))])
        );
        // Two configurations on one side are never pooled: nothing is paired across.
        let w = axis.widened(&[a.clone(), b.clone()], std::slice::from_ref(&c));
        assert!(w.paired_config.is_empty() && w.config_keys.is_empty());
        assert_ne!(w.identity(&a), w.identity(&b));
    }

    #[test]
    fn a_label_is_matched_when_both_sides_hold_it_and_compared_when_none_is_shared() {
        let axis = Axis::default();
        let (a, b) = (labelled(1, "before"), labelled(2, "after"));
        // One label a side, different: the label is the axis.
        let w = axis.widened(std::slice::from_ref(&a), std::slice::from_ref(&b));
        assert!(w.label);
        assert_eq!(w.identity(&a), w.identity(&b));
        // Lead lines that differ per run, none shared: compared, not matched.
        let base = [labelled(1, "run at 10:00"), labelled(2, "run at 11:00")];
        let cand = [labelled(3, "run at 12:00")];
        assert!(axis.widened(&base, &cand).label);
        // A label on both sides: matched, so each label is its own cell.
        let base = [labelled(1, "before"), labelled(2, "after")];
        let cand = [labelled(3, "before"), labelled(4, "after")];
        let w = axis.widened(&base, &cand);
        assert!(!w.label);
        assert_eq!(w.identity(&base[0]).label.as_deref(), Some("before"));
        assert_ne!(w.identity(&base[0]), w.identity(&base[1]));
        // A log file's name is no label.
        let mut file = labelled(5, "bench-1.log");
        file.source = "logs/bench-1.log".into();
        assert_eq!(w.identity(&file).label, None);
    }
}
