//! Criterion.rs results (format `criterion`): the terminal output of `cargo bench`, and the
//! JSON files Criterion writes under `target/criterion/<group>/<bench>/{new,base,change}/`.
//!
//! ```text
//! fib/fib 10              time:   [442.98 ns 500.76 ns 566.31 ns]
//!                         thrpt:  [1.7658 Melem/s 1.9970 Melem/s 2.2574 Melem/s]
//!                  change:
//!                         time:   [−16.623% +3.8274% +36.407%] (p = 0.80 > 0.05)
//! Found 12 outliers among 100 measurements (12.00%)
//! ```
//!
//! Every benchmark is one block; its metric is `time` in `ns` (lower is better), and its
//! throughput, when set, `thrpt` in `elem/s` or `B/s` (higher is better).
//!
//! Identity: `bench` is the id as Criterion prints it, `group/function/value`
//! (`fib/fib 10`). No config: the id already holds the function and input value (JSON
//! `group_id`, `function_id`, `value_str` and the throughput are kept as plain params); the
//! sample's `iters` is measured. The samples are the replicates. A block is one benchmark
//! of a `cargo bench` run rather than the whole run, as the estimates and change Criterion
//! printed belong to one benchmark and block stats name no bench. No label (the output has
//! no lead line) and no timestamp.
//! - Terminal output: one run. The `time:` middle value (Criterion's slope estimate, not
//!   the mean) converted exactly to ns, with stats `low` and `high` (the confidence
//!   bounds) and `outliers`; `thrpt:` likewise, prefixes expanded (`K`/`M`/`G` 1000,
//!   `Ki`/`Mi`/`Gi` 1024). The `change:` lines are kept in the block's printed stats
//!   (`change_low_pct`, `change_pct`, `change_high_pct`, `change_p` of `time`; the three
//!   percentages of `thrpt`), and the sentence under them as a flag of `time` with value 1:
//!   `change_improved`, `change_regressed`, `change_none` (No change in performance
//!   detected) or `change_within_noise`.
//! - JSON: a stream of Criterion's documents for one benchmark, in any order:
//!   `benchmark.json` (names, throughput), `sample.json` (iteration counts and times),
//!   `estimates.json` (new) and `change/estimates.json`, after an optional
//!   `{"criterion_baseline": "<folder>"}`. `bench-db ingest` feeds one such stream per
//!   measurement folder (`new/`, or a `--save-baseline` name), so a whole `target/criterion`
//!   folder ingests as one source per benchmark and baseline, and the folder name becomes
//!   the tag `criterion_baseline` of its runs (`compare --baseline
//!   tag.criterion_baseline=main --candidate tag.criterion_baseline=new`). The samples are
//!   the runs: `times[i] / iters[i]` ns, with param `iters`.
//!   The estimates' point values and bounds (`mean`, `median`, `slope`, `std_dev`,
//!   `median_abs_dev`; `*_low`, `*_high`; the `median` at percentile 50) and the change
//!   (`change_mean_pct`, `change_median_pct`, with `*_low_pct`, `*_high_pct`) are printed
//!   stats. An `estimates.json` or `change/estimates.json` read without samples is one run
//!   (the mean estimate as its `time`; none for a change alone) with those printed stats,
//!   its bench from a `{"criterion_bench": "<group>/<bench>"}` line when ingest gives one.
//!   A `sample.json` read alone (no `benchmark.json` beside it) gives a warning and no block.
//!
//! Fixtures: `fixtures/real/criterion/run3-terminal.txt`,
//! `fixtures/real/criterion/run3/criterion/fib/fib 10/new/`.
//!
//! A `time:` line whose numbers or units do not parse, or JSON that is not Criterion's, is
//! an error naming the line.

use crate::document::{self, Document};
use crate::error::ParseError;
use crate::format::{Format, Head, ParseIter};
use crate::model::{Block, Data, Param, Parsed, PrintedStat, Run, Series};
use crate::text::metric_name;
use crate::text::re;
use crate::units::scaled_decimal;
use regex::Regex;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::sync::LazyLock;

/// The format entry for the registry.
pub const FORMAT: Format = Format::new("criterion", "1", sniff, parse)
    .read_whole()
    .claims_at_most(95);

