//! What a tool printed about its own numbers (JMH score ± error, hyperfine mean ± σ,
//! Criterion's estimates, k6's summary), read back from stored runs for display beside
//! bench-db's own: the per-metric stats of `runs --json`, the printed rows of `export`,
//! and the one headline number per side that `compare` and the report show.
//!
//! A printed number belongs to the block (one invocation: a JMH benchmark with its mode
//! and parameters, a hyperfine command, a Criterion benchmark) or to a run's series, in the
//! metric's stored unit (the parsers convert). A printed percentile (JMH
//! `scorePercentiles`, hyperfine and Criterion `min`/`median`/`max`) is a point of the
//! block's printed ladder. Nothing here feeds an analysis: the block's printed numbers are
//! kept beside its runs, so a printed percentile is never taken for a replicate. Pure: no IO.

use crate::dataset::StoredRun;
use bench_db_parsers::{Data, PrintedStat};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Every number the tool printed about `metric` for the run's block or benchmark that is
/// not a percentile: the block's printed numbers, then the series' own stats (which win on
/// a shared name, being the run's). Non-finite printings are left out.
pub fn stats(run: &StoredRun, metric: &str) -> BTreeMap<String, f64> {
    let mut m = BTreeMap::new();
    for p in &run.printed {
        if let (true, None, Some(v)) = (p.metric == metric, p.percentile, p.value) {
            m.insert(p.name.clone(), v);
        }
    }
    if let Some(s) = run.series(metric) {
        m.extend(s.stats.iter().map(|(k, v)| (k.clone(), *v)));
    }
    m
}

/// The metrics the run has printed numbers about: its series' metrics in order, then the
/// metrics only its block's printed numbers name (a Criterion change read alone).
pub fn metrics(run: &StoredRun) -> Vec<&str> {
    let mut out: Vec<&str> = run.run.series.iter().map(|s| s.metric.as_str()).collect();
    let mut seen: BTreeSet<&str> = out.iter().copied().collect();
    for p in &run.printed {
        if seen.insert(p.metric.as_str()) {
            out.push(p.metric.as_str());
        }
    }
    out
}

/// The unit of a printed number named `name` about a metric stored in `unit`: `%` for a
/// percentage (`change_pct`, `…_pct`), none for counts, ratios, flags, p-values and
/// JLBH's `var(log)` (a variance of logarithms, FORMATS.md §1.6), else the metric's own.
pub fn unit<'a>(name: &str, unit: &'a str) -> &'a str {
    const UNITLESS: [&str; 15] = [
        "count",
        "buckets",
        "sub_buckets",
        "var_log",
        "change_improved",
        "change_regressed",
        "change_none",
        "change_p",
        "relative",
        "relative_error",
        "outliers",
        "passes",
        "fails",
        "total",
        "total_count",
    ];
    if name.ends_with("_pct") {
        "%"
    } else if UNITLESS.contains(&name) {
        ""
    } else {
        unit
    }
}

/// What a tool printed for one side of a compared cell, in `unit`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Headline {
    /// The number's name as the tool names it (`score`, `mean`, `time`, `p(95)`).
    pub name: String,
    pub value: f64,
    /// The ± the tool printed with it (JMH's error, hyperfine's σ).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<f64>,
    /// The interval the tool printed with it (JMH `scoreConfidence`, Criterion's bounds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub low: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub high: Option<f64>,
    /// The extremes the tool printed beside it (tsar's MIN and MAX).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    /// Why the number differs from bench-db's central value of the same thing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub unit: String,
    /// The tool, as its name is written (`JMH`, `hyperfine`, `Criterion`, `k6`).
    #[serde(skip)]
    pub tool: &'static str,
}

