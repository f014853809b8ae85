//! Runs as loaded back from the store, with their identity and provenance: what
//! analysis, reports and exports consume. Pure data, no IO.

use bench_db_parsers::{Data, Param, PrintedStat, Run, Series};
use serde::Serialize;

/// How close two percentiles are to be the same one: a ladder's `99.9` may be parsed or
/// computed as `99.90000000000001`.
pub const PERCENTILE_TOLERANCE: f64 = 1e-9;

/// Which runs are replicates of one another within a block: see [`StoredRun::group_key`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GroupKey {
    pub suite: String,
    pub bench: Option<String>,
    /// The configuration, `(key, value)` in key order.
    pub config: Vec<(String, String)>,
    pub label: String,
    pub block_id: i64,
}

/// One stored run.
#[derive(Debug, Clone, Serialize)]
pub struct StoredRun {
    /// Database id (what `run=ID` selects).
    pub id: i64,
    pub suite: String,
    pub label: String,
    /// Format name of the parser that produced it (`jlbh`, `tsar`, … or `loopback`).
    pub format: String,
    /// Source path as given at ingest.
    pub source: String,
    pub source_id: i64,
    /// The source block the run came from; runs of one block form one group.
    pub block_id: i64,
    /// 0-based index of the block within its source.
    pub block_index: u32,
    /// Ingest time, RFC 3339.
    pub ingested_at: String,
    /// Index, line range, parameters, tags and series.
    pub run: Run,
    /// The block's printed derived numbers (JLBH `% Variation`), shared by its runs.
    pub printed: Vec<PrintedStat>,
}

impl StoredRun {
    /// The run's tags other than `commit` (which has a column of its own), as `key=value`.
    pub fn other_tags(&self) -> Vec<String> {
        self.run
            .tags
            .iter()
            .filter(|(k, _)| k.as_str() != "commit")
            .map(|(k, v)| format!("{k}={v}"))
            .collect()
    }

    /// The series named `metric`, if the run has it.
    pub fn series(&self, metric: &str) -> Option<&Series> {
        self.run.series.iter().find(|s| s.metric == metric)
    }

    /// A numeric parameter.
    pub fn param_f64(&self, key: &str) -> Option<f64> {
        self.run.params.get(key).and_then(|p| p.as_f64())
    }

    /// The run's value of `metric` at percentile `p`, or its single value when `p` is
    /// `None` (a time series' mean over time): the one reading every history, variation
    /// table and chart makes of a run, so a chart never disagrees with the change points
    /// computed for it. Percentiles match within [`PERCENTILE_TOLERANCE`]; a non-finite
    /// value is no value.
    pub fn value_at(&self, metric: &str, p: Option<f64>) -> Option<f64> {
        let s = self.series(metric)?;
        match (p, &s.data) {
            (Some(p), _) => {
                s.ladder()?
                    .iter()
                    .find(|x| (x.percentile - p).abs() < PERCENTILE_TOLERANCE)?
                    .value
            }
            (None, Data::Value { value }) => *value,
            (None, Data::TimeSeries { .. }) => {
                let pts = self.time_points(metric)?;
                (!pts.is_empty()).then(|| pts.iter().map(|p| p.1).sum::<f64>() / pts.len() as f64)
            }
            (None, _) => None,
        }
        .filter(|v| v.is_finite())
    }

    /// The finite (t, value) points of the run's time series `metric`, sorted by t.
    pub fn time_points(&self, metric: &str) -> Option<Vec<(f64, f64)>> {
        let Data::TimeSeries { points } = &self.series(metric)?.data else {
            return None;
        };
        let mut pts: Vec<(f64, f64)> = points
            .iter()
            .filter_map(|p| p.value.filter(|v| v.is_finite()).map(|v| (p.t, v)))
            .filter(|p| p.0.is_finite())
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        Some(pts)
    }

    /// The run's label when someone gave it (`--label`, a lead line before its block, a
    /// relabel); `None` for the label ingest falls back to, the log file's name (or the
    /// format's name for generated output), which names a file, not a condition. Cells
    /// hold the given label only: five `bench-N.log` of one commit are one side.
    pub fn given_label(&self) -> Option<&str> {
        let file = self
            .source
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or(&self.source);
        let fallback = self.label == file || self.label == self.source || self.label == self.format;
        (!fallback && !self.label.is_empty()).then_some(self.label.as_str())
    }

    /// The invocation the run belongs to: one process's output. That is its block, and
    /// within a block of forks (JMH `fork`) its fork, each a JVM of its own.
    pub fn invocation(&self) -> (i64, u32) {
        let fork = self.param_f64("fork").map_or(0, |f| f.max(0.0) as u32);
        (self.block_id, fork)
    }

    /// The key that groups runs for run-to-run variation: same suite, benchmark,
    /// configuration, label and block (a block may hold several benchmarks).
    pub fn group_key(&self) -> GroupKey {
        let config = self
            .run
            .config_params()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        GroupKey {
            suite: self.suite.clone(),
            bench: self.run.bench.clone(),
            config,
            label: self.label.clone(),
            block_id: self.block_id,
        }
    }