/// `name   time:   [a u b u c u]`, the name optional (printed on its own line when long).
static TIME: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(\S.*?)?\s+time:\s+\[(\S+) (\S+) (\S+) (\S+) (\S+) (\S+)\]\s*$"));
static THRPT: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s+thrpt:\s+\[(\S+) (\S+) (\S+) (\S+) (\S+) (\S+)\]\s*$"));
static CHANGE: LazyLock<Regex> = LazyLock::new(|| re(r"^\s+change:\s*(.*)$"));
/// `[−16.623% +3.8274% +36.407%] (p = 0.80 > 0.05)`, after `change:` or `time:`.
static CHANGE_VALUES: LazyLock<Regex> =
    LazyLock::new(|| re(r"\[(\S+)% (\S+)% (\S+)%\](?:\s+\(p = (\S+) [<>] \S+\))?"));
static OUTLIERS: LazyLock<Regex> =
    LazyLock::new(|| re(r"^Found (\d+) outliers among (\d+) measurements"));
static NAME_LINE: LazyLock<Regex> = LazyLock::new(|| re(r"^(\S.*?)\s*$"));

/// Confidence that `head` holds Criterion output or one of its JSON files.
pub fn sniff(head: &Head) -> u8 {
    let t = head.text.trim_start();
    if t.starts_with('{') {
        let criterion = (t.contains("\"full_id\"") && t.contains("\"directory_name\""))
            || t.starts_with("{\"sampling_mode\"")
            || t.starts_with("{\"mean\":{\"confidence_interval\"")
            // A lone estimates file after ingest's `{"criterion_baseline": …}` line.
            || (t.starts_with("{\"criterion_")
                && t.contains("{\"mean\":{\"confidence_interval\""));
        return if criterion { 95 } else { 0 };
    }
    if head.file_name == "tukey.json" && t.starts_with('[') {
        let fences = serde_json::from_str::<Vec<f64>>(t.trim()).is_ok_and(|v| v.len() == 4);
        return if fences { 90 } else { 0 };
    }
    for line in head.text.lines().take(4000) {
        if let Some(c) = TIME.captures(line.trim_end_matches('\r'))
            && time_pow(&c[3]).is_some()
        {
            return 95;
        }
    }
    0
}

/// Parses Criterion terminal output or JSON documents (see the module doc).
pub fn parse<'a>(r: Box<dyn BufRead + 'a>) -> ParseIter<'a> {
    document::parse(r, |doc| {
        let t = doc.text().trim_start();
        if t.starts_with('{') || t.starts_with('[') {
            json(doc.text())
        } else {
            terminal(doc).map(|b| b.into_iter().map(Parsed::Block).collect())
        }
    })
}

/// Power of ten of a time unit relative to ns.
fn time_pow(unit: &str) -> Option<i32> {
    match unit {
        "ps" => Some(-3),
        "ns" => Some(0),
        "µs" | "us" | "μs" => Some(3),
        "ms" => Some(6),
        "s" => Some(9),
        _ => None,
    }
}

fn ns(num: &str, unit: &str, n: u64) -> Result<f64, ParseError> {
    time_pow(unit)
        .and_then(|p| scaled_decimal(num, p))
        .ok_or_else(|| {
            ParseError::new(
                n,
                format!("Criterion time: cannot read `{num} {unit}` as a time"),
            )
        })
}

/// A throughput (`1.9970 Melem/s`, `12.5 MiB/s`) in `elem/s` or `B/s`.
fn per_second(num: &str, unit: &str, n: u64) -> Result<(f64, &'static str), ParseError> {
    let bad = || {
        ParseError::new(
            n,
            format!("Criterion thrpt: cannot read `{num} {unit}` as a throughput"),
        )
    };
    let per = unit.strip_suffix("/s").ok_or_else(bad)?;
    // Decimal prefixes move the decimal point (exact); binary ones multiply.
    let (pow10, binary, base) = match per {
        "elem" => (0, 1.0, "elem/s"),
        "Kelem" => (3, 1.0, "elem/s"),
        "Melem" => (6, 1.0, "elem/s"),
        "Gelem" => (9, 1.0, "elem/s"),
        "B" => (0, 1.0, "B/s"),
        "KB" => (3, 1.0, "B/s"),
        "MB" => (6, 1.0, "B/s"),
        "GB" => (9, 1.0, "B/s"),
        "KiB" => (0, 1024.0, "B/s"),
        "MiB" => (0, 1024.0 * 1024.0, "B/s"),
        "GiB" => (0, 1024.0 * 1024.0 * 1024.0, "B/s"),
        _ => return Err(bad()),
    };
    let v = scaled_decimal(num, pow10).ok_or_else(bad)?;
    Ok((v * binary, base))
}