impl Headline {
    /// `12.453 ± 1.823 ops/ms`, `506.81 [419.13, 639.03] ns`, with `fmt` for the numbers.
    pub fn text(&self, fmt: impl Fn(f64) -> String) -> String {
        let mut s = fmt(self.value);
        if let Some(e) = self.error {
            s.push_str(&format!(" ± {}", fmt(e)));
        }
        if let (Some(l), Some(h)) = (self.low, self.high) {
            s.push_str(&format!(" [{}, {}]", fmt(l), fmt(h)));
        }
        if !self.unit.is_empty() {
            s.push(' ');
            s.push_str(&self.unit);
        }
        if let (Some(l), Some(h)) = (self.min, self.max) {
            s.push_str(&format!(" (min {}, max {})", fmt(l), fmt(h)));
        }
        s
    }
}

/// A change the tool itself printed between the two sides of a cell, in percent, with its
/// interval: Criterion's change of an estimate (`mean`, `median`) of the candidate against
/// the base it ran against.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PrintedChange {
    /// The estimate that changed (`mean`, `median`).
    pub name: String,
    pub pct: f64,
    pub low_pct: f64,
    pub high_pct: f64,
    #[serde(skip)]
    pub tool: &'static str,
}

/// The change the candidate's block printed against its own base, when that base is the
/// baseline's block: a Criterion folder's `change/` compares `new/` with the `base/` it ran
/// against, which is the baseline when the candidate's mean over (1 + its mean change)
/// gives the baseline's mean (to 1e-9: the same numbers, not a close run). Each side's
/// runs must come from one block; empty otherwise.
pub fn change(
    baseline: &[&StoredRun],
    candidate: &[&StoredRun],
    metric: &str,
) -> Vec<PrintedChange> {
    let one_block = |runs: &[&StoredRun]| runs.windows(2).all(|w| w[0].block_id == w[1].block_id);
    let (Some(b), Some(c)) = (baseline.first(), candidate.first()) else {
        return Vec::new();
    };
    if !one_block(baseline) || !one_block(candidate) || c.format != "criterion" {
        return Vec::new();
    }
    let (bs, cs) = (stats(b, metric), stats(c, metric));
    let against_baseline = match (bs.get("mean"), cs.get("mean"), cs.get("change_mean_pct")) {
        (Some(&base), Some(&new), Some(&pct)) => {
            let implied = new / (1.0 + pct / 100.0);
            (implied - base).abs() <= 1e-9 * base.abs()
        }
        _ => false,
    };
    if !against_baseline {
        return Vec::new();
    }
    ["mean", "median"]
        .into_iter()
        .filter_map(|name| {
            let get = |suffix: &str| cs.get(&format!("change_{name}{suffix}_pct")).copied();
            Some(PrintedChange {
                name: name.to_string(),
                pct: get("")?,
                low_pct: get("_low")?,
                high_pct: get("_high")?,
                tool: tool_name(&c.format),
            })
        })
        .collect()
}

/// What one side of a cell printed: the headline of its one block, or why there is none
/// to show when its runs come from several blocks (several invocations pooled).
#[derive(Debug, Clone, PartialEq)]
pub enum Side {
    /// No block of the side printed a summary for the cell.
    None,
    One(Headline),
    /// The side pools this many invocations, at least one of which printed a summary.
    Pooled(usize),
}

/// The printed headline of the cell `metric` (at `percentile`) over `runs`, the runs of one
/// side that hold the cell: only when they come from exactly one block, since a printed
/// summary describes one invocation.
pub fn side(runs: &[&StoredRun], metric: &str, percentile: Option<f64>) -> Side {
    let blocks: BTreeSet<i64> = runs.iter().map(|r| r.block_id).collect();
    let headlines: Vec<Headline> = blocks
        .iter()
        .filter_map(|b| {
            let first = runs.iter().find(|r| r.block_id == *b)?;
            headline(first, metric, percentile)
        })
        .collect();
    match (blocks.len(), headlines.into_iter().next()) {
        (_, None) => Side::None,
        (1, Some(h)) => Side::One(h),
        (n, Some(_)) => Side::Pooled(n),
    }
}

