//! k6 end-of-test summaries (format `k6`): the text summary of `k6 run`, in both layouts
//! (the older flat list and the v1 grouped one with `█ TOTAL RESULTS`), and the
//! `--summary-export` / `handleSummary` JSON.
//!
//! ```text
//!      http_req_duration..............: avg=18.41ms min=654µs   med=17.22ms max=178.63ms p(90)=30.32ms p(95)=36.32ms
//!        { expected_response:true }...: avg=18.41ms min=654µs   med=17.22ms max=178.63ms p(90)=30.32ms p(95)=36.32ms
//!      http_req_failed................: 0.00%  ✓ 0           ✗ 43404
//!      http_reqs......................: 43404  4334.681688/s
//!      vus............................: 80     min=80        max=80
//! ```
//!
//! Each summary is one block with one run, except that where sub-metrics name several
//! scenarios (`{ scenario:spike }`), each scenario's series form a run of their own.
//!
//! Identity: `bench` is the scenario of a scenario run, else `None` (a summary of one
//! scenario names no benchmark); custom trends and all other metrics keep their k6 names.
//! Config: `vus_max`, the most VUs the test allowed (its `vus_max` gauge), the load; no
//! other option is printed as a number. No label, no
//! timestamp (k6 exports none). The block is one `k6 run`; there are no
//! replicates within it.
//!
//! Per metric (sub-metrics such as
//! `{ expected_response:true }` become `<metric>.expected_response_true`):
//! - trends: a ladder of `med` (50), `p(N)` (N) and `max` (100), with stats `avg`,
//!   `min` and `count` (when printed). Times are converted exactly to `ms` (one row can mix
//!   `µs`, `ms`, `s` and `1m2s`); custom trends print bare numbers and keep no unit. A cell
//!   cut short by the terminal (`p(95)=21.44m`, not a k6 duration) is left out with a
//!   warning naming the line.
//! - A summary without `vus_max` (k6 prints it in every summary, in both layouts) is cut
//!   short or an excerpt: stored as far as it goes, with a warning; a row the file ends
//!   inside (`http_reqs....: 43404  4334.6`) is left out with a warning.
//! - counters: `<metric>` (the count; bytes for `data_*`, k6's `kB`/`MB` are 1000-based) and
//!   `<metric>.rate` (`/s`, `B/s`);
//! - rates: `<metric>` in `%`, with stats `passes` and `fails` (`✓ 0 ✗ 43404`, or
//!   `0 out of 1671`: the count and the total);
//! - gauges: `<metric>` with stats `min`, `max`.
//!
//! In `--summary-export` JSON, a trend is an object of `avg`/`min`/`med`/`max`/`p(N)`, a
//! counter `count`/`rate`, a rate `value`/`passes`/`fails` (a threshold `true` there means
//! it failed), a gauge `value`/`min`/`max`; `handleSummary` nests the same under `values`
//! with a `type`. JSON times are in ms already.
//!
//! A summary ends at k6's `running (…)` progress line, its `default ✓ […]` scenario line,
//! or a markdown code fence; the text is read cleaned (`\r`, ANSI) but not un-wrapped, as
//! blank lines stand inside a summary and cannot end it.
//!
//! Fixtures: `fixtures/real/k6/express-readme-9a78fa2.md`,
//! `fixtures/real/k6/performance-md-spike-frankenphp.md`.

use crate::document::{self, Document};
use crate::error::ParseError;
use crate::format::{Format, Head, ParseIter};
use crate::model::{Block, Data, LadderPoint, Param, Parsed, Run, Series};
use crate::text::metric_name;
use crate::text::re;
use crate::units::scaled_decimal;
use regex::Regex;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::sync::LazyLock;

/// The format entry for the registry.
pub const FORMAT: Format = Format::new("k6", "1", sniff, parse)
    .read_whole()
    .claims_at_most(95);

