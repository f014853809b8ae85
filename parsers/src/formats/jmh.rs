//! JMH results (format `jmh`): the `-rf json` result file, the human-readable result table
//! and the per-iteration run log.
//!
//! ```text
//! # Benchmark mode: Throughput, ops/time
//! # Benchmark: org.apache.dubbo.benchmark.ClientPb.createUser
//! # Fork: 1 of 1
//! Iteration   1: 12.371 ops/ms
//! …
//! Benchmark                                 Mode     Cnt   Score   Error   Units
//! ClientPb.createUser                      thrpt       3  12.453 ± 1.823  ops/ms
//! ClientPb.createUser                     sample  379410   2.527 ± 0.003   ms/op
//! ClientPb.createUser:createUser·p0.50    sample           2.585           ms/op
//! ```
//!
//! One block per benchmark: method, parameter values and mode (one method appears under
//! several modes with different units). Its primary metric is the mode (`thrpt`, `avgt`,
//! `sample`, `ss`); secondary metrics (`·gc.alloc.rate`) are named by their normalised name
//! (`gc_alloc_rate`) with their own unit. Units are kept as printed (`ops/ms`, `ns/op`),
//! which decides polarity: ops/time higher, time/op lower.
//!
//! Identity: `bench` is the benchmark as JMH names it: the JSON `benchmark` field and the
//! log's `# Benchmark:` line with the package (`org.apache.dubbo.benchmark.ClientPb.createUser`),
//! a table alone as it prints it (`ClientPb.createUser`); a log and its table meet on
//! `Class.method`. `config` is the `@Param`s; the mode is the metric, not config. No label:
//! the output names no condition. A block holds one benchmark's forks × iterations, which
//! are its replicates (JSON results do not separate invocations further). No timestamp.
//! - Runs are forks × measured iterations: JSON `rawData` (and secondary metrics'
//!   `rawData`), or the log's `Iteration N:` lines. A sample-mode iteration of the log is a
//!   ladder (its `·p0.50:` lines, percentiles ×100, `p1.00` the worst) with the
//!   iteration's mean as stat `mean`; other iterations are values.
//! - Without iterations (a table alone) the table row is the one run: a value, or for
//!   sample mode the ladder of its `·pX` rows, with stats `score`, `score_error`, `count`.
//! - What JMH printed about the whole benchmark is kept in the block's printed stats, in
//!   the runs' unit: JSON `score`, `scoreError` (`score_error`), `scoreConfidence`
//!   (`score_confidence_low`/`_high`) and `scorePercentiles` (`score_percentile` at its
//!   percentile); a table row next to a log (`score`, `score_error`, `count`, its `·pX`
//!   rows); and what the log's `Result "…":` lines add to it (`min` and `max` at
//!   percentiles 0 and 100, `stdev`, the `CI (99.9%)` bounds).
//!
//! Params: the JMH parameters (config), `mode`, `fork` and `iteration` of a run, `threads`, `forks`
//! and `jmh_version` when given. Fixtures: `fixtures/real/jmh/jcasbin-jmh-result.json`,
//! `fixtures/real/jmh/dubbo-triple-20240118.md`, `fixtures/real/jmh/branch-prediction.txt`.
//!
//! A number cell of a table row or iteration line that does not read (`12x.3`) is left out
//! with a warning naming its line (one per distinct text, counting the others), and the
//! rest of the file is kept. So is a value JMH printed only as below its precision,
//! `≈ 10⁻⁴` (`? 10??` in a cp1252 copy), with a warning saying so; `NaN` and `≈ 0` are
//! absent values. A table row with no mode, or a JSON file not of the result
//! shape, is an error naming the line.

use crate::document::{self, Document};
use crate::error::ParseError;
use crate::format::{Format, Head, ParseIter};
use crate::model::{Block, Data, LadderPoint, Param, Parsed, PrintedStat, Run, Series};
use crate::text::metric_name;
use crate::text::re;
use regex::Regex;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::sync::LazyLock;

/// The format entry for the registry.
pub const FORMAT: Format = Format::new("jmh", "1", sniff, parse)
    .read_whole()
    .claims_at_most(95)
    .reading_its_wrapper();

static TABLE_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^\s*Benchmark((?:\s+\(\w+\))*)\s+Mode\s+Cnt\s+Score(?:\s+Error)?\s+Units\s*$")
});
static PARAM_COLUMN: LazyLock<Regex> = LazyLock::new(|| re(r"\((\w+)\)"));
static VERSION: LazyLock<Regex> = LazyLock::new(|| re(r"^# JMH version: (\S+)"));
static BENCHMARK: LazyLock<Regex> = LazyLock::new(|| re(r"^# Benchmark: (\S+)\s*$"));
static MODE: LazyLock<Regex> = LazyLock::new(|| re(r"^# Benchmark mode: ([^,]+)"));
static PARAMETERS: LazyLock<Regex> = LazyLock::new(|| re(r"^# Parameters: \((.*)\)\s*$"));
static THREADS: LazyLock<Regex> = LazyLock::new(|| re(r"^# Threads: (\d+) thread"));
static FORK: LazyLock<Regex> = LazyLock::new(|| re(r"^# Fork: (\d+) of (\d+)"));
static MEASUREMENT: LazyLock<Regex> = LazyLock::new(|| re(r"^# Measurement: (\d+) iterations?"));
/// The score of an iteration line may be `≈ 10⁻⁴` (`? 10??` in a cp1252 copy).
static ITERATION: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^Iteration\s+(\d+):\s+((?:[≈?\x{fffd}]\s+)?\S+)(?:\s+\S+\(99\.9%\)\s+\S+)?\s+(\S+)\s*$")
});
/// An indented line under an iteration: `createUser·p0.50:   2.556 ms/op`,
/// `·gc.alloc.rate:  123.4 MB/sec`.
static ITERATION_EXTRA: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^\s+(\S+):\s+((?:[≈?\x{fffd}]\s+)?\S+)(?:\s+\S+\(99\.9%\)\s+\S+)?\s+(\S+)\s*$")
});
static RESULT: LazyLock<Regex> = LazyLock::new(|| re(r#"^Result "(\S+)":"#));
/// The lines under `Result "…":` of a non-sample mode: score ± error, the iterations'
/// range and standard deviation, and the confidence interval.
static RESULT_SCORE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s+(\S+) \S*\(99\.9%\) (\S+) \S+ \[\w+\]\s*$"));
static RESULT_RANGE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s+\(min, avg, max\) = \((\S+), \S+, (\S+)\), stdev = (\S+)\s*$"));
static RESULT_CI: LazyLock<Regex> = LazyLock::new(|| re(r"^\s+CI \(99\.9%\): \[(\S+), (\S+)\]"));

/// Confidence that `head` holds JMH results.
pub fn sniff(head: &Head) -> u8 {
    let t = head.text.trim_start_matches('\u{feff}').trim_start();
    if t.starts_with('[') {
        let json = t.contains("\"primaryMetric\"") && t.contains("\"benchmark\"");
        return if json { 95 } else { 0 };
    }
    for line in head.text.lines() {
        let line = line.trim_end_matches('\r');
        if TABLE_HEADER.is_match(line) || VERSION.is_match(line) {
            return 95;
        }
    }
    0
}

/// Parses JMH JSON, table or log (see the module doc).
pub fn parse<'a>(r: Box<dyn BufRead + 'a>) -> ParseIter<'a> {
    document::parse(r, |doc| {
        if doc.text().trim_start().starts_with('[') {
            Ok(json(doc.text())?.into_iter().map(Parsed::Block).collect())
        } else {
            log_and_tables(doc)
        }
    })
}

