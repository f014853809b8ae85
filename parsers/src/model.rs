//! The intermediate model every parser produces and every later stage consumes.
//!
//! A source file yields [`Block`]s (independent result blocks: one JLBH output, one
//! "before" table); a block holds [`Run`]s; a run holds [`Series`]. A series is one
//! metric with a unit and exactly one shape of data ([`Data`]). Nothing here does IO.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// A run parameter value: numbers stay numbers so analysis can use them
/// (e.g. `target_throughput`), everything else is text or a flag.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Param {
    Bool(bool),
    Num(f64),
    Text(String),
}

/// By the JSON value's own type: a flag, a number or a string. Written by hand because
/// serde's untagged enums buffer each value and build an error for every variant that
/// does not match, which cost reads of many runs a seventh of their time.
impl<'de> Deserialize<'de> for Param {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Param, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Param;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a flag, a number or a string")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Param, E> {
                Ok(Param::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Param, E> {
                Ok(Param::Num(v as f64))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Param, E> {
                Ok(Param::Num(v as f64))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Param, E> {
                Ok(Param::Num(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<Param, E> {
                Ok(Param::Text(v.to_string()))
            }
            fn visit_string<E>(self, v: String) -> Result<Param, E> {
                Ok(Param::Text(v))
            }
        }
        d.deserialize_any(Visitor)
    }
}

impl Param {
    /// The numeric value, when the parameter is a number.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Param::Num(v) => Some(*v),
            _ => None,
        }
    }
}

/// A parameter as text: numbers as Rust prints them (`20000`, `0.5`), flags as
/// `true`/`false`, text as it is. One printing for every identity built from parameters.
impl std::fmt::Display for Param {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Param::Num(v) => write!(f, "{v}"),
            Param::Bool(b) => write!(f, "{b}"),
            Param::Text(t) => f.write_str(t),
        }
    }
}

impl From<f64> for Param {
    fn from(v: f64) -> Self {
        Param::Num(v)
    }
}
impl From<bool> for Param {
    fn from(v: bool) -> Self {
        Param::Bool(v)
    }
}
impl From<&str> for Param {
    fn from(v: &str) -> Self {
        Param::Text(v.to_string())
    }
}
impl From<String> for Param {
    fn from(v: String) -> Self {
        Param::Text(v)
    }
}

/// One independent result block of a source: the runs it holds and the derived
/// numbers the tool printed about them as a group.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Block {
    /// Label from the nearest preceding lead line (see [`crate::text::LabelTracker`]);
    /// `None` when the source has no such line.
    pub label: Option<String>,
    /// 1-based line range of the block in the source (inclusive).
    pub first_line: u64,
    pub last_line: u64,
    pub runs: Vec<Run>,
    /// Derived numbers printed for the block as a whole (JLBH `% Variation`, `var(log)`).
    pub printed: Vec<PrintedStat>,
}

/// A number the tool printed about a group of runs, kept exactly as printed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrintedStat {
    /// Normalised metric name the number belongs to.
    pub metric: String,
    /// Percentile (0–100, worst = 100) for ladder statistics, else `None`.
    pub percentile: Option<f64>,
    /// What it is: `variation_pct`, `var_log`, …
    pub name: String,
    /// `None` when the tool printed something that is not a finite number (`Infinity`).
    pub value: Option<f64>,
}

/// One run of a benchmark.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// 1-based index of the run inside its block.
    pub index: u32,
    /// The benchmark's full name as its tool names it: JMH `package.Class.method`, Go
    /// `BenchmarkName/sub` as printed without the `-N` suffix, Criterion
    /// `group/function/value`, a hyperfine command (or its `--command-name`), a k6 scenario,
    /// an Arthas method, a JGroups test. `None` for a format that names no benchmark (a JLBH
    /// or tsar block). Never rewritten by a label.
    #[serde(default)]
    pub bench: Option<String>,
    /// The keys of `params` that are the benchmark's configuration (JMH `@Param`s, Go
    /// configuration lines and `procs`, hyperfine parameter values, a target rate,
    /// threads). What a run measured (an iteration count, an achieved rate, a run time) is
    /// not among them, so two runs of one benchmark have equal identity.
    #[serde(default)]
    pub config: BTreeSet<String>,
    /// 1-based line range of the run in the source (inclusive).
    pub first_line: u64,
    pub last_line: u64,
    /// Run parameters (target throughput, iterations, warm-up, CO correction, …).
    pub params: BTreeMap<String, Param>,
    /// Free-form tags (commit, host); parsers rarely set them, the CLI adds `--tag`.
    pub tags: BTreeMap<String, String>,
    pub series: Vec<Series>,
}

impl Run {
    /// Sets a parameter that is part of the benchmark's configuration.
    pub fn set_config(&mut self, key: impl Into<String>, value: impl Into<Param>) {
        let key = key.into();
        self.params.insert(key.clone(), value.into());
        self.config.insert(key);
    }