/// A signed percentage as Criterion prints it (`−16.623`, `+3.8274`; U+2212 minus).
fn pct(s: &str, n: u64) -> Result<f64, ParseError> {
    s.replace('\u{2212}', "-")
        .trim_start_matches('+')
        .parse()
        .map_err(|_| ParseError::new(n, format!("Criterion change: cannot read `{s}%`")))
}

struct Pending {
    name: String,
    first_line: u64,
    last_line: u64,
    series: Vec<Series>,
    printed: Vec<PrintedStat>,
    in_change: bool,
    samples: Option<f64>,
}

fn terminal(doc: &Document) -> Result<Vec<Block>, ParseError> {
    let mut blocks = Vec::new();
    let mut cur: Option<Pending> = None;
    let mut last_name: Option<(String, u64)> = None;
    let close = |p: Pending, blocks: &mut Vec<Block>| {
        let mut params = BTreeMap::new();
        if let Some(s) = p.samples {
            params.insert("samples".to_string(), Param::Num(s));
        }
        blocks.push(Block {
            label: None,
            first_line: p.first_line,
            last_line: p.last_line,
            runs: vec![Run {
                bench: Some(p.name),
                config: Default::default(),
                index: 1,
                first_line: p.first_line,
                last_line: p.last_line,
                params,
                tags: BTreeMap::new(),
                series: p.series,
            }],
            printed: p.printed,
        });
    };
    for (n, line) in doc.lines() {
        if let Some(p) = cur.as_mut()
            && p.in_change
        {
            if let Some(c) = CHANGE_VALUES.captures(&line)
                && line.trim_start().starts_with("time:")
            {
                change_stats(p, &c, n)?;
                continue;
            }
            if line.trim_start().starts_with("thrpt:") {
                if let Some(c) = CHANGE_VALUES.captures(&line)
                    && let Some(t) = p.series.iter().position(|s| s.metric == "thrpt")
                {
                    change_stats_of(p, t, &c, n)?;
                }
                continue;
            }
            if let Some(flag) = change_sentence(line.trim()) {
                let metric = p.series[0].metric.clone();
                p.printed.push(PrintedStat {
                    metric,
                    percentile: None,
                    name: flag.to_string(),
                    value: Some(1.0),
                });
                p.last_line = n;
                continue;
            }
            p.in_change = false;
        }
        if let Some(c) = TIME.captures(&line)
            && time_pow(&c[3]).is_some()
        {
            let name = match c.get(1) {
                Some(m) => m.as_str().trim().to_string(),
                None => match last_name.take() {
                    Some((name, _)) => name,
                    None => continue,
                },
            };
            if let Some(p) = cur.take() {
                close(p, &mut blocks);
            }
            let mut s = Series::new(
                "time",
                name.clone(),
                "ns",
                Data::Value {
                    value: Some(ns(&c[4], &c[5], n)?),
                },
            );
            s.stats.insert("low".into(), ns(&c[2], &c[3], n)?);
            s.stats.insert("high".into(), ns(&c[6], &c[7], n)?);
            cur = Some(Pending {
                name,
                first_line: n,
                last_line: n,
                series: vec![s],
                printed: Vec::new(),
                in_change: false,
                samples: None,
            });
            continue;
        }
        if let (Some(c), Some(p)) = (THRPT.captures(&line), cur.as_mut()) {
            let (mid, unit) = per_second(&c[3], &c[4], n)?;
            let mut s = Series::new(
                "thrpt",
                format!("{} thrpt", p.name),
                unit,
                Data::Value { value: Some(mid) },
            );
            s.stats.insert("low".into(), per_second(&c[1], &c[2], n)?.0);
            s.stats
                .insert("high".into(), per_second(&c[5], &c[6], n)?.0);
            p.series.push(s);
            p.last_line = n;
            continue;
        }
        if let (Some(c), Some(p)) = (CHANGE.captures(&line), cur.as_mut()) {
            p.in_change = true;
            p.last_line = n;
            if let Some(v) = CHANGE_VALUES.captures(&c[1]) {
                change_stats(p, &v, n)?;
            }
            continue;
        }
        if let (Some(c), Some(p)) = (OUTLIERS.captures(&line), cur.as_mut()) {
            let outliers: f64 = c[1].parse().unwrap_or(0.0);
            p.series[0].stats.insert("outliers".into(), outliers);
            p.samples = c[2].parse().ok();
            p.last_line = n;
            continue;
        }
        if !line.starts_with(' ')
            && !line.starts_with("Benchmarking ")
            && let Some(c) = NAME_LINE.captures(&line)
        {
            last_name = Some((c[1].to_string(), n));
        }
    }
    if let Some(p) = cur.take() {
        close(p, &mut blocks);
    }
    Ok(blocks)
}