/// `Class.method` of a fully qualified benchmark name.
fn short_name(full: &str) -> String {
    let parts: Vec<&str> = full.split('.').collect();
    parts[parts.len().saturating_sub(2)..].join(".")
}

/// What gathers a log's iterations and a table's rows into one benchmark's block.
fn group_key(short: &str, params: &BTreeMap<String, String>, mode: &str) -> String {
    let mut m: Vec<String> = short.split('.').map(metric_name).collect();
    for (k, v) in params {
        m.push(format!("{}_{}", metric_name(k), metric_name(v)));
    }
    m.push(mode.to_string());
    m.join(".")
}

/// JMH's long mode names (`# Benchmark mode: Throughput, ops/time`) as the short ones.
fn mode_short(long: &str) -> String {
    match long.trim() {
        "Throughput" => "thrpt",
        "Average time" => "avgt",
        "Sampling time" => "sample",
        "Single shot invocation time" => "ss",
        "All benchmark modes" => "all",
        other => return metric_name(other),
    }
    .to_string()
}

fn param_value(v: &str) -> Param {
    v.parse::<f64>().map_or_else(|_| Param::from(v), Param::Num)
}

/// A percentile key (`p0.99`, `p1.00`, `p0,99` in a comma locale) as a percentile in
/// 0–100.
fn percentile_of(name: &str) -> Option<f64> {
    let p: f64 = decimal_point(name.strip_prefix('p')?).parse().ok()?;
    (0.0..=1.0).contains(&p).then(|| (p * 1e6).round() / 1e4)
}