/// What a variation table shows beside a group's values (the runs of one block): the
/// tool's [`headline`] for the cell, unless the table holds it already (JLBH's `% Variation`
/// has a column; k6 prints a run's own values, which are the table's).
pub fn beside_variation(
    runs: &[&StoredRun],
    metric: &str,
    percentile: Option<f64>,
) -> Option<Headline> {
    let first = runs.first()?;
    let own_value = first.format == "k6";
    match side(runs, metric, percentile) {
        Side::One(h) if h.name != "variation_pct" && !own_value => Some(h),
        _ => None,
    }
}

/// The tool's headline number for `metric` (at `percentile`) in `run`'s block: JMH's score
/// ± error with `scoreConfidence`, hyperfine's mean ± σ, Criterion's typical estimate with
/// its interval as its terminal prints it (`time:`: the slope, else the mean), and for a
/// percentile the printed point there (k6's `p(95)`, JMH's `scorePercentiles`).
pub fn headline(run: &StoredRun, metric: &str, percentile: Option<f64>) -> Option<Headline> {
    let series = run.series(metric);
    let series_unit = series.map_or("", |s| s.unit.as_str());
    let st = stats(run, metric);
    // A printed percent (JLBH's `variation_pct`) or count is not in the metric's unit.
    let make = |name: &str, value: f64, error: Option<f64>, low, high| Headline {
        name: name.to_string(),
        value,
        error,
        low,
        high,
        min: None,
        max: None,
        note: None,
        unit: unit(name, series_unit).to_string(),
        tool: tool_name(&run.format),
    };
    if let Some(p) = percentile {
        return printed_point(run, metric, p)
            .or_else(|| (run.format == "k6").then(|| k6_point(run, metric, p))?)
            .map(|(name, v)| make(&name, v, None, None, None));
    }
    let get = |k: &str| st.get(k).copied();
    match run.format.as_str() {
        "jmh" => Some(make(
            "score",
            get("score")?,
            get("score_error"),
            get("score_confidence_low"),
            get("score_confidence_high"),
        )),
        "hyperfine" => Some(make("mean", get("mean")?, get("stddev"), None, None)),
        // Criterion prints its typical estimate: the slope when it sampled linearly, else
        // the mean (`Estimates::typical`).
        "criterion" => match ["slope", "mean"]
            .into_iter()
            .find_map(|k| Some((k, get(k)?)))
        {
            Some((k, v)) => Some(make(
                k,
                v,
                None,
                get(&format!("{k}_low")),
                get(&format!("{k}_high")),
            )),
            None => {
                let v = match series?.data {
                    Data::Value { value } => value?,
                    _ => return None,
                };
                Some(make(metric, v, None, get("low"), get("high")))
            }
        },
        "k6" => match series?.data {
            Data::Value { value } => Some(make(metric, value?, None, None, None)),
            _ => None,
        },
        "tsar" => {
            let mean = get("MEAN")?;
            let samples: Vec<f64> = match &series?.data {
                Data::TimeSeries { points } => points.iter().filter_map(|p| p.value).collect(),
                _ => Vec::new(),
            };
            Some(Headline {
                min: get("MIN"),
                max: get("MAX"),
                note: tsar_note(mean, get("MIN"), get("MAX"), &samples),
                ..make("MEAN", mean, None, None, None)
            })
        }
        _ => None,
    }
}