/// Criterion's sentence under a change as a flag of the `time` metric (value 1): its
/// verdict on the change, kept as the one number that names it.
fn change_sentence(line: &str) -> Option<&'static str> {
    match line {
        "Performance has improved." => Some("change_improved"),
        "Performance has regressed." => Some("change_regressed"),
        "No change in performance detected." => Some("change_none"),
        "Change within noise threshold." => Some("change_within_noise"),
        _ => None,
    }
}

fn change_stats(p: &mut Pending, c: &regex::Captures, n: u64) -> Result<(), ParseError> {
    change_stats_of(p, 0, c, n)
}

/// The change of the series at `series` (`time`, or `thrpt` on its own line).
fn change_stats_of(
    p: &mut Pending,
    series: usize,
    c: &regex::Captures,
    n: u64,
) -> Result<(), ParseError> {
    let metric = p.series[series].metric.clone();
    let stat = |name: &str, value| PrintedStat {
        metric: metric.clone(),
        percentile: None,
        name: name.to_string(),
        value: Some(value),
    };
    p.printed.push(stat("change_low_pct", pct(&c[1], n)?));
    p.printed.push(stat("change_pct", pct(&c[2], n)?));
    p.printed.push(stat("change_high_pct", pct(&c[3], n)?));
    if let Some(pv) = c.get(4) {
        let v: f64 = pv.as_str().parse().map_err(|_| {
            ParseError::new(n, format!("Criterion change: bad p `{}`", pv.as_str()))
        })?;
        p.printed.push(stat("change_p", v));
    }
    p.last_line = n;
    Ok(())
}

/// The documents of one benchmark, by kind.
#[derive(Default)]
struct Docs {
    /// The measurement folder (`new`, or a `--save-baseline` name), when the stream says.
    baseline: Option<String>,
    /// The benchmark as its folders name it (`fib/fib 10`), when the stream says (a lone
    /// estimates file has no `benchmark.json`).
    bench: Option<String>,
    benchmark: Option<Value>,
    sample: Option<(Value, u64)>,
    estimates: Option<Value>,
    change: Option<Value>,
}