/// JMH prints numbers with `String.format` in the JVM's locale, so where the decimal mark
/// is a comma a score reads `151,617` (JMH never groups digits): one comma and no point
/// is a decimal comma.
fn decimal_point(s: &str) -> std::borrow::Cow<'_, str> {
    if s.matches(',').count() == 1 && !s.contains('.') {
        std::borrow::Cow::Owned(s.replacen(',', ".", 1))
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

/// A JMH number: `12.453` (`12,453` in a comma locale), `NaN` (absent), `≈ 10⁻⁴` (absent:
/// below the printed precision).
fn jmh_number(s: &str, what: &str, n: u64) -> Result<Option<f64>, ParseError> {
    if s == "NaN" || s == "≈" || s.starts_with('≈') {
        return Ok(None);
    }
    decimal_point(s)
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .map(Some)
        .ok_or_else(|| ParseError::new(n, format!("JMH {what}: cannot read `{s}` as a number")))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonResult {
    jmh_version: Option<String>,
    benchmark: String,
    mode: String,
    threads: Option<f64>,
    forks: Option<f64>,
    #[serde(default)]
    params: BTreeMap<String, String>,
    primary_metric: JsonMetric,
    #[serde(default)]
    secondary_metrics: BTreeMap<String, JsonMetric>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonMetric {
    score: JsonNumber,
    score_error: Option<JsonNumber>,
    #[serde(default)]
    score_confidence: Vec<JsonNumber>,
    #[serde(default)]
    score_percentiles: BTreeMap<String, JsonNumber>,
    score_unit: String,
    #[serde(default)]
    raw_data: Vec<Vec<JsonNumber>>,
}

/// JMH writes non-finite numbers as strings (`"NaN"`).
#[derive(Deserialize, Clone, Copy)]
#[serde(untagged)]
enum JsonNumber {
    Num(f64),
    #[allow(dead_code)]
    Text(serde::de::IgnoredAny),
}

impl JsonNumber {
    fn get(self) -> Option<f64> {
        match self {
            JsonNumber::Num(v) if v.is_finite() => Some(v),
            _ => None,
        }
    }
}

fn json(text: &str) -> Result<Vec<Block>, ParseError> {
    let results: Vec<JsonResult> = serde_json::from_str(text)
        .map_err(|e| ParseError::new(e.line() as u64, format!("JMH JSON: {e}")))?;
    let starts: Vec<u64> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("\"benchmark\""))
        .map(|(i, _)| i as u64 + 1)
        .collect();
    let total = text.lines().count() as u64;
    let mut blocks = Vec::new();
    for (i, r) in results.into_iter().enumerate() {
        let first_line = starts.get(i).copied().unwrap_or(1);
        let last_line = starts.get(i + 1).map_or(total, |l| l - 1);
        let m = r.mode.clone();
        let mut base = Run {
            bench: Some(r.benchmark.clone()),
            first_line,
            last_line,
            ..Run::default()
        };
        for (k, v) in &r.params {
            base.set_config(k.clone(), param_value(v));
        }
        base.params
            .insert("mode".into(), Param::from(r.mode.as_str()));
        if let Some(t) = r.threads {
            base.params.insert("threads".into(), Param::Num(t));
        }
        if let Some(f) = r.forks {
            base.params.insert("forks".into(), Param::Num(f));
        }
        if let Some(v) = &r.jmh_version {
            base.params
                .insert("jmh_version".into(), Param::from(v.as_str()));
        }
        let pm = &r.primary_metric;
        let mut runs = Vec::new();
        for (f, fork) in pm.raw_data.iter().enumerate() {
            for (it, v) in fork.iter().enumerate() {
                let mut run = base.clone();
                run.index = runs.len() as u32 + 1;
                run.params.insert("fork".into(), Param::Num(f as f64 + 1.0));
                run.params
                    .insert("iteration".into(), Param::Num(it as f64 + 1.0));
                let mut series = vec![Series::new(
                    m.clone(),
                    r.benchmark.clone(),
                    pm.score_unit.clone(),
                    Data::Value { value: v.get() },
                )];
                for (name, sm) in &r.secondary_metrics {
                    if let Some(sv) = sm.raw_data.get(f).and_then(|x| x.get(it)) {
                        series.push(Series::new(
                            metric_name(name),
                            format!("{}:{name}", r.benchmark),
                            sm.score_unit.clone(),
                            Data::Value { value: sv.get() },
                        ));
                    }
                }
                run.series = series;
                runs.push(run);
            }
        }
        let mut printed = printed_metric(&m, pm);
        for (name, sm) in &r.secondary_metrics {
            printed.extend(printed_metric(&metric_name(name), sm));
        }
        if runs.is_empty() {
            // No raw data: the score is the one run.
            let mut s = Series::new(
                m.clone(),
                r.benchmark.clone(),
                pm.score_unit.clone(),
                Data::Value {
                    value: pm.score.get(),
                },
            );
            if let Some(e) = pm.score_error.and_then(JsonNumber::get) {
                s.stats.insert("score_error".into(), e);
            }
            base.index = 1;
            base.series = vec![s];
            runs.push(base);
        }
        blocks.push(Block {
            label: None,
            first_line,
            last_line,
            runs,
            printed,
        });
    }
    Ok(blocks)
}

fn printed_metric(metric: &str, m: &JsonMetric) -> Vec<PrintedStat> {
    let stat = |name: &str, percentile, value| PrintedStat {
        metric: metric.to_string(),
        percentile,
        name: name.to_string(),
        value,
    };
    let mut v = vec![stat("score", None, m.score.get())];
    if let Some(e) = m.score_error {
        v.push(stat("score_error", None, e.get()));
    }
    if let [low, high] = m.score_confidence[..] {
        v.push(stat("score_confidence_low", None, low.get()));
        v.push(stat("score_confidence_high", None, high.get()));
    }
    for (p, value) in &m.score_percentiles {
        if let Ok(p) = p.parse::<f64>() {
            v.push(stat("score_percentile", Some(p), value.get()));
        }
    }
    v
}

/// One benchmark being collected from a log and tables.
struct Bench {
    /// The benchmark's name: the log's full name, else the table's.
    name: String,
    mode: String,
    first_line: u64,
    last_line: u64,
    /// The `@Param` values, the benchmark's configuration.
    config: BTreeMap<String, Param>,
    runs: Vec<Run>,
    /// The table row's series and stats, when a table lists the benchmark.
    table: Option<(Series, u64)>,
    /// Secondary-metric rows of the table.
    table_extra: Vec<Series>,
    /// What the log's `Result "…":` lines printed about the primary metric.
    result: Vec<PrintedStat>,
    /// What the log announced: its forks and measured iterations per fork.
    planned: Option<(u32, u32)>,
}

#[derive(Default)]
struct LogState {
    benchmark: Option<String>,
    mode: Option<String>,
    params: BTreeMap<String, String>,
    threads: Option<f64>,
    fork: f64,
    /// `# Fork: k of N`'s N.
    forks: Option<u32>,
    /// `# Measurement: N iterations`.
    measured: Option<u32>,
    version: Option<String>,
    /// Index into the benches of the open iteration's benchmark.
    open: Option<usize>,
    /// Index into the benches of the benchmark whose `Result "…":` lines are being read.
    result: Option<usize>,
}

struct Collector {
    benches: Vec<Bench>,
    index: BTreeMap<String, usize>,
    /// Cells left out (the rest of their row kept), by why and text: what was read, its
    /// first line, how many lines had it and the last one.
    left_out: BTreeMap<(LeftOut, String), (String, u64, u64, u64)>,
}

/// Why a number cell was left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum LeftOut {
    /// It does not read as a number (`12x.3`).
    Unreadable,
    /// JMH printed it only as below its precision (`≈ 10⁻⁴`, `? 10??`).
    BelowPrecision,
}

/// The `·` before a secondary metric (`:createUser·p0.50`): a cp1252 copy writes it as
/// byte 0xB7, which reads as the replacement character.
const SECONDARY_DOT: [char; 2] = ['·', '\u{fffd}'];

/// `≈` as printed, or as a copy through a code page without it left it (`?`, or the
/// replacement character when the byte was not UTF-8).
fn approx_marker(s: &str) -> bool {
    matches!(s, "≈" | "?" | "\u{fffd}")
}

/// The number of JMH's `≈ 10⁻⁴` (below the printed precision): `10⁻⁴`, or `10??` when a
/// code page lost the superscripts, or `0`.
fn approx_power(s: &str) -> bool {
    s == "0" || (s.starts_with("10") && s.len() > 2 && s.parse::<f64>().is_err())
}

impl Collector {
    /// A number cell: `Some` when it reads, `None` for JMH's `NaN` and `≈ 10⁻⁴`; a cell
    /// that does not read (`12x.3`, or `10??`, whose exponent a cp1252 copy lost) is left
    /// out with a warning naming its line, so one cell never costs the file.
    fn cell(&mut self, s: &str, what: &str, n: u64) -> Option<f64> {
        let (marked, body) = match s.split_once(char::is_whitespace) {
            Some((m, rest)) if approx_marker(m) => (true, rest.trim()),
            _ => (false, s),
        };
        let power_of_ten = |b: &str| {
            b.strip_prefix("10")
                .is_some_and(|e| !e.is_empty() && e.chars().all(|c| "⁻⁰¹²³⁴⁵⁶⁷⁸⁹".contains(c)))
        };
        if body == "≈" || (marked && body == "0") {
            return None;
        }
        if marked && (power_of_ten(body) || approx_power(body)) {
            self.leave_out(LeftOut::BelowPrecision, s, what, n);
            return None;
        }
        match jmh_number(body, what, n) {
            Ok(v) => v,
            Err(_) => {
                self.leave_out(LeftOut::Unreadable, body, what, n);
                None
            }
        }
    }

    /// Notes the cell `text` (read as `what`) at line `n` as left out for `why`.
    fn leave_out(&mut self, why: LeftOut, text: &str, what: &str, n: u64) {
        let e = self
            .left_out
            .entry((why, text.to_string()))
            .or_insert_with(|| (what.to_string(), n, 0, 0));
        // Lines, not cells: a row may hold the same text as score and error.
        if e.3 != n {
            e.2 += 1;
            e.3 = n;
        }
    }

    /// The warnings about cells left out, one per reason and distinct text at its first
    /// line.
    fn warnings(&mut self) -> Vec<Parsed> {
        let mut w: Vec<Parsed> = std::mem::take(&mut self.left_out)
            .into_iter()
            .map(|((why, text), (what, first, count, last))| {
                let more = match count {
                    1 => String::new(),
                    k => format!("; {} more lines have it, the last at line {last}", k - 1),
                };
                let cell = match why {
                    LeftOut::Unreadable => format!("cannot read `{text}` ({what}) as a number"),
                    LeftOut::BelowPrecision => {
                        format!("`{text}` ({what}) is below the precision JMH printed")
                    }
                };
                Parsed::Warning {
                    line: first,
                    message: format!(
                        "JMH: {cell}: the value is left out, the rest of its line is kept{more}"
                    ),
                }
            })
            .collect();
        w.sort_by_key(|p| match p {
            Parsed::Warning { line, .. } => *line,
            Parsed::Block(_) => 0,
        });
        w
    }

    /// The benchmark `name` (full or as a table prints it) with these parameters and mode;
    /// a log's full name and a table's short one meet on `Class.method`.
    fn bench(
        &mut self,
        name: &str,
        params: &BTreeMap<String, String>,
        mode: &str,
        n: u64,
    ) -> usize {
        let key = group_key(&short_name(name), params, mode);
        if let Some(&i) = self.index.get(&key) {
            let b = &mut self.benches[i];
            b.last_line = n;
            if name.len() > b.name.len() {
                b.name = name.to_string();
            }
            return i;
        }
        self.benches.push(Bench {
            name: name.to_string(),
            mode: mode.to_string(),
            first_line: n,
            last_line: n,
            config: params
                .iter()
                .map(|(k, v)| (k.clone(), param_value(v)))
                .collect(),
            runs: Vec::new(),
            table: None,
            table_extra: Vec::new(),
            result: Vec::new(),
            planned: None,
        });
        self.index.insert(key, self.benches.len() - 1);
        self.benches.len() - 1
    }
}

fn log_and_tables(doc: &Document) -> Result<Vec<Parsed>, ParseError> {
    let mut c = Collector {
        benches: Vec::new(),
        index: BTreeMap::new(),
        left_out: BTreeMap::new(),
    };
    let mut st = LogState::default();
    let mut table: Option<Vec<String>> = None;
    // The line a log cut mid-write ends on: the last, without its newline.
    let cut_line = (!doc.text().ends_with('\n'))
        .then(|| doc.lines().last().map(|(n, _)| n))
        .flatten();
    let mut cut = None;
    for (n, line) in doc.lines() {
        if let Some(h) = TABLE_HEADER.captures(&line) {
            table = Some(
                PARAM_COLUMN
                    .captures_iter(&h[1])
                    .map(|c| c[1].to_string())
                    .collect(),
            );
            st.open = None;
            continue;
        }
        if let Some(columns) = &table {
            if line.trim().is_empty() {
                table = None;
                continue;
            }
            match table_row(&mut c, columns, line.trim(), n) {
                Err(e) if Some(n) == cut_line => {
                    cut = Some(Parsed::Warning {
                        line: n,
                        message: format!(
                            "the input ends inside this table row, without its newline ({}): left out",
                            e.message
                        ),
                    });
                }
                done => done?,
            }
            continue;
        }
        if let Some(v) = VERSION.captures(&line) {
            st = LogState {
                version: Some(v[1].to_string()),
                ..Default::default()
            };
        } else if let Some(b) = BENCHMARK.captures(&line) {
            st.benchmark = Some(b[1].to_string());
            st.open = None;
            st.result = None;
        } else if let Some(m) = MODE.captures(&line) {
            st.mode = Some(mode_short(&m[1]));
        } else if let Some(p) = PARAMETERS.captures(&line) {
            st.params = p[1]
                .split(',')
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .collect();
        } else if let Some(t) = THREADS.captures(&line) {
            st.threads = t[1].parse().ok();
        } else if let Some(f) = FORK.captures(&line) {
            st.fork = f[1].parse().unwrap_or(1.0);
            st.forks = f[2].parse().ok();
        } else if let Some(m) = MEASUREMENT.captures(&line) {
            st.measured = m[1].parse().ok();
        } else if let Some(it) = ITERATION.captures(&line) {
            let (Some(full), Some(mode)) = (st.benchmark.clone(), st.mode.clone()) else {
                continue;
            };
            let value = c.cell(&it[2], "iteration score", n);
            let unit = it[3].to_string();
            let b = c.bench(&full, &st.params, &mode, n);
            let mut run = c.benches[b].run(n);
            let params = &mut run.params;
            params.insert("fork".into(), Param::Num(st.fork.max(1.0)));
            params.insert("iteration".into(), Param::Num(it[1].parse().unwrap_or(0.0)));
            if let Some(t) = st.threads {
                params.insert("threads".into(), Param::Num(t));
            }
            if let Some(v) = &st.version {
                params.insert("jmh_version".into(), Param::from(v.as_str()));
            }
            let data = if mode == "sample" {
                Data::Ladder {
                    count: None,
                    points: Vec::new(),
                }
            } else {
                Data::Value { value }
            };
            let mut s = Series::new(mode.clone(), full, unit, data);
            if let (Some(v), "sample") = (value, mode.as_str()) {
                s.stats.insert("mean".into(), v);
            }
            let bench = &mut c.benches[b];
            run.series = vec![s];
            bench.runs.push(run);
            if let (Some(f), Some(m)) = (st.forks, st.measured) {
                bench.planned = Some((f, m));
            }
            st.open = Some(b);
        } else if let (Some(b), Some(x)) = (st.open, ITERATION_EXTRA.captures(&line)) {
            let name = x[1]
                .rsplit(SECONDARY_DOT)
                .next()
                .unwrap_or(&x[1])
                .to_string();
            let value = c.cell(&x[2], &name, n);
            let unit = x[3].to_string();
            let bench = &mut c.benches[b];
            let Some(run) = bench.runs.last_mut() else {
                continue;
            };
            run.last_line = n;
            match (percentile_of(&name), &mut run.series[0].data) {
                (Some(p), Data::Ladder { points, .. }) => points.push(LadderPoint {
                    percentile: p,
                    value,
                    line_value: None,
                }),
                _ => run.series.push(Series::new(
                    metric_name(&name),
                    x[1].to_string(),
                    unit,
                    Data::Value { value },
                )),
            }
        } else if RESULT.is_match(&line) {
            st.result = st.open.take();
        } else if let Some(b) = st.result {
            result_line(&mut c.benches[b], &line, n)?;
        }
    }
    let mut out = c.warnings();
    out.extend(cut);
    out.extend(c.benches.iter().filter_map(unfinished));
    out.extend(
        c.benches
            .into_iter()
            .map(|b| Parsed::Block(finish_bench(b))),
    );
    Ok(out)
}

/// A warning for a benchmark whose log holds fewer measured iterations than it announced
/// (`# Fork: k of N`, `# Measurement: M iterations`): a log cut short, or a run stopped,
/// stored with what it has.
fn unfinished(b: &Bench) -> Option<Parsed> {
    let (forks, per_fork) = b.planned?;
    let planned = u64::from(forks) * u64::from(per_fork);
    let measured = b.runs.len() as u64;
    (measured < planned).then(|| Parsed::Warning {
        line: b.runs.last().map_or(b.last_line, |r| r.last_line),
        message: format!(
            "{} ({}): {measured} of the {planned} measured iterations announced ({forks} fork{} × {per_fork}): the log ends before the benchmark does; stored with what it has",
            b.name,
            b.mode,
            if forks == 1 { "" } else { "s" },
        ),
    })
}

/// Reads a line under `Result "…":` into the benchmark's printed numbers: `score` and
/// `score_error`, `min` and `max` (percentiles 0 and 100), `stdev`, and the interval as
/// `score_confidence_low`/`_high`, in the iterations' unit. Other lines are ignored.
fn result_line(b: &mut Bench, line: &str, n: u64) -> Result<(), ParseError> {
    let mut push = |name: &str, percentile, text: &str| -> Result<(), ParseError> {
        let value = jmh_number(text, name, n)?;
        b.result.push(PrintedStat {
            metric: b.mode.clone(),
            percentile,
            name: name.to_string(),
            value,
        });
        Ok(())
    };
    if let Some(c) = RESULT_SCORE.captures(line) {
        push("score", None, &c[1])?;
        push("score_error", None, &c[2])?;
    } else if let Some(c) = RESULT_RANGE.captures(line) {
        push("min", Some(0.0), &c[1])?;
        push("max", Some(100.0), &c[2])?;
        push("stdev", None, &c[3])?;
    } else if let Some(c) = RESULT_CI.captures(line) {
        push("score_confidence_low", None, &c[1])?;
        push("score_confidence_high", None, &c[2])?;
    }
    Ok(())
}

/// Reads one table row into its benchmark's table series.
fn table_row(c: &mut Collector, columns: &[String], row: &str, n: u64) -> Result<(), ParseError> {
    let mut t: Vec<&str> = row.split_whitespace().collect();
    let bad = || ParseError::new(n, format!("JMH table row `{row}` has too few cells"));
    let unit = t.pop().ok_or_else(bad)?.to_string();
    // JMH prints a unit on every row (`ns/op`, `ops/s`, `#`, `%`): a number there is a
    // score whose unit is missing, as where a log ends mid-row (`avgt   10  1`).
    if unit.parse::<f64>().is_ok() || decimal_point(&unit).parse::<f64>().is_ok() {
        return Err(ParseError::new(
            n,
            format!("JMH table row `{row}` ends without its unit"),
        ));
    }
    // The numbers follow the mode: [count] score [± error], where a score or error may
    // be `≈ 10⁻⁴` (two words) and `±` may have become `?` or U+FFFD in a copy.
    let is_mode = |x: &&str| matches!(*x, "thrpt" | "avgt" | "sample" | "ss");
    let Some(m) = t.iter().rposition(is_mode) else {
        return Err(ParseError::new(
            n,
            format!("JMH table row `{row}` has no mode (thrpt, avgt, sample, ss): not a JMH row"),
        ));
    };
    let cells = t.split_off(m + 1);
    let mode = t.pop().ok_or_else(bad)?.to_string();
    let mut values: Vec<String> = Vec::new();
    let mut error_at = None;
    let mut i = 0;
    while i < cells.len() {
        let x = cells[i];
        let next = cells.get(i + 1).copied();
        let approx =
            x == "≈" || (approx_marker(x) && (values.is_empty() || next.is_some_and(approx_power)));
        if approx && next.is_some() {
            values.push(format!("{x} {}", next.unwrap_or_default()));
            i += 2;
        } else if (x == "±" || approx_marker(x)) && error_at.is_none() && !values.is_empty() {
            error_at = Some(values.len());
            i += 1;
        } else {
            values.push(x.to_string());
            i += 1;
        }
    }
    let (before, after) = values.split_at(error_at.unwrap_or(values.len()));
    let error = match after {
        [] => None,
        [e] => c.cell(e, "error", n),
        _ => return Err(bad()),
    };
    let (count, score) = match before {
        [score] => (None, c.cell(score, "score", n)),
        [count, score] => {
            let k = if count.bytes().all(|b| b.is_ascii_digit()) {
                count.parse::<u64>().ok()
            } else {
                c.cell(count, "count", n);
                None
            };
            (k, c.cell(score, "score", n))
        }
        _ => return Err(bad()),
    };
    let name = t.first().ok_or_else(bad)?.to_string();
    let values = &t[1..];
    let params: BTreeMap<String, String> = columns
        .iter()
        .zip(values)
        .filter(|(_, v)| **v != "N/A")
        .map(|(k, v)| (k.clone(), v.to_string()))
        .collect();
    let (base, secondary) = match name.split_once(':') {
        Some((b, s)) => (
            b.to_string(),
            Some(s.rsplit(SECONDARY_DOT).next().unwrap_or(s).to_string()),
        ),
        None => (name.clone(), None),
    };
    let b = c.bench(&base, &params, &mode, n);
    let bench = &mut c.benches[b];
    match secondary.as_deref().map(|s| (s, percentile_of(s))) {
        None => {
            let data = if mode == "sample" {
                Data::Ladder {
                    count,
                    points: Vec::new(),
                }
            } else {
                Data::Value { value: score }
            };
            let mut s = Series::new(bench.mode.clone(), base, unit, data);
            if let Some(v) = score {
                s.stats.insert("score".into(), v);
            }
            if let Some(e) = error {
                s.stats.insert("score_error".into(), e);
            }
            if let Some(k) = count {
                s.stats.insert("count".into(), k as f64);
            }
            bench.table = Some((s, n));
        }
        Some((_, Some(p))) => {
            if let Some((
                Series {
                    data: Data::Ladder { points, .. },
                    ..
                },
                _,
            )) = &mut bench.table
            {
                points.push(LadderPoint {
                    percentile: p,
                    value: score,
                    line_value: None,
                });
            }
        }
        Some((sec, None)) => {
            let mut s = Series::new(
                metric_name(sec),
                name.clone(),
                unit,
                Data::Value { value: score },
            );
            if let Some(e) = error {
                s.stats.insert("score_error".into(), e);
            }
            bench.table_extra.push(s);
        }
    }
    Ok(())
}

impl Bench {
    /// A new run of this benchmark at line `n`: its name, `@Param`s as config, and mode.
    fn run(&self, n: u64) -> Run {
        let mut run = Run {
            bench: Some(self.name.clone()),
            index: self.runs.len() as u32 + 1,
            first_line: n,
            last_line: n,
            ..Run::default()
        };
        for (k, v) in &self.config {
            run.set_config(k.clone(), v.clone());
        }
        run.params
            .insert("mode".into(), Param::from(self.mode.as_str()));
        run
    }
}

fn finish_bench(mut b: Bench) -> Block {
    let mut printed = Vec::new();
    let table_line = b.table.as_ref().map(|(_, n)| *n);
    if b.runs.is_empty() {
        if let Some((s, n)) = b.table.take() {
            let mut series = vec![s];
            series.append(&mut b.table_extra);
            let mut run = b.run(n);
            run.series = series;
            b.runs.push(run);
        }
    } else if let Some((s, _)) = b.table.take() {
        let stat = |name: &str, percentile, value| PrintedStat {
            metric: s.metric.clone(),
            percentile,
            name: name.to_string(),
            value,
        };
        for (k, v) in &s.stats {
            printed.push(stat(k, None, Some(*v)));
        }
        for p in s.ladder().unwrap_or(&[]) {
            printed.push(stat("score_percentile", Some(p.percentile), p.value));
        }
        for x in &b.table_extra {
            if let Data::Value { value } = x.data {
                printed.push(PrintedStat {
                    metric: x.metric.clone(),
                    percentile: None,
                    name: "score".into(),
                    value,
                });
            }
        }
    }
    // The log's `Result` numbers the table did not print already (the table's are as
    // precise, and its secondary rows are not in the log's summary).
    for p in std::mem::take(&mut b.result) {
        let same = |q: &PrintedStat| q.metric == p.metric && q.name == p.name;
        if !b.runs.is_empty() && !printed.iter().any(same) {
            printed.push(p);
        }
    }
    for r in &mut b.runs {
        r.bench = Some(b.name.clone());
    }
    Block {
        label: None,
        first_line: b.first_line,
        last_line: table_line.map_or(b.last_line, |t| t.max(b.last_line)),
        runs: b.runs,
        printed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every item a parse of `bytes` gives; it must give no error.
    fn parse_all(bytes: &[u8]) -> Vec<Parsed> {
        (FORMAT.parse)(Box::new(bytes))
            .map(|r| r.expect("no error"))
            .collect()
    }

    /// The warnings among `items`, with their lines.
    fn warnings_of(items: &[Parsed]) -> Vec<(u64, &str)> {
        items
            .iter()
            .filter_map(|p| match p {
                Parsed::Warning { line, message } => Some((*line, message.as_str())),
                Parsed::Block(_) => None,
            })
            .collect()
    }
    use crate::testutil::parse_ok;
    use std::path::PathBuf;

    fn real(name: &str) -> Vec<Block> {
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/real/jmh")
            .join(name);
        let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        parse_ok(&FORMAT, &bytes)
    }

    /// The block of `bench` in `mode` whose `@Param`s are `config`.
    fn block<'a>(
        blocks: &'a [Block],
        bench: &str,
        config: &[(&str, &str)],
        mode: &str,
    ) -> &'a Block {
        let text = |p: &Param| match p {
            Param::Text(t) => t.clone(),
            other => format!("{other:?}"),
        };
        blocks
            .iter()
            .find(|b| {
                let r = &b.runs[0];
                r.bench.as_deref() == Some(bench)
                    && r.params["mode"] == Param::from(mode)
                    && r.config.len() == config.len()
                    && config
                        .iter()
                        .all(|(k, v)| r.params.get(*k).map(text).as_deref() == Some(*v))
            })
            .unwrap_or_else(|| panic!("no block {bench} {config:?} {mode}"))
    }

    fn value(s: &Series) -> Option<f64> {
        match s.data {
            Data::Value { value } => value,
            _ => panic!("{} is not a value", s.metric),
        }
    }

    fn printed(b: &Block, name: &str, percentile: Option<f64>) -> Option<f64> {
        b.printed
            .iter()
            .find(|p| p.name == name && p.percentile == percentile)
            .and_then(|p| p.value)
    }

    #[test]
    fn json_raw_data_are_the_runs() {
        let blocks = real("jcasbin-jmh-result-9fbceef.json");
        assert_eq!(blocks.len(), 86);
        let b = block(
            &blocks,
            "org.casbin.jcasbin.main.benchmark.BenchmarkEnforce.enforce",
            &[
                ("dataScale", "small"),
                ("modelType", "basic"),
                ("useCache", "false"),
            ],
            "thrpt",
        );
        assert_eq!(b.label, None);
        assert_eq!(b.runs.len(), 3);
        let s = &b.runs[0].series[0];
        assert_eq!(s.metric, "thrpt");
        assert_eq!(s.unit, "ops/ms");
        assert_eq!(b.runs[0].params["modelType"], Param::from("basic"));
        let config: Vec<&str> = b.runs[0].config.iter().map(String::as_str).collect();
        assert_eq!(config, ["dataScale", "modelType", "useCache"]);
        // Iterations are replicates: equal identity.
        assert_eq!(b.runs[0].config_params(), b.runs[2].config_params());
        assert_eq!(b.runs[2].params["iteration"], Param::Num(3.0));
        assert_eq!(printed(b, "score", None), Some(1283.8587762278223));
        let modes: std::collections::BTreeSet<_> = blocks
            .iter()
            .map(|b| format!("{:?}", b.runs[0].params["mode"]))
            .collect();
        assert_eq!(modes.len(), 3, "thrpt, avgt and ss");
        // Benchmarks of several packages keep their package.
        let cached = block(
            &blocks,
            "org.casbin.jcasbin.main.benchmark.cached.BenchmarkCachedRaw.benchmarkCachedRaw",
            &[],
            "avgt",
        );
        assert!(cached.runs[0].config.is_empty());
        let api = blocks
            .iter()
            .find(|b| {
                b.runs[0].bench.as_deref()
                    == Some("org.casbin.jcasbin.main.benchmark.enforcer.BenchmarkAllModelApi.addPolicySmall")
            })
            .expect("an enforcer package benchmark");
        assert!(
            api.runs
                .iter()
                .all(|r| Param::from(r.series[0].metric.as_str()) == r.params["mode"])
        );
    }

    #[test]
    fn json_error_larger_than_score_is_kept() {
        let blocks = real("jcasbin-jmh-result-0b7774d.json");
        assert_eq!(blocks.len(), 37);
        let b = &blocks[0];
        assert_eq!(
            b.runs[0].bench.as_deref(),
            Some("org.casbin.jcasbin.main.benchmark.BenchmarkEnforce.enforce")
        );
        assert_eq!(b.runs[0].params["modelType"], Param::from("rbac"));
        assert_eq!(value(&b.runs[0].series[0]), Some(15.889612079979479));
        assert_eq!(value(&b.runs[2].series[0]), Some(24.119562527568988));
        assert_eq!(printed(b, "score", None), Some(20.33940552161268));
        assert_eq!(printed(b, "score_error", None), Some(75.81431512301063));
        // `scoreConfidence`: [-55.474909601397954, 96.1537206446233].
        assert_eq!(
            printed(b, "score_confidence_low", None),
            Some(-55.474909601397954)
        );
        assert_eq!(
            printed(b, "score_confidence_high", None),
            Some(96.1537206446233)
        );
        assert_eq!(
            printed(b, "score_percentile", Some(50.0)),
            Some(21.00904195728958)
        );
    }

    /// fixtures/real/jmh/hzt-utils-sort-double-list-20220531.md cut after its line 29
    /// (fork 2 of 2, iteration 2 of 3, before any `Result`): stored with a warning.
    #[test]
    fn a_log_cut_inside_a_fork_warns() {
        let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/real/jmh/hzt-utils-sort-double-list-20220531.md");
        let text = std::fs::read_to_string(p).unwrap();
        let cut: String = text.lines().take(29).map(|l| format!("{l}\n")).collect();
        let items = crate::testutil::items_json(&FORMAT, cut.as_bytes());
        let warnings: Vec<&serde_json::Value> =
            items.iter().filter_map(|i| i.get("warning")).collect();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!(warnings[0]["line"], 29);
        assert!(
            warnings[0]["message"]
                .as_str()
                .unwrap()
                .contains("5 of the 6 measured iterations announced (2 forks × 3)"),
            "{warnings:?}"
        );
        assert_eq!(
            crate::testutil::parse_ok(&FORMAT, cut.as_bytes())[0]
                .runs
                .len(),
            5
        );
        // The whole log announces what it holds.
        let whole = crate::testutil::items_json(&FORMAT, text.as_bytes());
        assert!(whole.iter().all(|i| i.get("warning").is_none()));
    }

    #[test]
    fn log_iterations_are_runs_and_the_table_is_printed() {
        let blocks = real("dubbo-triple-20240118.md");
        assert_eq!(blocks.len(), 12, "4 methods × thrpt, avgt, sample");
        let create = "org.apache.dubbo.benchmark.ClientPb.createUser";
        let t = block(&blocks, create, &[], "thrpt");
        assert_eq!(t.runs.len(), 3);
        assert_eq!(t.runs[0].series[0].metric, "thrpt");
        assert_eq!(value(&t.runs[0].series[0]), Some(12.371));
        assert_eq!(value(&t.runs[2].series[0]), Some(12.565));
        assert_eq!(t.runs[0].params["jmh_version"], Param::from("1.21"));
        assert_eq!(t.runs[0].params["threads"], Param::Num(32.0));
        assert_eq!(printed(t, "score", None), Some(12.453));
        assert_eq!(printed(t, "score_error", None), Some(1.823));
        // The log's `Result` lines add what the table does not print:
        // `(min, avg, max) = (12.371, 12.453, 12.565), stdev = 0.100` and
        // `CI (99.9%): [10.630, 14.276]`; its score and error are the table's.
        assert_eq!(printed(t, "min", Some(0.0)), Some(12.371));
        assert_eq!(printed(t, "max", Some(100.0)), Some(12.565));
        assert_eq!(printed(t, "stdev", None), Some(0.100));
        assert_eq!(printed(t, "score_confidence_low", None), Some(10.630));
        assert_eq!(printed(t, "score_confidence_high", None), Some(14.276));
        assert_eq!(t.printed.iter().filter(|p| p.name == "score").count(), 1);
        let s = block(&blocks, create, &[], "sample");
        assert_eq!(s.runs[0].series[0].metric, "sample");
        let first = &s.runs[0].series[0];
        assert_eq!(first.stats["mean"], 2.521);
        let l = first.ladder().unwrap();
        assert_eq!((l[1].percentile, l[1].value), (50.0, Some(2.556)));
        assert_eq!((l[5].percentile, l[5].value), (99.9, Some(11.373)));
        assert_eq!(l.last().unwrap().value, Some(15.122));
        assert_eq!(printed(s, "count", None), Some(379410.0));
        assert_eq!(printed(s, "score_percentile", Some(99.0)), Some(3.813));
        let a = block(
            &blocks,
            "org.apache.dubbo.benchmark.ClientPb.listUser",
            &[],
            "avgt",
        );
        assert_eq!(a.runs[0].series[0].unit, "ms/op");
        assert_eq!(printed(a, "score", None), Some(3.049));
    }

    #[test]
    fn table_with_parameter_columns() {
        let blocks = real("jmh-playground-branch-prediction.txt");
        assert_eq!(blocks.len(), 12);
        let b = block(
            &blocks,
            "BranchPrediction.hashSet",
            &[("same", "false"), ("shuffle", "true")],
            "avgt",
        );
        let s = &b.runs[0].series[0];
        assert_eq!(s.metric, "avgt");
        assert_eq!(value(s), Some(20.611));
        assert_eq!(s.stats["score_error"], 1.383);
        assert_eq!(s.stats["count"], 10.0);
        assert_eq!(s.unit, "ns/op");
        let last = block(
            &blocks,
            "BranchPrediction.stringSwitch",
            &[("same", "true"), ("shuffle", "true")],
            "avgt",
        );
        assert_eq!(value(&last.runs[0].series[0]), Some(26.962));
        assert_eq!(last.runs[0].params["same"], Param::from("true"));
    }

    #[test]
    fn table_only_sample_mode_is_a_ladder() {
        let text = "Benchmark                                 Mode     Cnt   Score   Error   Units\n\
ClientPb.getUser                        sample  373243   2.569 ± 0.003   ms/op\n\
ClientPb.getUser:getUser·p0.50          sample           2.589           ms/op\n\
ClientPb.getUser:getUser·p1.00          sample          16.384           ms/op\n\
ClientPb.getUser:·gc.alloc.rate         sample      5  123.000 ±  4.000  MB/sec\n";
        let b = parse_ok(&FORMAT, text.as_bytes());
        let s = &b[0].runs[0].series[0];
        assert!(matches!(
            s.data,
            Data::Ladder {
                count: Some(373243),
                ..
            }
        ));
        let l = s.ladder().unwrap();
        assert_eq!((l[0].percentile, l[0].value), (50.0, Some(2.589)));
        assert_eq!((l[1].percentile, l[1].value), (100.0, Some(16.384)));
        let gc = &b[0].runs[0].series[1];
        assert_eq!(b[0].runs[0].bench.as_deref(), Some("ClientPb.getUser"));
        assert_eq!(gc.metric, "gc_alloc_rate");
        assert_eq!((value(gc), gc.unit.as_str()), (Some(123.0), "MB/sec"));
    }

    #[test]
    fn a_bad_cell_is_a_warning_naming_its_line_and_the_rest_is_kept() {
        let text = "Benchmark  Mode  Cnt  Score  Error  Units\n\
                    A.b  thrpt  5  12x.3 ± 1.0  ops/s\n\
                    A.c  avgt  5  ? 10?? ± 10??  s/op\n\
                    A.d  avgt  5  ≈ 10⁻⁴  s/op\n\
                    A.e  avgt  5  2.5 \u{fffd} 0.1  s/op\n\
                    A.f  sample  7  ? 10??  s/op\n\
                    A.f:A.f\u{fffd}p0.00  sample  ? 0  s/op\n\
                    A.f:A.f\u{fffd}p0.50  sample  ? 10??  s/op\n\
                    A.f:A.f\u{fffd}p1.00  sample  0.5  s/op\n";
        let items = parse_all(text.as_bytes());
        let warnings = warnings_of(&items);
        assert_eq!(warnings.len(), 4, "{warnings:?}");
        assert_eq!(warnings[0].0, 2);
        assert!(
            warnings[0].1.contains("cannot read `12x.3` (score)"),
            "{}",
            warnings[0].1
        );
        // The error of line 3 lost its `≈` in the copy: it is only unreadable.
        assert_eq!(warnings[1].0, 3);
        assert!(
            warnings[1].1.contains("cannot read `10??` (error)"),
            "{}",
            warnings[1].1
        );
        // `≈ 10⁻⁴` and its cp1252 copy `? 10??` warn alike.
        assert_eq!(warnings[2].0, 3);
        assert!(
            warnings[2]
                .1
                .contains("`? 10??` (score) is below the precision"),
            "{}",
            warnings[2].1
        );
        assert!(warnings[2].1.contains("2 more lines"), "{}", warnings[2].1);
        assert_eq!(warnings[3].0, 4);
        assert!(
            warnings[3]
                .1
                .contains("`≈ 10⁻⁴` (score) is below the precision"),
            "{}",
            warnings[3].1
        );
        let blocks: Vec<&Block> = items
            .iter()
            .filter_map(|p| match p {
                Parsed::Block(b) => Some(b),
                Parsed::Warning { .. } => None,
            })
            .collect();
        assert_eq!(blocks.len(), 5);
        let s = |i: usize| &blocks[i].runs[0].series[0];
        assert_eq!(value(s(0)), None);
        assert_eq!(s(0).stats["score_error"], 1.0);
        assert_eq!(s(0).stats["count"], 5.0);
        assert_eq!((value(s(1)), s(1).stats.get("count")), (None, Some(&5.0)));
        assert_eq!(value(s(2)), None);
        assert_eq!((value(s(3)), s(3).stats["score_error"]), (Some(2.5), 0.1));
        let ladder = s(4).ladder().unwrap();
        let got: Vec<(f64, Option<f64>)> = ladder.iter().map(|p| (p.percentile, p.value)).collect();
        assert_eq!(got, [(0.0, None), (50.0, None), (100.0, Some(0.5))]);
    }

    #[test]
    fn a_row_without_a_mode_is_an_error() {
        let text = "Benchmark  Mode  Cnt  Score  Error  Units\nA.b  fast  5  1.0 ± 1.0  ops/s\n";
        let err = (FORMAT.parse)(Box::new(text.as_bytes()))
            .find_map(Result::err)
            .unwrap();
        assert_eq!(err.line, 2);
        assert!(err.message.contains("has no mode"), "{}", err.message);
    }

    #[test]
    fn an_approximate_score_warns_naming_its_line() {
        // fixtures/jmh/gc-profiler-and-single-shot.txt line 7: `Parse.noop … avgt 5 ≈ 10⁻⁴ us/op`.
        let bytes = crate::testutil::fixture("jmh/gc-profiler-and-single-shot.txt");
        let items = parse_all(&bytes);
        let warnings = warnings_of(&items);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!(warnings[0].0, 7);
        assert!(
            warnings[0]
                .1
                .contains("`≈ 10⁻⁴` (score) is below the precision"),
            "{}",
            warnings[0].1
        );
        let noop = items
            .iter()
            .find_map(|p| match p {
                Parsed::Block(b) if b.runs[0].bench.as_deref() == Some("Parse.noop") => Some(b),
                _ => None,
            })
            .expect("Parse.noop");
        assert_eq!(value(&noop.runs[0].series[0]), None);
        assert_eq!(noop.runs[0].series[0].stats["count"], 5.0);
    }

    /// jmh-playground-branch-prediction.txt cut inside its third row (`avgt   10   6` of
    /// `6.749 ± 0.488  ns/op`): the two rows before it are stored, the cut one is left out
    /// with a warning, not stored as a score of 10 in unit `6`. The same row followed by
    /// another line is an error naming it.
    #[test]
    fn a_table_row_the_input_ends_inside_is_left_out() {
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/real/jmh/jmh-playground-branch-prediction.txt");
        let text = std::fs::read_to_string(p).unwrap();
        let at = text.find("avgt   10   6.749").unwrap() + "avgt   10   6".len();
        let items = parse_all(&text.as_bytes()[..at]);
        let warnings = warnings_of(&items);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!(warnings[0].0, 4);
        assert!(
            warnings[0].1.contains("ends without its unit"),
            "{warnings:?}"
        );
        let scores: Vec<(Option<f64>, String)> = items
            .iter()
            .filter_map(|p| match p {
                Parsed::Block(b) => Some(&b.runs[0].series[0]),
                _ => None,
            })
            .map(|s| (s.stats.get("score").copied(), s.unit.clone()))
            .collect();
        assert_eq!(
            scores,
            [
                (Some(13.507), "ns/op".to_string()),
                (Some(20.611), "ns/op".to_string())
            ]
        );
        let garbled = format!("{}\n{}", &text[..at], &text[at..]);
        let e = (FORMAT.parse)(Box::new(garbled.as_bytes()))
            .find_map(Result::err)
            .expect("an error");
        assert_eq!(e.line, 4, "{e}");
    }

    #[test]
    fn fixtures_snapshot() {
        insta::glob!("../../../fixtures/jmh", "*.*", |path| {
            let items = crate::testutil::items_json(&FORMAT, &std::fs::read(path).unwrap());
            insta::assert_json_snapshot!(items);
        });
    }
}