/// Why tsar's printed MEAN, MIN and MAX differ from the rows it printed, when they do.
/// Its running mean (`framework.c`: `mean = ((n − 1)·mean + x)/n` with n counting the
/// records before this one) gives the first record no weight, so the MEAN can be that of
/// rows 2 to n; bench-db's mean keeps every row, the first being a measured interval like
/// the others (tsar's own MAX counts it). A MEAN that is neither, or a MIN or MAX beyond
/// the rows, is of rows the table does not hold: an excerpt of a longer history.
fn tsar_note(mean: f64, min: Option<f64>, max: Option<f64>, rows: &[f64]) -> Option<String> {
    use crate::stats::describe::mean as mean_of;
    let all = mean_of(rows)?;
    // Printed with two decimals, or three significant digits before K, M, …
    let close = |v: f64, printed: f64| {
        let tolerance = if printed.abs() < 1000.0 {
            0.005
        } else {
            0.005 * printed.abs()
        };
        (v - printed).abs() <= tolerance
    };
    let (lo, hi) = rows
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    let beyond = min.is_some_and(|m| m < lo && !close(lo, m))
        || max.is_some_and(|m| m > hi && !close(hi, m));
    if close(all, mean) && !beyond {
        return None;
    }
    let n = rows.len();
    if !beyond
        && rows
            .get(1..)
            .and_then(mean_of)
            .is_some_and(|r| close(r, mean))
    {
        return Some(format!(
            "tsar's MEAN is the mean of rows 2–{n} (its running mean gives the first row no weight); bench-db's mean is of all {n} rows"
        ));
    }
    Some(format!(
        "tsar's MEAN, MIN and MAX are not of the {n} rows shown (their mean {}, range {} to {}): they cover rows the table does not hold, an excerpt of a longer history",
        crate::numfmt::sig3(all),
        crate::numfmt::sig3(lo),
        crate::numfmt::sig3(hi)
    ))
}

/// The block's printed point of `metric` at `percentile`, with its name.
fn printed_point(run: &StoredRun, metric: &str, percentile: f64) -> Option<(String, f64)> {
    run.printed
        .iter()
        .filter(|p| p.metric == metric)
        .find(|p| {
            p.percentile
                .is_some_and(|q| (q - percentile).abs() < crate::dataset::PERCENTILE_TOLERANCE)
        })
        .and_then(|p: &PrintedStat| Some((p.name.clone(), p.value?)))
}

/// k6's own printing of a ladder point: `med`, `max`, `p(90)`.
fn k6_point(run: &StoredRun, metric: &str, percentile: f64) -> Option<(String, f64)> {
    let point = run
        .series(metric)?
        .ladder()?
        .iter()
        .find(|p| (p.percentile - percentile).abs() < crate::dataset::PERCENTILE_TOLERANCE)?;
    let name = if percentile == 50.0 {
        "med".to_string()
    } else if percentile == 100.0 {
        "max".to_string()
    } else {
        format!("p({})", crate::numfmt::percentile_number(percentile))
    };
    Some((name, point.value?))
}