    /// Whether `other` has the same [`Self::group_key`], told without building either
    /// (no parameter is formatted unless two differ).
    pub fn same_group(&self, other: &StoredRun) -> bool {
        if self.block_id != other.block_id
            || self.suite != other.suite
            || self.label != other.label
            || self.run.bench != other.run.bench
        {
            return false;
        }
        let (a, b) = (self.run.config_params(), other.run.config_params());
        a.len() == b.len()
            && a.iter().zip(&b).all(|((ka, va), (kb, vb))| {
                // Two parameters print alike when they are the same value; else (1 and
                // "1", 0 and -0) their printed forms decide.
                ka == kb && (same_param(va, vb) || va.to_string() == vb.to_string())
            })
    }
}

/// The same parameter to the bit.
fn same_param(a: &Param, b: &Param) -> bool {
    match (a, b) {
        (Param::Num(x), Param::Num(y)) => x.to_bits() == y.to_bits(),
        (Param::Bool(x), Param::Bool(y)) => x == y,
        (Param::Text(x), Param::Text(y)) => x == y,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_db_parsers::{LadderPoint, TimePoint};

    fn run(series: Vec<Series>) -> StoredRun {
        StoredRun {
            id: 1,
            suite: "s".into(),
            label: String::new(),
            format: "jlbh".into(),
            source: "x".into(),
            source_id: 1,
            block_id: 1,
            block_index: 0,
            ingested_at: String::new(),
            run: Run {
                bench: None,
                config: Default::default(),
                index: 1,
                first_line: 1,
                last_line: 1,
                params: Default::default(),
                tags: Default::default(),
                series,
            },
            printed: Vec::new(),
        }
    }

    #[test]
    fn same_group_agrees_with_the_group_keys() {
        let with = |block: i64, bench: Option<&str>, params: &[(&str, Param)]| {
            let mut r = run(Vec::new());
            r.block_id = block;
            r.run.bench = bench.map(str::to_string);
            for (k, v) in params {
                r.run.params.insert(k.to_string(), v.clone());
                r.run.config.insert(k.to_string());
            }
            r
        };
        let num = Param::Num;
        let text = |t: &str| Param::Text(t.into());
        let runs = [
            with(1, None, &[]),
            with(2, None, &[]),
            with(1, Some("b"), &[]),
            with(1, None, &[("rate", num(20000.0))]),
            with(1, None, &[("rate", num(20000.0)), ("size", num(64.0))]),
            with(1, None, &[("rate", text("20000"))]),
            with(1, None, &[("rate", num(0.0))]),
            with(1, None, &[("rate", num(-0.0))]),
            with(1, None, &[("rate", num(f64::NAN))]),
            with(1, None, &[("rate", text("NaN"))]),
            with(1, None, &[("rate", Param::Bool(true))]),
            with(1, None, &[("rate", text("true"))]),
            with(1, None, &[("other", num(20000.0))]),
        ];
        for a in &runs {
            for b in &runs {
                assert_eq!(
                    a.same_group(b),
                    a.group_key() == b.group_key(),
                    "{:?} against {:?}",
                    a.group_key(),
                    b.group_key()
                );
            }
        }
        // Printed alike though not equal: one group.
        assert!(runs[3].same_group(&runs[5]) && runs[10].same_group(&runs[11]));
        assert!(!runs[6].same_group(&runs[7]));
    }

    #[test]
    fn value_at_matches_percentiles_within_tolerance_and_skips_non_finite() {
        let point = |percentile: f64, value: f64| LadderPoint {
            percentile,
            value: Some(value),
            line_value: None,
        };
        let ladder = Data::Ladder {
            count: None,
            points: vec![
                point(50.0, 20.0),
                point(100.0 - 0.1 + 1e-12, 80.0),
                point(100.0, f64::INFINITY),
            ],
        };
        let times = Data::TimeSeries {
            points: [(120.0, 3.0), (60.0, 1.0), (f64::NAN, 100.0)]
                .iter()
                .map(|&(t, v)| TimePoint { t, value: Some(v) })
                .collect(),
        };
        let r = run(vec![
            Series::new("rt", "rt", "us", ladder),
            Series::new("ops", "ops", "", Data::Value { value: Some(7.0) }),
            Series::new("cpu", "cpu", "%", times),
        ]);
        assert_eq!(r.value_at("rt", Some(50.0)), Some(20.0));
        assert_eq!(r.value_at("rt", Some(99.9)), Some(80.0));
        assert_eq!(r.value_at("rt", Some(99.0)), None);
        assert_eq!(r.value_at("rt", Some(100.0)), None, "infinite is no value");
        assert_eq!(r.value_at("rt", None), None);
        assert_eq!(r.value_at("ops", None), Some(7.0));
        assert_eq!(r.value_at("ops", Some(50.0)), None);
        // A time series' value is its mean over the finite points.
        assert_eq!(r.value_at("cpu", None), Some(2.0));
        assert_eq!(r.time_points("cpu"), Some(vec![(60.0, 1.0), (120.0, 3.0)]));
        assert_eq!(r.value_at("missing", None), None);
    }
}