/// `name.....: values`; the name may be a sub-metric `{ tag:value }`.
static ROW: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*(\S.*?)\.{2,}:\s+(\S.*?)\s*$"));
static KNOWN: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^\s*(http_req_duration|http_reqs|iteration_duration|iterations|vus_max|data_received|checks)\.{2,}:",
    )
});
static SECTION_END: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*(running \(|default\s|```)"));

/// Confidence that `head` holds a k6 summary.
pub fn sniff(head: &Head) -> u8 {
    let t = head.text.trim_start();
    if t.starts_with('{') {
        let k6 = t.contains("\"metrics\"")
            && (t.contains("\"http_req_duration\"")
                || t.contains("\"iteration_duration\"")
                || t.contains("\"root_group\""));
        return if k6 { 95 } else { 0 };
    }
    let known = head
        .text
        .lines()
        .filter(|l| KNOWN.is_match(l.trim_end_matches('\r')))
        .count();
    match known {
        0 => 0,
        1 => 60,
        _ => 95,
    }
}

/// Parses k6 summaries (see the module doc).
pub fn parse<'a>(r: Box<dyn BufRead + 'a>) -> ParseIter<'a> {
    document::parse(r, |doc| {
        if doc.text().trim_start().starts_with('{') {
            json(doc.text()).map(|b| vec![Parsed::Block(b)])
        } else {
            summaries(doc)
        }
    })
}

/// A k6 duration in ms: `654µs`, `17.22ms`, `2.02s`, `1m2.5s`, `1h0m0s`, `0s`; `None` when
/// the text is not one (cut short, or a bare number).
fn duration_ms(s: &str) -> Option<f64> {
    for (suffix, pow) in [("ns", -6), ("µs", -3), ("μs", -3), ("us", -3), ("ms", 0)] {
        if let Some(num) = s.strip_suffix(suffix) {
            return scaled_decimal(num, pow);
        }
    }
    // h/m/s compounds: whole hours and minutes, then seconds.
    let mut rest = s;
    let mut total = 0.0;
    let mut any = false;
    for (unit, ms) in [("h", 3_600_000.0), ("m", 60_000.0)] {
        if let Some(i) = rest.find(unit) {
            let n: u64 = rest[..i].parse().ok()?;
            total += n as f64 * ms;
            rest = &rest[i + 1..];
            any = true;
        }
    }
    if let Some(num) = rest.strip_suffix('s') {
        total += scaled_decimal(num, 3)?;
        any = true;
    } else if !rest.is_empty() {
        return None;
    }
    any.then_some(total)
}

/// A k6 byte size (`1.4 MB`, `329 kB`, `564 B`) in bytes; k6's units are 1000-based.
fn bytes_of(num: &str, unit: &str) -> Option<f64> {
    let pow = match unit.trim_end_matches("/s") {
        "B" => 0,
        "kB" => 3,
        "MB" => 6,
        "GB" => 9,
        "TB" => 12,
        _ => return None,
    };
    scaled_decimal(num, pow)
}

fn trend_percentile(key: &str) -> Option<f64> {
    match key {
        "med" => Some(50.0),
        "max" => Some(100.0),
        _ => key.strip_prefix("p(")?.strip_suffix(')')?.parse().ok(),
    }
}

struct Summary {
    first_line: u64,
    last_line: u64,
    series: Vec<Series>,
    warnings: Vec<Parsed>,
}

/// A sub-metric of exactly one scenario: `{ scenario:spike }`, `http_reqs{scenario:spike}`.
static SCENARIO: LazyLock<Regex> = LazyLock::new(|| re(r"\{\s*scenario:\s*([^,}\s]+)\s*\}"));

/// The runs of one summary: one of every series, and when the summary has sub-metrics of
/// several scenarios, those moved to one run per scenario (bench = the scenario, metric =
/// the parent metric's name).
fn scenario_runs(series: Vec<Series>, first_line: u64, last_line: u64) -> Vec<Run> {
    let scenario = |s: &Series| SCENARIO.captures(&s.display).map(|c| c[1].to_string());
    let names: std::collections::BTreeSet<String> = series.iter().filter_map(scenario).collect();
    // The load: the most VUs the test allowed (`vus_max`), a setting the summary prints as
    // a gauge. 80 VUs against 10 are different experiments, never replicates.
    let vus_max = series
        .iter()
        .find(|s| s.metric == "vus_max")
        .and_then(|s| match s.data {
            Data::Value { value } => value,
            _ => None,
        });
    let run = |bench: Option<String>| {
        let mut r = Run {
            bench,
            first_line,
            last_line,
            ..Run::default()
        };
        if let Some(v) = vus_max {
            r.params.insert("vus_max".to_string(), Param::Num(v));
            r.config.insert("vus_max".to_string());
        }
        r
    };
    let mut total = run(None);
    if names.len() < 2 {
        total.index = 1;
        total.series = series;
        return vec![total];
    }
    let mut per: BTreeMap<String, Run> = BTreeMap::new();
    for mut s in series {
        let Some(name) = scenario(&s) else {
            total.series.push(s);
            continue;
        };
        let segment = format!(".{}", metric_name(&format!("scenario {name}")));
        s.metric = s.metric.replacen(&segment, "", 1);
        per.entry(name.clone())
            .or_insert_with(|| run(Some(name)))
            .series
            .push(s);
    }
    let mut runs: Vec<Run> = std::iter::once(total)
        .filter(|r| !r.series.is_empty())
        .chain(per.into_values())
        .collect();
    for (i, r) in runs.iter_mut().enumerate() {
        r.index = i as u32 + 1;
    }
    runs
}

fn summaries(doc: &Document) -> Result<Vec<Parsed>, ParseError> {
    let mut out = Vec::new();
    let mut cur: Option<Summary> = None;
    let mut parent = String::new();
    // The line a file cut short ends on: a row there that does not read is the cut.
    let last = doc
        .clean_lines()
        .filter(|(_, l)| !l.trim().is_empty())
        .last()
        .map_or(0, |(n, _)| n);
    let close = |s: Summary, out: &mut Vec<Parsed>| {
        out.extend(s.warnings);
        if s.series.is_empty() {
            return;
        }
        if !s.series.iter().any(|x| x.metric == "vus_max") {
            out.push(Parsed::Warning {
                line: s.last_line,
                message: format!(
                    "the k6 summary of lines {}-{} has no `vus_max` row, which k6 prints in \
                     every summary: it is cut short or an excerpt, stored as far as it goes",
                    s.first_line, s.last_line
                ),
            });
        }
        out.push(Parsed::Block(Block {
            label: None,
            first_line: s.first_line,
            last_line: s.last_line,
            runs: scenario_runs(s.series, s.first_line, s.last_line),
            printed: Vec::new(),
        }));
    };
    // Cleaned but not un-wrapped: a summary holds blank lines, so the code fence around
    // it (a blank line once un-wrapped) is what ends it where nothing else does.
    for (n, line) in doc.clean_lines() {
        let Some(c) = ROW.captures(&line) else {
            if cur.is_some() && SECTION_END.is_match(&line) {
                close(cur.take().expect("open"), &mut out);
            }
            continue;
        };
        let name = c[1].trim();
        let metric = if name.starts_with('{') {
            if parent.is_empty() {
                continue;
            }
            format!("{parent}.{}", metric_name(name))
        } else {
            if !name
                .chars()
                .all(|ch| ch.is_alphanumeric() || ch == '_' || ch == '.')
            {
                continue;
            }
            parent = metric_name(name);
            parent.clone()
        };
        let s = cur.get_or_insert_with(|| Summary {
            first_line: n,
            last_line: n,
            series: Vec::new(),
            warnings: Vec::new(),
        });
        match row(s, &metric, name, &c[2], n) {
            Ok(()) => s.last_line = n,
            Err(e) if n == last => s.warnings.push(Parsed::Warning {
                line: n,
                message: format!("the file ends inside this row ({}): left out", e.message),
            }),
            Err(e) => return Err(e),
        }
    }
    if let Some(s) = cur.take() {
        close(s, &mut out);
    }
    Ok(out)
}

fn bad(n: u64, name: &str, cell: &str) -> ParseError {
    ParseError::new(n, format!("k6 {name}: cannot read `{cell}`"))
}

/// Reads the values of one summary row into series.
fn row(s: &mut Summary, metric: &str, name: &str, values: &str, n: u64) -> Result<(), ParseError> {
    let cells: Vec<&str> = values.split_whitespace().collect();
    let first = cells.first().copied().unwrap_or("");
    if first.contains('=') && !first.starts_with("min=")
        || first.starts_with("min=")
            && cells
                .iter()
                .any(|c| c.starts_with("med=") || c.starts_with("avg="))
    {
        return trend(s, metric, name, &cells, n);
    }
    if let Some(pct) = first.strip_suffix('%') {
        let v: f64 = pct.parse().map_err(|_| bad(n, name, first))?;
        let mut series = Series::new(metric, name, "%", Data::Value { value: Some(v) });
        let nums: Vec<f64> = cells[1..]
            .iter()
            .filter_map(|c| c.parse::<f64>().ok())
            .collect();
        if let [a, b] = nums[..] {
            if values.contains("out of") {
                series.stats.insert("count".into(), a);
                series.stats.insert("total".into(), b);
            } else {
                series.stats.insert("passes".into(), a);
                series.stats.insert("fails".into(), b);
            }
        }
        s.series.push(series);
        return Ok(());
    }
    // Counter with a rate (`43404  4334.681688/s`, `76 MB  7.5 MB/s`) or gauge (`80 min=80 max=80`).
    if cells.len() >= 2 && cells[1].starts_with("min=") {
        let v: f64 = first.parse().map_err(|_| bad(n, name, first))?;
        let mut series = Series::new(metric, name, "", Data::Value { value: Some(v) });
        for c in &cells[1..] {
            if let Some((k, x)) = c.split_once('=') {
                series
                    .stats
                    .insert(k.to_string(), x.parse().map_err(|_| bad(n, name, c))?);
            }
        }
        s.series.push(series);
        return Ok(());
    }
    match cells[..] {
        [count, rate] => {
            let c: f64 = count.parse().map_err(|_| bad(n, name, count))?;
            let r: f64 = rate
                .strip_suffix("/s")
                .and_then(|r| r.parse().ok())
                .ok_or_else(|| bad(n, name, rate))?;
            s.series.push(Series::new(
                metric,
                name,
                "",
                Data::Value { value: Some(c) },
            ));
            s.series.push(Series::new(
                format!("{metric}.rate"),
                format!("{name} rate"),
                "/s",
                Data::Value { value: Some(r) },
            ));
        }
        [num, unit, rnum, runit] => {
            let v = bytes_of(num, unit).ok_or_else(|| bad(n, name, values))?;
            let r = bytes_of(rnum, runit).ok_or_else(|| bad(n, name, values))?;
            s.series.push(Series::new(
                metric,
                name,
                "B",
                Data::Value { value: Some(v) },
            ));
            s.series.push(Series::new(
                format!("{metric}.rate"),
                format!("{name} rate"),
                "B/s",
                Data::Value { value: Some(r) },
            ));
        }
        _ => return Err(bad(n, name, values)),
    }
    Ok(())
}

fn trend(
    s: &mut Summary,
    metric: &str,
    name: &str,
    cells: &[&str],
    n: u64,
) -> Result<(), ParseError> {
    let mut points = Vec::new();
    let mut stats = BTreeMap::new();
    let mut count = None;
    // Time trends print units on every cell; custom trends print bare numbers.
    let timed = cells
        .iter()
        .filter_map(|c| c.split_once('=').map(|x| x.1))
        .any(|v| v.ends_with('s'));
    for c in cells {
        let Some((k, v)) = c.split_once('=') else {
            return Err(bad(n, name, c));
        };
        if k == "count" {
            count = Some(v.parse::<u64>().map_err(|_| bad(n, name, c))?);
            continue;
        }
        let value = if timed {
            match duration_ms(v) {
                Some(x) => Some(x),
                None if v.chars().next().is_some_and(|ch| ch.is_ascii_digit()) => {
                    s.warnings.push(Parsed::Warning {
                        line: n,
                        message: format!("{name}: `{c}` is cut short, left out"),
                    });
                    None
                }
                None => return Err(bad(n, name, c)),
            }
        } else {
            Some(v.parse::<f64>().map_err(|_| bad(n, name, c))?)
        };
        let Some(value) = value else { continue };
        match (k, trend_percentile(k)) {
            ("avg", _) => {
                stats.insert("avg".to_string(), value);
            }
            ("min", _) => {
                stats.insert("min".to_string(), value);
            }
            (_, Some(p)) => points.push(LadderPoint {
                percentile: p,
                value: Some(value),
                line_value: None,
            }),
            _ => {
                stats.insert(metric_name(k), value);
            }
        }
    }
    points.sort_by(|a, b| a.percentile.total_cmp(&b.percentile));
    if let Some(c) = count {
        stats.insert("count".into(), c as f64);
    }
    let mut series = Series::new(
        metric,
        name,
        if timed { "ms" } else { "" },
        Data::Ladder { count, points },
    );
    series.stats = stats;
    s.series.push(series);
    Ok(())
}

fn json(text: &str) -> Result<Block, ParseError> {
    let v: Value = serde_json::from_str(text)
        .map_err(|e| ParseError::new(e.line() as u64, format!("k6 JSON: {e}")))?;
    let metrics = v
        .get("metrics")
        .and_then(Value::as_object)
        .ok_or_else(|| ParseError::new(1, "k6 JSON: no `metrics` object"))?;
    let mut series = Vec::new();
    for (name, m) in metrics {
        // handleSummary nests the numbers under `values`.
        let vals = m.get("values").unwrap_or(m);
        let Some(obj) = vals.as_object() else {
            continue;
        };
        let metric = match name.split_once('{') {
            Some((base, tags)) => format!("{}.{}", metric_name(base), metric_name(tags)),
            None => metric_name(name),
        };
        let num = |k: &str| obj.get(k).and_then(Value::as_f64);
        let kind = m.get("type").and_then(Value::as_str);
        let is_trend = kind == Some("trend") || obj.contains_key("med") || obj.contains_key("avg");
        if is_trend {
            let time =
                m.get("contains").and_then(Value::as_str) != Some("default") || kind.is_none();
            let mut points: Vec<LadderPoint> = obj
                .iter()
                .filter_map(|(k, x)| {
                    Some(LadderPoint {
                        percentile: trend_percentile(k)?,
                        value: x.as_f64(),
                        line_value: None,
                    })
                })
                .collect();
            points.sort_by(|a, b| a.percentile.total_cmp(&b.percentile));
            let count = num("count").map(|c| c as u64);
            let mut s = Series::new(
                metric,
                name.clone(),
                if time { "ms" } else { "" },
                Data::Ladder { count, points },
            );
            if let Some(c) = count {
                s.stats.insert("count".into(), c as f64);
            }
            if let Some(a) = num("avg") {
                s.stats.insert("avg".into(), a);
            }
            if let Some(a) = num("min") {
                s.stats.insert("min".into(), a);
            }
            series.push(s);
        } else if let (Some(c), Some(r)) = (num("count"), num("rate")) {
            let bytes = name.starts_with("data_");
            series.push(Series::new(
                metric.clone(),
                name.clone(),
                if bytes { "B" } else { "" },
                Data::Value { value: Some(c) },
            ));
            series.push(Series::new(
                format!("{metric}.rate"),
                format!("{name} rate"),
                if bytes { "B/s" } else { "/s" },
                Data::Value { value: Some(r) },
            ));
        } else if let Some(x) = num("value").or_else(|| num("rate")) {
            let rate = obj.contains_key("passes") || kind == Some("rate");
            let mut s = Series::new(
                metric,
                name.clone(),
                if rate { "%" } else { "" },
                Data::Value {
                    value: Some(if rate { x * 100.0 } else { x }),
                },
            );
            for k in ["passes", "fails", "min", "max"] {
                if let Some(y) = num(k) {
                    s.stats.insert(k.into(), y);
                }
            }
            series.push(s);
        }
    }
    let total = text.lines().count().max(1) as u64;
    Ok(Block {
        label: None,
        first_line: 1,
        last_line: total,
        runs: scenario_runs(series, 1, total),
        printed: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::parse_ok;
    use crate::testutil::single as value;
    use std::path::PathBuf;

    fn real(name: &str) -> Vec<Parsed> {
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/real/k6")
            .join(name);
        let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        (FORMAT.parse)(Box::new(&bytes[..]))
            .map(|r| r.expect("parses"))
            .collect()
    }

    fn run(items: &[Parsed]) -> &Run {
        items
            .iter()
            .find_map(|p| match p {
                Parsed::Block(b) => Some(&b.runs[0]),
                _ => None,
            })
            .expect("a block")
    }

    fn series<'a>(r: &'a Run, metric: &str) -> &'a Series {
        r.series
            .iter()
            .find(|s| s.metric == metric)
            .unwrap_or_else(|| panic!("no {metric}"))
    }

    fn at(s: &Series, p: f64) -> Option<f64> {
        s.ladder()?.iter().find(|x| x.percentile == p)?.value
    }

    /// `k6 run --vus 80` against `--vus 10` (express-readme-*.md): the load is config.
    #[test]
    fn the_vus_allowed_are_the_load() {
        for (file, vus) in [
            ("express-readme-9a78fa2.md", 80.0),
            ("express-readme-84e8017.md", 10.0),
        ] {
            let items = real(file);
            let r = run(&items);
            assert_eq!(r.params.get("vus_max"), Some(&Param::Num(vus)), "{file}");
            assert!(r.config.contains("vus_max"), "{file}");
        }
    }

    #[test]
    fn a_code_fence_ends_a_summary_and_a_blank_line_does_not() {
        let text = "Before:\n```\n     http_reqs......................: 43404  4334.681688/s\n\n     \
                    iterations.....................: 43404  4334.681688/s\n```\nAfter:\n```\n     \
                    http_reqs......................: 147346 14732.647204/s\n```\n";
        let blocks: Vec<(u64, u64, f64)> = (FORMAT.parse)(Box::new(text.as_bytes()))
            .filter_map(|p| match p.expect("parses") {
                Parsed::Block(b) => Some((
                    b.first_line,
                    b.last_line,
                    value(series(&b.runs[0], "http_reqs")),
                )),
                Parsed::Warning { .. } => None,
            })
            .collect();
        assert_eq!(blocks, [(3, 5, 43404.0), (9, 9, 147346.0)]);
    }

    #[test]
    fn flat_layout_mixes_microseconds_and_milliseconds() {
        let items = real("express-readme-9a78fa2.md");
        let r = run(&items);
        let d = series(r, "http_req_duration");
        assert_eq!(d.unit, "ms");
        assert_eq!(at(d, 50.0), Some(17.22));
        assert_eq!(at(d, 95.0), Some(36.32));
        assert_eq!(at(d, 100.0), Some(178.63));
        assert_eq!(d.stats["min"], 0.654);
        assert_eq!(d.stats["avg"], 18.41);
        let e = series(r, "http_req_duration.expected_response_true");
        assert_eq!(at(e, 90.0), Some(30.32));
        let f = series(r, "http_req_failed");
        assert_eq!((value(f), f.stats["fails"]), (0.0, 43404.0));
        assert_eq!(value(series(r, "http_reqs")), 43404.0);
        assert_eq!(value(series(r, "http_reqs.rate")), 4334.681688);
        assert_eq!(value(series(r, "data_received")), 76e6);
        assert_eq!(value(series(r, "data_sent.rate")), 473e3);
        assert_eq!(series(r, "vus").stats["max"], 80.0);
        assert_eq!(at(series(r, "iteration_duration"), 50.0), Some(17.24));
    }

    #[test]
    fn grouped_layout() {
        let items = real("express-readme-84e8017.md");
        let r = run(&items);
        let d = series(r, "http_req_duration");
        assert_eq!(at(d, 50.0), Some(0.54987));
        assert_eq!(at(d, 100.0), Some(41.04));
        assert_eq!(d.stats["avg"], 0.66569);
        let f = series(r, "http_req_failed");
        assert_eq!(f.stats["total"], 147346.0);
        assert_eq!(value(series(r, "data_received")), 256e6);
    }

    #[test]
    fn a_cut_cell_is_left_out_with_a_warning() {
        let items = real("performance-md-spike-frankenphp.md");
        assert!(items.iter().any(|p| matches!(
            p,
            Parsed::Warning { line: 40, message } if message.contains("21.44m")
        )));
        let r = run(&items);
        let d = series(r, "http_req_duration");
        assert_eq!(at(d, 90.0), Some(18.9));
        assert_eq!(at(d, 95.0), None);
        let it = series(r, "iteration_duration");
        assert_eq!(at(it, 95.0), Some(3010.0));
        assert_eq!(at(it, 100.0), Some(3040.0));
        let c = series(r, "checks_succeeded");
        assert_eq!((value(c), c.stats["count"]), (100.0, 5013.0));
        assert_eq!(value(series(r, "checks_total.rate")), 118.384365);
    }

    /// express-readme-9a78fa2.md cut inside its `http_reqs` row (line 32): the rows before
    /// it are stored, the cut row and the missing `vus_max` are warned of.
    #[test]
    fn a_summary_cut_short_is_stored_with_warnings() {
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/real/k6/express-readme-9a78fa2.md");
        let text = std::fs::read_to_string(p).expect("fixture");
        let row = text.find("     http_reqs.").expect("http_reqs row");
        let cut = &text[..row + text[row..].find("/s").expect("rate")];
        let items: Vec<Parsed> = (FORMAT.parse)(Box::new(cut.as_bytes()))
            .map(|r| r.expect("parses"))
            .collect();
        let warnings: Vec<(u64, &str)> = items
            .iter()
            .filter_map(|p| match p {
                Parsed::Warning { line, message } => Some((*line, message.as_str())),
                _ => None,
            })
            .collect();
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert_eq!(warnings[0].0, 32);
        assert!(
            warnings[0].1.contains("ends inside this row"),
            "{warnings:?}"
        );
        assert!(warnings[0].1.contains("4334.681688"), "{warnings:?}");
        assert_eq!(warnings[1].0, 31);
        assert!(warnings[1].1.contains("lines 21-31"), "{warnings:?}");
        let r = run(&items);
        assert_eq!(at(series(r, "http_req_duration"), 50.0), Some(17.22));
        assert!(r.series.iter().all(|s| s.metric != "http_reqs"));
        assert!(!r.params.contains_key("vus_max"));
    }

    #[test]
    fn a_complete_summary_warns_of_nothing() {
        for file in [
            "express-readme-9a78fa2.md",
            "express-readme-84e8017.md",
            "performance-md-spike-nginx.md",
            "forum-heavy_get_posts.MD",
        ] {
            let warnings = real(file)
                .into_iter()
                .filter(|p| matches!(p, Parsed::Warning { .. }))
                .count();
            assert_eq!(warnings, 0, "{file}");
        }
    }

    #[test]
    fn custom_trend_stats_with_count() {
        let items = real("forum-heavy_get_posts.MD");
        let r = run(&items);
        let d = series(r, "http_req_duration");
        assert!(matches!(
            d.data,
            Data::Ladder {
                count: Some(1000),
                ..
            }
        ));
        assert_eq!(at(d, 99.0), Some(881.23));
        assert_eq!(at(d, 99.9), Some(889.53));
        assert_eq!(at(d, 100.0), Some(892.34));
        assert_eq!(d.stats["min"], 318.94);
    }

    #[test]
    fn durations() {
        assert_eq!(duration_ms("654µs"), Some(0.654));
        assert_eq!(duration_ms("2.02s"), Some(2020.0));
        assert_eq!(duration_ms("1m2.5s"), Some(62500.0));
        assert_eq!(duration_ms("0s"), Some(0.0));
        assert_eq!(duration_ms("21.44m"), None);
    }

    #[test]
    fn summary_export_with_custom_trend_stats_and_count() {
        let items = real("qr-code-generator-summary-export.json");
        let r = run(&items);
        let d = series(r, "http_req_duration");
        assert_eq!(d.unit, "ms");
        assert!(matches!(
            d.data,
            Data::Ladder {
                count: Some(493168),
                ..
            }
        ));
        assert_eq!(at(d, 50.0), Some(3.12));
        assert_eq!(at(d, 99.0), Some(348.6492700000003));
        assert_eq!(at(d, 99.9), Some(787.1129890000226));
        assert_eq!(at(d, 100.0), Some(1737.376));
        assert_eq!(d.stats["min"], 0.077);
        assert_eq!(value(series(r, "http_reqs.rate")), 4288.100370179589);
        assert_eq!(value(series(r, "checks")), 100.0);
        assert_eq!(value(series(r, "data_received")), 152756761.0);
        assert_eq!(series(r, "vus").stats["max"], 149.0);
    }

    #[test]
    fn summary_export_with_submetrics_and_failures() {
        let items = real("ticket-reserve-summary-export.json");
        let r = run(&items);
        let d = series(r, "http_req_duration");
        assert_eq!(at(d, 50.0), Some(3390.69845));
        assert_eq!(at(d, 95.0), Some(4101.811365));
        let e = series(r, "http_req_duration.expected_response_true");
        assert_eq!(at(e, 95.0), Some(4102.77963));
        let f = series(r, "http_req_failed");
        assert_eq!((value(f), f.stats["passes"]), (1.0, 1.0));
        assert_eq!(value(series(r, "checks")), 99.0);
    }

    #[test]
    fn handle_summary_json_nests_values() {
        let items = real("K6PerformanceTesting-k6-summary.json");
        let r = run(&items);
        let d = series(r, "http_req_duration");
        assert_eq!(at(d, 95.0), Some(130.64669999999998));
        assert_eq!(at(d, 100.0), Some(1103228.522));
        assert_eq!(d.stats["avg"], 1220.628734474256);
        let c = series(r, "case_success_rate");
        assert_eq!(value(c), 0.9886781227032513 * 100.0);
        assert_eq!(c.stats["fails"], 647.0);
        assert_eq!(value(series(r, "data_received")), 155205952.0);
        assert_eq!(series(r, "vus").stats["max"], 100.0);
    }

    #[test]
    fn summary_export_json() {
        let text = r#"{"metrics":{"http_req_duration":{"avg":18.4,"min":0.6,"med":17.2,"max":178.6,"p(90)":30.3,"p(95)":36.3},"http_reqs":{"count":43404,"rate":4334.68},"checks":{"passes":10,"fails":2,"value":0.8333}},"root_group":{}}"#;
        let items: Vec<_> = (FORMAT.parse)(Box::new(text.as_bytes())).collect();
        let Ok(Parsed::Block(b)) = &items[0] else {
            panic!()
        };
        let r = &b.runs[0];
        assert_eq!(at(series(r, "http_req_duration"), 95.0), Some(36.3));
        assert_eq!(value(series(r, "http_reqs.rate")), 4334.68);
        assert_eq!(series(r, "checks").stats["fails"], 2.0);
    }

    #[test]
    fn several_scenarios_are_benches() {
        let text = "     http_req_duration..............: avg=18.41ms min=654µs   med=17.22ms max=178.63ms p(90)=30.32ms p(95)=36.32ms\n\
       { scenario:browse }..........: avg=10ms min=1ms med=9ms max=50ms p(90)=20ms p(95)=25ms\n\
       { scenario:checkout }........: avg=30ms min=2ms med=28ms max=178.63ms p(90)=40ms p(95)=45ms\n\
     http_reqs......................: 43404  4334.681688/s\n";
        let b = parse_ok(&FORMAT, text.as_bytes());
        let runs = &b[0].runs;
        assert_eq!(runs.len(), 3);
        assert_eq!(runs[0].bench, None);
        assert_eq!(at(series(&runs[0], "http_req_duration"), 50.0), Some(17.22));
        assert_eq!(series(&runs[0], "http_reqs.rate").unit, "/s");
        assert_eq!(runs[1].bench.as_deref(), Some("browse"));
        assert_eq!(at(series(&runs[1], "http_req_duration"), 50.0), Some(9.0));
        assert_eq!(runs[2].bench.as_deref(), Some("checkout"));
        assert_eq!(at(series(&runs[2], "http_req_duration"), 95.0), Some(45.0));
        assert_eq!(runs[2].index, 3);
        // One scenario's sub-metric stays a sub-metric of the one run.
        let one = "     http_req_duration..............: avg=18.41ms min=654µs   med=17.22ms max=178.63ms p(90)=30.32ms p(95)=36.32ms\n\
       { scenario:browse }..........: avg=10ms min=1ms med=9ms max=50ms p(90)=20ms p(95)=25ms\n";
        let b = parse_ok(&FORMAT, one.as_bytes());
        assert_eq!(b[0].runs.len(), 1);
        series(&b[0].runs[0], "http_req_duration.scenario_browse");
    }

    #[test]
    fn several_scenarios_in_a_summary_export() {
        let text = r#"{"metrics":{"iterations":{"count":10,"rate":1.0},"iterations{scenario:a}":{"count":4,"rate":0.4},"iterations{scenario:b}":{"count":6,"rate":0.6}}}"#;
        let b = parse_ok(&FORMAT, text.as_bytes());
        let runs = &b[0].runs;
        assert_eq!(runs.len(), 3);
        assert_eq!(value(series(&runs[0], "iterations")), 10.0);
        assert_eq!(runs[2].bench.as_deref(), Some("b"));
        assert_eq!(value(series(&runs[2], "iterations")), 6.0);
        assert_eq!(value(series(&runs[2], "iterations.rate")), 0.6);
    }

    #[test]
    fn fixtures_snapshot() {
        insta::glob!("../../../fixtures/k6", "*.*", |path| {
            let items = crate::testutil::items_json(&FORMAT, &std::fs::read(path).unwrap());
            insta::assert_json_snapshot!(items);
        });
    }
}