fn json(text: &str) -> Result<Vec<Parsed>, ParseError> {
    let mut docs = Docs::default();
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let mut line_at = LineAt::default();
    loop {
        let start_line = line_at.at(text, stream.byte_offset());
        let Some(v) = stream.next() else { break };
        // A document cut short fails where the next one begins: the error names the line
        // its own document begins on (a folder's one-line `sample.json`).
        let v = v.map_err(|e| {
            let at = e.line() as u64;
            let cut = at > start_line && e.column() <= 1;
            let text = e.to_string();
            // The line is the error's own; the stream's line and column are not the file's.
            let what = text
                .rsplit_once(" at line ")
                .map_or(text.as_str(), |(w, _)| w);
            let (line, what) = if cut {
                (start_line, format!("{what} (the document ends early)"))
            } else {
                (at.max(1), what.to_string())
            };
            ParseError::new(line, format!("Criterion JSON: {what}"))
        })?;
        let has = |k: &str| v.get(k).is_some();
        if v.get("criterion_baseline").is_some() || v.get("criterion_bench").is_some() {
            let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
            docs.baseline = text("criterion_baseline");
            docs.bench = text("criterion_bench");
        } else if has("full_id") {
            docs.benchmark = Some(v);
        } else if has("iters") && has("times") {
            docs.sample = Some((v, start_line));
        } else if has("mean") && has("std_dev") {
            docs.estimates = Some(v);
        } else if has("mean") {
            docs.change = Some(v);
        } else if !v.is_array() {
            return Err(ParseError::new(
                start_line,
                "Criterion JSON: not benchmark.json, sample.json or estimates.json",
            ));
        }
    }
    let total = text.lines().count().max(1) as u64;
    if docs.sample.is_none() && (docs.estimates.is_some() || docs.change.is_some()) {
        return Ok(vec![Parsed::Block(estimates_block(&docs, total))]);
    }
    let (Some(bench), Some((sample, sample_line))) = (&docs.benchmark, &docs.sample) else {
        return Ok(vec![Parsed::Warning {
            line: 1,
            message: "a Criterion file without its benchmark.json and sample.json: ingest the \
                      benchmark's `new` folder (or the whole target/criterion folder)"
                .into(),
        }]);
    };
    let id = bench
        .get("full_id")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let metric = "time".to_string();
    let array = |key: &str| -> Result<&Vec<Value>, ParseError> {
        sample.get(key).and_then(Value::as_array).ok_or_else(|| {
            ParseError::new(
                *sample_line,
                format!("Criterion sample.json: no `{key}` array"),
            )
        })
    };
    let (iters, times) = (array("iters")?, array("times")?);
    if iters.len() != times.len() {
        return Err(ParseError::new(
            *sample_line,
            format!(
                "Criterion sample.json: {} iteration counts for {} times",
                iters.len(),
                times.len()
            ),
        ));
    }
    let mut base = BTreeMap::new();
    for key in ["group_id", "function_id", "value_str"] {
        if let Some(s) = bench.get(key).and_then(Value::as_str) {
            base.insert(key.to_string(), Param::from(s));
        }
    }
    if let Some(t) = bench.get("throughput").and_then(Value::as_object) {
        for (k, v) in t {
            if let Some(x) = v.as_f64() {
                base.insert(format!("throughput_{}", metric_name(k)), Param::Num(x));
            }
        }
    }
    if let Some(m) = sample.get("sampling_mode").and_then(Value::as_str) {
        base.insert("sampling_mode".into(), Param::from(m));
    }
    // `iters[i]` and `times[i]` are one sample: they are read as pairs, and a pair with a
    // value that is not a finite number is left out whole (with a warning), so no later
    // sample is paired with another's count.
    let mut unreadable = Vec::new();
    let pairs: Vec<(usize, f64, f64)> = iters
        .iter()
        .zip(times)
        .enumerate()
        .filter_map(|(i, (it, t))| match (it.as_f64(), t.as_f64()) {
            (Some(it), Some(t)) if it.is_finite() && t.is_finite() => Some((i, it, t)),
            _ => {
                unreadable.push((i + 1).to_string());
                None
            }
        })
        .collect();
    let runs = pairs
        .iter()
        .map(|&(i, it, t)| {
            let mut params = base.clone();
            params.insert("iters".into(), Param::Num(it));
            let mut tags = BTreeMap::new();
            if let Some(b) = &docs.baseline {
                tags.insert("criterion_baseline".to_string(), b.clone());
            }
            Run {
                bench: Some(id.clone()),
                config: Default::default(),
                index: i as u32 + 1,
                first_line: 1,
                last_line: total,
                params,
                tags,
                series: vec![Series::new(
                    metric.clone(),
                    id.clone(),
                    "ns",
                    Data::Value {
                        value: (it > 0.0).then(|| t / it),
                    },
                )],
            }
        })
        .collect();
    let printed = estimate_stats(&docs, &metric);
    let mut out = Vec::new();
    if !unreadable.is_empty() {
        out.push(Parsed::Warning {
            line: *sample_line,
            message: format!(
                "Criterion sample.json: sample(s) {} left out: an iteration count or time is not a number",
                unreadable.join(", ")
            ),
        });
    }
    out.push(Parsed::Block(Block {
        label: None,
        first_line: 1,
        last_line: total,
        runs,
        printed,
    }));
    Ok(out)
}

/// The printed numbers of the estimates files, metric `metric`, in ns (`estimates.json`)
/// or percent (`change/estimates.json`): each estimate's point value and the bounds of
/// its confidence interval (`mean`, `mean_low`, `mean_high`, …; the `median` is the point
/// at percentile 50), and the change's (`change_mean_pct`, `change_mean_low_pct`, …).
fn estimate_stats(docs: &Docs, metric: &str) -> Vec<PrintedStat> {
    let mut printed = Vec::new();
    let mut stat = |name: String, value: Option<f64>| {
        printed.push(PrintedStat {
            metric: metric.to_string(),
            percentile: (name == "median").then_some(50.0),
            name,
            value,
        })
    };
    let point =
        |v: &Value, k: &str, f: &str| v.get(k).and_then(|x| x.get(f)).and_then(Value::as_f64);
    let bound = |v: &Value, k: &str, f: &str| {
        v.get(k)
            .and_then(|x| x.get("confidence_interval"))
            .and_then(|x| x.get(f))
            .and_then(Value::as_f64)
    };
    if let Some(e) = &docs.estimates {
        for k in ["mean", "median", "slope", "std_dev", "median_abs_dev"] {
            if e.get(k).is_some_and(|x| !x.is_null()) {
                stat(k.to_string(), point(e, k, "point_estimate"));
                stat(format!("{k}_low"), bound(e, k, "lower_bound"));
                stat(format!("{k}_high"), bound(e, k, "upper_bound"));
            }
        }
    }
    if let Some(c) = &docs.change {
        let pct = |v: Option<f64>| v.map(|v| v * 100.0);
        for k in ["mean", "median"] {
            if let Some(v) = point(c, k, "point_estimate") {
                stat(format!("change_{k}_pct"), Some(v * 100.0));
                stat(
                    format!("change_{k}_low_pct"),
                    pct(bound(c, k, "lower_bound")),
                );
                stat(
                    format!("change_{k}_high_pct"),
                    pct(bound(c, k, "upper_bound")),
                );
            }
        }
    }
    printed
}