/// A format's tool as its name is written.
fn tool_name(format: &str) -> &'static str {
    match format {
        "jmh" => "JMH",
        "hyperfine" => "hyperfine",
        "criterion" => "Criterion",
        "k6" => "k6",
        "tsar" => "tsar",
        _ => "the tool",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// samples/tsar: the clsn history's traffic.bytin (72, 5, 4, 4, 21, 19; MEAN 10.60,
    /// the mean of rows 2–6); the rpi excerpt's cpu.util (7.77 … 2.34; MEAN 2.51, MAX
    /// 14.68 above every row) and mem.util (MIN 7.82 below every row); and a MEAN that is
    /// the rows' own as printed (0.146 for their 0.1467).
    #[test]
    fn tsar_notes_say_which_rows_its_summary_is_of() {
        let bytin = tsar_note(
            10.6,
            Some(4.0),
            Some(72.0),
            &[72.0, 5.0, 4.0, 4.0, 21.0, 19.0],
        );
        assert!(
            bytin
                .unwrap()
                .starts_with("tsar's MEAN is the mean of rows 2–6")
        );
        let cpu = [7.77, 6.39, 5.01, 6.24, 2.77, 2.34];
        assert_eq!(
            tsar_note(2.51, Some(1.67), Some(14.68), &cpu).unwrap(),
            "tsar's MEAN, MIN and MAX are not of the 6 rows shown (their mean 5.09, range 2.34 to 7.77): they cover rows the table does not hold, an excerpt of a longer history"
        );
        let mem = [10.08, 10.11, 10.11, 10.10, 10.11, 10.09];
        assert!(
            tsar_note(9.08, Some(7.82), Some(10.27), &mem)
                .unwrap()
                .contains("not of the 6 rows")
        );
        let load = [0.28, 0.20, 0.25, 0.09, 0.02, 0.04];
        assert_eq!(tsar_note(0.146, Some(0.02), Some(0.28), &load), None);
    }
    use crate::analysis::testdata::stored;
    use bench_db_parsers::{LadderPoint, Series};

    fn stat(metric: &str, percentile: Option<f64>, name: &str, value: f64) -> PrintedStat {
        PrintedStat {
            metric: metric.into(),
            percentile,
            name: name.into(),
            value: Some(value),
        }
    }

    /// A run of block `block` holding one value of `metric`.
    fn run(format: &str, id: i64, block: i64, metric: &str, unit: &str, v: f64) -> StoredRun {
        let mut r = stored(
            id,
            format,
            "x",
            vec![Series::new(
                metric,
                metric,
                unit,
                Data::Value { value: Some(v) },
            )],
        );
        r.block_id = block;
        r
    }

    /// dubbo-triple-20240118.md, createUser thrpt: `12.453 ±(99.9%) 1.823 ops/ms`,
    /// `CI (99.9%): [10.630, 14.276]`, iterations 12.371 … 12.565.
    fn jmh_block() -> Vec<StoredRun> {
        let printed = vec![
            stat("thrpt", None, "score", 12.453),
            stat("thrpt", None, "score_error", 1.823),
            stat("thrpt", None, "score_confidence_low", 10.630),
            stat("thrpt", None, "score_confidence_high", 14.276),
            stat("thrpt", Some(0.0), "min", 12.371),
            stat("thrpt", Some(100.0), "max", 12.565),
        ];
        [12.371, 12.424, 12.565]
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let mut r = run("jmh", i as i64 + 1, 7, "thrpt", "ops/ms", *v);
                r.printed = printed.clone();
                r
            })
            .collect()
    }

    #[test]
    fn stats_leave_printed_percentiles_to_the_points() {
        let runs = jmh_block();
        let s = stats(&runs[1], "thrpt");
        assert_eq!(
            s.keys().map(String::as_str).collect::<Vec<_>>(),
            [
                "score",
                "score_confidence_high",
                "score_confidence_low",
                "score_error"
            ]
        );
        assert_eq!(s["score_error"], 1.823);
    }

    #[test]
    fn one_block_shows_the_jmh_score_and_several_are_pooled() {
        let runs = jmh_block();
        let held: Vec<&StoredRun> = runs.iter().collect();
        let Side::One(h) = side(&held, "thrpt", None) else {
            panic!("one block")
        };
        assert_eq!(
            (h.name.as_str(), h.value, h.error, h.low, h.high),
            ("score", 12.453, Some(1.823), Some(10.630), Some(14.276))
        );
        assert_eq!((h.unit.as_str(), h.tool), ("ops/ms", "JMH"));
        assert_eq!(
            h.text(|v| crate::numfmt::sig(v, 5)),
            "12.453 ± 1.823 [10.63, 14.276] ops/ms"
        );
        // The printed max is the point at percentile 100.
        let Side::One(max) = side(&held, "thrpt", Some(100.0)) else {
            panic!("a printed point")
        };
        assert_eq!((max.name.as_str(), max.value), ("max", 12.565));
        let mut other = jmh_block();
        for r in &mut other {
            r.block_id = 8;
            r.id += 10;
        }
        let both: Vec<&StoredRun> = runs.iter().chain(&other).collect();
        assert_eq!(side(&both, "thrpt", None), Side::Pooled(2));
        // A format that prints no per-cell summary shows none.
        let jlbh = run("jlbh", 30, 9, "end_to_end", "us", 4.0);
        assert_eq!(side(&[&jlbh], "end_to_end", None), Side::None);
    }

    #[test]
    fn headlines_per_tool() {
        // two-commands.json, `sleep 0.01`: mean 0.012654691440000001 ± 0.0024002142030061027 s.
        let mut h = run("hyperfine", 1, 1, "time", "s", 0.010335841440000002);
        h.printed = vec![
            stat("time", None, "mean", 0.012654691440000001),
            stat("time", None, "stddev", 0.0024002142030061027),
        ];
        let got = headline(&h, "time", None).unwrap();
        assert_eq!(
            (got.name.as_str(), got.value, got.error, got.low),
            (
                "mean",
                0.012654691440000001,
                Some(0.0024002142030061027),
                None
            )
        );
        // run3-terminal.txt, fib/fib 10: `time: [442.98 ns 500.76 ns 566.31 ns]`.
        let mut c = run("criterion", 2, 2, "time", "ns", 500.76);
        c.run.series[0].stats = [("low".to_string(), 442.98), ("high".to_string(), 566.31)]
            .into_iter()
            .collect();
        let got = headline(&c, "time", None).unwrap();
        assert_eq!(
            (got.name.as_str(), got.value, got.low, got.high),
            ("time", 500.76, Some(442.98), Some(566.31))
        );
        // run3/…/fib 10/new/estimates.json: mean 506.8147449045671 [419.13…, 639.02…].
        c.printed = vec![
            stat("time", None, "mean", 506.8147449045671),
            stat("time", None, "mean_low", 419.13248667586754),
            stat("time", None, "mean_high", 639.0273907827485),
        ];
        let got = headline(&c, "time", None).unwrap();
        assert_eq!(
            (got.name.as_str(), got.value, got.low, got.high),
            (
                "mean",
                506.8147449045671,
                Some(419.13248667586754),
                Some(639.0273907827485)
            )
        );
        // With its slope, what the terminal printed for the same run: 500.76 [442.98,
        // 566.31] (estimates.json: slope 500.76010626079335 [442.9794…, 566.3148…]).
        c.printed.extend([
            stat("time", None, "slope", 500.76010626079335),
            stat("time", None, "slope_low", 442.9794459789466),
            stat("time", None, "slope_high", 566.314899180219),
        ]);
        let got = headline(&c, "time", None).unwrap();
        assert_eq!(
            (got.name.as_str(), got.value, got.low, got.high),
            (
                "slope",
                500.76010626079335,
                Some(442.9794459789466),
                Some(566.314899180219)
            )
        );
        // express-readme-9a78fa2.md: `p(95)=36.32ms`.
        let mut k = stored(
            3,
            "k6",
            "x",
            vec![Series::new(
                "http_req_duration",
                "http_req_duration",
                "ms",
                Data::Ladder {
                    count: None,
                    points: vec![LadderPoint {
                        percentile: 95.0,
                        value: Some(36.32),
                        line_value: None,
                    }],
                },
            )],
        );
        k.format = "k6".into();
        let got = headline(&k, "http_req_duration", Some(95.0)).unwrap();
        assert_eq!((got.name.as_str(), got.value), ("p(95)", 36.32));
        assert_eq!(headline(&k, "http_req_duration", Some(99.0)), None);
    }

    #[test]
    fn units_of_printed_numbers() {
        assert_eq!(unit("change_pct", "ns"), "%");
        assert_eq!(unit("change_p", "ns"), "");
        assert_eq!(unit("relative", "ms"), "");
        assert_eq!(unit("score_error", "ops/ms"), "ops/ms");
        // HdrHistogram's footer counts, JLBH's var(log) and Criterion's verdict flags.
        for name in [
            "buckets",
            "sub_buckets",
            "var_log",
            "change_regressed",
            "change_none",
        ] {
            assert_eq!(unit(name, "us"), "", "{name}");
        }
    }
}