    /// The configuration: the parameters whose keys are in `config`, in key order.
    pub fn config_params(&self) -> BTreeMap<&str, &Param> {
        self.config
            .iter()
            .filter_map(|k| self.params.get_key_value(k))
            .map(|(k, v)| (k.as_str(), v))
            .collect()
    }
}

/// One metric of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// Normalised name (see [`crate::text::metric_name`]): `end_to_end`, `ts.rt`.
    pub metric: String,
    /// The name as the tool printed it.
    pub display: String,
    /// Unit as the tool printed it (`us`, `ms`, `ops/s`, `%`, …); empty when the tool printed none.
    pub unit: String,
    pub data: Data,
    /// Summary numbers the tool printed for this series (`mean`, `stddev`, `max`,
    /// `total_count`, tsar `MAX`/`MEAN`/`MIN`), kept as printed.
    pub stats: BTreeMap<String, f64>,
}

/// The shape of a series' data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Data {
    /// Percentile → value, with the number of samples behind it.
    Ladder {
        count: Option<u64>,
        points: Vec<LadderPoint>,
    },
    /// Real HDR histograms (one per interval), plus the ladder derived from their merge.
    Histogram {
        intervals: Vec<HistInterval>,
        count: Option<u64>,
        points: Vec<LadderPoint>,
    },
    /// t (seconds; Unix time when the source gives a date) → value.
    TimeSeries { points: Vec<TimePoint> },
    /// A single number (ZooKeeper `latency_avg`, one JGroups row).
    Value { value: Option<f64> },
}

/// One percentile of a ladder.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LadderPoint {
    /// Percentile in 0–100; the worst (max) is 100.
    pub percentile: f64,
    /// The most precise value known for this run and percentile (`None` = absent,
    /// e.g. `Infinity` or `...`). Every analysis uses this one.
    pub value: Option<f64>,
    /// A second, less precise printing of the same number when the source has one
    /// (JLBH's per-run probe line, when the SUMMARY table gave `value`).
    pub line_value: Option<f64>,
}

/// One sample of a time series.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TimePoint {
    pub t: f64,
    pub value: Option<f64>,
}

/// One serialized HDR histogram (V2 compressed encoding, as `.hlog` and the runner write it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistInterval {
    /// Interval start, seconds (absolute when the log gives a base time).
    pub t: Option<f64>,
    /// Interval length, seconds.
    pub duration: Option<f64>,
    /// `.hlog` tag, when present.
    pub tag: Option<String>,
    /// V2-compressed histogram bytes.
    pub encoded: Vec<u8>,
}

impl Series {
    /// A series with no printed stats.
    pub fn new(
        metric: impl Into<String>,
        display: impl Into<String>,
        unit: impl Into<String>,
        data: Data,
    ) -> Self {
        Series {
            metric: metric.into(),
            display: display.into(),
            unit: unit.into(),
            data,
            stats: BTreeMap::new(),
        }
    }

    /// A single-value series whose display name is its metric name.
    pub fn value(metric: &str, unit: &str, value: Option<f64>) -> Self {
        Series::new(metric, metric, unit, Data::Value { value })
    }

    /// The ladder points of a ladder or histogram series.
    pub fn ladder(&self) -> Option<&[LadderPoint]> {
        match &self.data {
            Data::Ladder { points, .. } | Data::Histogram { points, .. } => Some(points),
            _ => None,
        }
    }

    /// The short name of the data shape: `ladder`, `histogram`, `timeseries`, `value`.
    pub fn kind(&self) -> &'static str {
        match self.data {
            Data::Ladder { .. } => "ladder",
            Data::Histogram { .. } => "histogram",
            Data::TimeSeries { .. } => "timeseries",
            Data::Value { .. } => "value",
        }
    }
}

/// The stream of results of one parse.
pub type ParseIter<'a> = Box<dyn Iterator<Item = Result<Parsed, crate::error::ParseError>> + 'a>;

/// What a parser hands downstream, in source order.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    /// A completed block.
    Block(Block),
    /// Something the parser skipped on purpose (e.g. a table of formulas), 1-based line.
    Warning { line: u64, message: String },
}

impl From<Block> for Parsed {
    fn from(block: Block) -> Self {
        Parsed::Block(block)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_decode_by_their_json_type_and_round_trip() {
        let text =
            r#"{"co":true,"rate":20000,"big":18446744073709551615,"neg":-3,"x":1.5,"mode":"spin"}"#;
        let p: BTreeMap<String, Param> = serde_json::from_str(text).unwrap();
        assert_eq!(p["co"], Param::Bool(true));
        assert_eq!(p["rate"], Param::Num(20000.0));
        assert_eq!(p["big"], Param::Num(u64::MAX as f64));
        assert_eq!(p["neg"], Param::Num(-3.0));
        assert_eq!(p["x"], Param::Num(1.5));
        assert_eq!(p["mode"], Param::Text("spin".into()));
        let again: BTreeMap<String, Param> =
            serde_json::from_str(&serde_json::to_string(&p).unwrap()).unwrap();
        assert_eq!(again, p);
        assert!(serde_json::from_str::<Param>("null").is_err());
        assert!(serde_json::from_str::<Param>("[1]").is_err());
    }
}