/// A benchmark known only by its estimates (an `estimates.json` or `change/estimates.json`
/// ingested alone): one run holding the mean estimate as its `time` (none for a change
/// alone), and the estimates as the block's printed numbers.
fn estimates_block(docs: &Docs, total: u64) -> Block {
    let metric = "time";
    let mut run = Run {
        bench: docs.bench.clone(),
        index: 1,
        first_line: 1,
        last_line: total,
        ..Run::default()
    };
    if let Some(b) = &docs.baseline {
        run.tags.insert("criterion_baseline".into(), b.clone());
    }
    let mean = docs
        .estimates
        .as_ref()
        .and_then(|e| e.get("mean"))
        .and_then(|m| m.get("point_estimate"))
        .and_then(Value::as_f64);
    if docs.estimates.is_some() {
        let display = docs.bench.clone().unwrap_or_else(|| metric.to_string());
        run.series = vec![Series::new(
            metric,
            display,
            "ns",
            Data::Value { value: mean },
        )];
    }
    Block {
        label: None,
        first_line: 1,
        last_line: total,
        runs: vec![run],
        printed: estimate_stats(docs, metric),
    }
}

/// The 1-based lines of byte offsets in one text, asked in increasing order: each call
/// counts on from the last (counting from the start for every document made a stream of
/// many documents quadratic: 16 MB took 49 s).
#[derive(Default)]
struct LineAt {
    offset: usize,
    newlines: u64,
}

impl LineAt {
    /// The 1-based line of byte `offset` in `text`.
    fn at(&mut self, text: &str, offset: usize) -> u64 {
        let offset = offset.min(text.len()).max(self.offset);
        let counted = &text.as_bytes()[self.offset..offset];
        self.newlines += counted.iter().filter(|b| **b == b'\n').count() as u64;
        self.offset = offset;
        // Whitespace after the previous document belongs to the next one.
        let skip = text.as_bytes()[offset..]
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .filter(|b| **b == b'\n')
            .count();
        self.newlines + 1 + skip as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{parse_ok, printed, single as value};
    use std::path::PathBuf;

    fn real(rel: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/real/criterion")
            .join(rel)
    }

    fn terminal_blocks(name: &str) -> Vec<Block> {
        parse_ok(&FORMAT, &std::fs::read(real(name)).unwrap())
    }

    /// A benchmark's `new` folder as ingest streams it.
    fn folder(rel: &str) -> Vec<Block> {
        let dir = real(rel);
        let mut bytes = Vec::new();
        for f in [
            "benchmark.json",
            "estimates.json",
            "sample.json",
            "../change/estimates.json",
        ] {
            if let Ok(b) = std::fs::read(dir.join(f)) {
                bytes.extend(b);
                bytes.push(b'\n');
            }
        }
        parse_ok(&FORMAT, &bytes)
    }

    #[test]
    fn terminal_time_thrpt_and_change() {
        let blocks = terminal_blocks("run3-terminal.txt");
        assert_eq!(blocks.len(), 2);
        let b = &blocks[0];
        assert_eq!(b.label, None);
        assert_eq!(b.runs[0].bench.as_deref(), Some("fib/fib 10"));
        assert_eq!(blocks[1].runs[0].bench.as_deref(), Some("fib/fib 15"));
        let t = &b.runs[0].series[0];
        assert_eq!((t.metric.as_str(), t.unit.as_str()), ("time", "ns"));
        assert_eq!(value(t), 500.76);
        assert_eq!(t.stats["low"], 442.98);
        assert_eq!(t.stats["high"], 566.31);
        assert_eq!(t.stats["outliers"], 12.0);
        let th = &b.runs[0].series[1];
        assert_eq!((th.metric.as_str(), th.unit.as_str()), ("thrpt", "elem/s"));
        assert_eq!(value(th), 1.9970e6);
        assert_eq!(printed(b, "change_low_pct"), Some(-16.623));
        assert_eq!(printed(b, "change_pct"), Some(3.8274));
        assert_eq!(printed(b, "change_p"), Some(0.80));
        // `thrpt:  [−26.690% −3.6864% +19.937%]` and `No change in performance detected.`
        let thrpt = |name: &str| {
            b.printed
                .iter()
                .find(|p| p.metric == "thrpt" && p.name == name)
                .and_then(|p| p.value)
        };
        assert_eq!(thrpt("change_low_pct"), Some(-26.690));
        assert_eq!(thrpt("change_pct"), Some(-3.6864));
        assert_eq!(thrpt("change_high_pct"), Some(19.937));
        assert_eq!(printed(b, "change_none"), Some(1.0));
        assert_eq!(printed(&blocks[1], "change_regressed"), Some(1.0));
        assert_eq!(printed(&blocks[1], "change_none"), None);
        let b15 = &blocks[1];
        // µs converted exactly to ns.
        assert_eq!(value(&b15.runs[0].series[0]), 7652.8);
        assert_eq!(b15.runs[0].series[0].stats["high"], 8027.3);
        assert_eq!(value(&b15.runs[0].series[1]), 130.67e3);
        assert_eq!(printed(b15, "change_high_pct"), Some(57.463));
    }

    #[test]
    fn samples_are_read_as_pairs_and_an_unreadable_pair_is_left_out_whole() {
        // One bad entry in each array, at different samples: dropping them separately
        // would pair sample 3's count with sample 4's time.
        let text = r#"{"group_id":"g","function_id":"f","value_str":null,"throughput":null,"full_id":"g/f","directory_name":"g/f","title":"g/f"}
{"sampling_mode":"Linear","iters":[1.0,"x",3.0,4.0],"times":[10.0,20.0,null,40.0]}"#;
        let items = json(text).unwrap();
        let warning = items.iter().find_map(|p| match p {
            Parsed::Warning { message, .. } => Some(message.clone()),
            _ => None,
        });
        assert!(warning.unwrap().contains("sample(s) 2, 3 left out"));
        let Some(Parsed::Block(b)) = items.iter().find(|p| matches!(p, Parsed::Block(_))) else {
            panic!("no block")
        };
        let got: Vec<(u32, f64)> = b
            .runs
            .iter()
            .map(|r| (r.index, value(&r.series[0])))
            .collect();
        assert_eq!(got, [(1, 10.0), (4, 10.0)]);
    }

    #[test]
    fn first_run_has_no_change() {
        let blocks = terminal_blocks("run1-terminal.txt");
        assert_eq!(blocks.len(), 2);
        assert_eq!(value(&blocks[0].runs[0].series[0]), 511.91);
        assert_eq!(value(&blocks[1].runs[0].series[0]), 4950.6);
        assert!(blocks[0].printed.is_empty());
        assert_eq!(blocks[1].runs[0].params["samples"], Param::Num(100.0));
    }

    #[test]
    fn a_new_folder_is_one_benchmark_with_its_samples_as_runs() {
        let blocks = folder("run3/criterion/fib/fib 10/new");
        assert_eq!(blocks.len(), 1);
        let b = &blocks[0];
        assert_eq!(b.label, None);
        assert_eq!(b.runs.len(), 100);
        assert!(
            b.runs
                .iter()
                .all(|r| r.bench.as_deref() == Some("fib/fib 10"))
        );
        assert!(b.runs.iter().all(|r| r.config.is_empty()));
        let s = &b.runs[0].series[0];
        assert_eq!((s.metric.as_str(), s.unit.as_str()), ("time", "ns"));
        assert_eq!(value(s), 155081.0 / 1093.0);
        assert_eq!(b.runs[1].params["iters"], Param::Num(2186.0));
        assert_eq!(value(&b.runs[1].series[0]), 12472194.0 / 2186.0);
        assert_eq!(b.runs[0].params["throughput_elements"], Param::Num(1.0));
        assert_eq!(printed(b, "slope"), Some(500.76010626079335));
        assert_eq!(printed(b, "mean"), Some(506.8147449045671));
        assert_eq!(printed(b, "median"), Some(438.9753684010409));
        let change = printed(b, "change_mean_pct").unwrap();
        assert!((change - 3.827446391268419).abs() < 1e-12);
    }

    #[test]
    fn a_saved_baseline_folder_is_tagged() {
        let dir = real("baselines/criterion/fib/fib 15/before");
        let mut bytes = b"{\"criterion_baseline\":\"before\"}\n".to_vec();
        for f in ["benchmark.json", "estimates.json", "sample.json"] {
            bytes.extend(std::fs::read(dir.join(f)).unwrap());
        }
        let b = &parse_ok(&FORMAT, &bytes)[0];
        assert_eq!(b.runs[0].tags["criterion_baseline"], "before");
        assert_eq!(value(&b.runs[0].series[0]), 156863.0 / 85.0);
        assert_eq!(printed(b, "slope"), Some(5591.371121689166));
        let t = terminal_blocks("save-after-terminal.txt");
        assert_eq!(value(&t[0].runs[0].series[0]), 506.70);
        assert_eq!(value(&t[1].runs[0].series[0]), 5439.2);
    }

    #[test]
    fn lone_estimates_are_one_run_with_the_estimates_printed() {
        let dir = real("run3/criterion/fib/fib 10");
        let mut text =
            b"{\"criterion_baseline\":\"new\",\"criterion_bench\":\"fib/fib 10\"}\n".to_vec();
        text.extend(std::fs::read(dir.join("new/estimates.json")).unwrap());
        let head = Head {
            file_name: "estimates.json",
            text: std::str::from_utf8(&text).unwrap(),
            complete: true,
        };
        assert_eq!(sniff(&head), 95);
        let blocks = parse_ok(&FORMAT, &text);
        assert_eq!(blocks.len(), 1);
        let b = &blocks[0];
        assert_eq!(b.runs.len(), 1);
        assert_eq!(b.runs[0].bench.as_deref(), Some("fib/fib 10"));
        assert_eq!(b.runs[0].tags["criterion_baseline"], "new");
        // Read by hand from the file: mean 506.8147449045671 [419.13248667586754,
        // 639.0273907827485], median 438.9753684010409, slope 500.76010626079335.
        assert_eq!(value(&b.runs[0].series[0]), 506.8147449045671);
        assert_eq!(b.runs[0].series[0].unit, "ns");
        assert_eq!(printed(b, "mean"), Some(506.8147449045671));
        assert_eq!(printed(b, "mean_low"), Some(419.13248667586754));
        assert_eq!(printed(b, "mean_high"), Some(639.0273907827485));
        assert_eq!(printed(b, "slope"), Some(500.76010626079335));
        let median = b.printed.iter().find(|p| p.name == "median").unwrap();
        assert_eq!(
            (median.percentile, median.value),
            (Some(50.0), Some(438.9753684010409))
        );
        // The change alone, as fractions in the file: mean 0.03827446391268419
        // [−0.16622616975091384, 0.3640713992700534], stored in percent.
        let text = std::fs::read(dir.join("change/estimates.json")).unwrap();
        let blocks = parse_ok(&FORMAT, &text);
        let b = &blocks[0];
        assert!(b.runs[0].series.is_empty());
        assert_eq!(b.runs[0].bench, None);
        assert_eq!(
            printed(b, "change_mean_pct"),
            Some(0.03827446391268419 * 100.0)
        );
        assert_eq!(
            printed(b, "change_mean_low_pct"),
            Some(-0.16622616975091384 * 100.0)
        );
        assert_eq!(
            printed(b, "change_mean_high_pct"),
            Some(0.3640713992700534 * 100.0)
        );
    }

    #[test]
    fn a_lone_file_warns() {
        let bytes = std::fs::read(real("run2/criterion/fib/fib 15/new/sample.json")).unwrap();
        let items: Vec<_> = (FORMAT.parse)(Box::new(&bytes[..])).collect();
        assert_eq!(items.len(), 1);
        assert!(matches!(items[0], Ok(Parsed::Warning { .. })));
    }

    #[test]
    fn a_bad_time_names_its_line() {
        let text = "fib/x    time:   [1.0 ns 2.x ns 3.0 ns]\n";
        let err = (FORMAT.parse)(Box::new(text.as_bytes()))
            .find_map(Result::err)
            .unwrap();
        assert_eq!(err.line, 1);
    }

    #[test]
    fn fixtures_snapshot() {
        insta::glob!("../../../fixtures/criterion", "*.*", |path| {
            let items = crate::testutil::items_json(&FORMAT, &std::fs::read(path).unwrap());
            insta::assert_json_snapshot!(items);
        });
    }
}
