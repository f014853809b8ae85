//! hyperfine results (format `hyperfine`): `--export-json`, `--export-csv`,
//! `--export-markdown` and the terminal output.
//!
//! ```text
//! Benchmark 1: sleep 0.01
//!   Time (mean ± σ):      12.7 ms ±   2.4 ms    [User: 0.8 ms, System: 0.6 ms]
//!   Range (min … max):    10.0 ms …  16.9 ms    10 runs
//! Summary
//!   'sleep 0.01' ran
//!     1.75 ± 0.40 times faster than 'sleep 0.02'
//! ```
//!
//! Every benchmarked command is one block; its metric is `time`, lower is better.
//!
//! Identity: `bench` is the command as hyperfine printed it (with `-n NAME` the name, in a
//! parameter scan the rewritten command). The parameter-scan values (JSON `parameters`,
//! CSV `parameter_*` columns) are params, and `config` only where the command does not
//! already tell the steps apart (see `implied_parameters`); a run's `exit_code` and the
//! terminal's `runs` count are plain params. The timing runs of a command are its replicates. A block is one
//! command of an invocation rather than the whole invocation, as the summary hyperfine
//! printed (`mean`, `relative`, …) belongs to one command and block stats name no bench.
//! No label (exports have no lead line) and no timestamp (hyperfine exports none).
//! - JSON: one run per timing run (`times[i]`, unit `s`, as hyperfine exports), with
//!   params from `parameters` and the run's `exit_code`; the summary hyperfine computed
//!   (`mean`, `stddev`, `median`, `min`, `max`, `user`, `system`) is kept as printed
//!   in the block's printed stats, `min`, `median` and `max` at percentiles 0, 50, 100.
//! - CSV (unit `s`), markdown (unit from the `Mean [ms]` header) and terminal output (each
//!   number converted exactly to the unit of its mean): one run holding the mean as a
//!   value with `stddev`, `user` and `system` as its stats; the whole summary is the
//!   block's printed stats as for JSON; CSV `parameter_*` columns are params.
//! - The `Relative` column and `… times faster than …` lines become printed stats
//!   `relative` and `relative_error` of the slower command (the fastest has 1).
//!
//! Fixtures: `fixtures/real/hyperfine/two-commands.json`, `…/scan.csv`,
//! `…/two-commands.md`, `…/two-commands-terminal.txt`.
//!
//! A JSON file that does not match the export's shape, or a row whose numbers do not
//! parse, is an error naming the line.

use crate::document::{self, Document};
use crate::error::ParseError;
use crate::format::{Format, Head, ParseIter};
use crate::model::{Block, Data, Param, PrintedStat, Run, Series};
use crate::text::{clean_line, re};
use crate::units::scaled_decimal;
use regex::Regex;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead;
use std::sync::LazyLock;

/// The one metric of every command: its wall-clock time.
const METRIC: &str = "time";

/// The format entry for the registry.
pub const FORMAT: Format = Format::new("hyperfine", "1", sniff, parse)
    .read_whole()
    .claims_at_most(95)
    .reading_its_wrapper();

static BENCHMARK: LazyLock<Regex> = LazyLock::new(|| re(r"^Benchmark #?(\d+): (.*?)\s*$"));
/// `Time (mean ± σ):  12.7 ms ±  2.4 ms  [User: 0.8 ms, System: 0.6 ms]`; the symbols are
/// matched loosely, as a cp1252 copy turns them into replacement characters.
static TIME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^\s*Time \((?:mean|abs)[^)]*\):\s+(\S+) (\S+)(?:\s+\S+\s+(\S+) (\S+))?(?:\s+\[User: (\S+) (\S+), System: (\S+) (\S+)\])?\s*$",
    )
});
static RANGE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^\s*Range \(min[^)]*\):\s+(\S+) (\S+)\s+\S+\s+(\S+) (\S+)(?:\s+(\d+) runs)?\s*$")
});
/// `'sleep 0.01' ran`; with colours (`--style full`) hyperfine prints the name unquoted.
static RAN: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*(?:'(.*)'|(\S.*?)) ran\s*$"));
/// `1.75 ± 0.40 times faster than 'sleep 0.02'`, the name quoted or not as in [`RAN`].
static FASTER: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*(\S+)(?: \S+ (\S+))? times faster than (?:'(.*)'|(\S.*?))\s*$"));
static MD_HEADER: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\|\s*Command\s*\|\s*Mean \[(\w+)\]\s*\|"));

/// Confidence that `head` is a hyperfine export or terminal output.
pub fn sniff(head: &Head) -> u8 {
    let text = head.text.trim_start_matches('\u{feff}');
    let first = text.lines().next().unwrap_or("").trim();
    if first.starts_with("command,mean,stddev,") {
        return 95;
    }
    if MD_HEADER.is_match(first) {
        return 95;
    }
    if text.trim_start().starts_with('{')
        && text.contains("\"results\"")
        && text.contains("\"command\"")
        && text.contains("\"mean\"")
    {
        return 95;
    }
    // Terminal output is matched as the parser reads it: `--style full` (or a colour
    // terminal captured to a file) wraps words in ANSI SGR sequences.
    let mut bench = false;
    for line in text.lines().take(200) {
        let line = clean_line(line);
        bench |= BENCHMARK.is_match(&line);
        if bench && TIME.is_match(&line) {
            return 95;
        }
    }
    0
}

/// Parses any of hyperfine's outputs (see the module doc).
pub fn parse<'a>(r: Box<dyn BufRead + 'a>) -> ParseIter<'a> {
    document::parse(r, |doc| {
        let text = doc.text();
        let first = text.lines().next().unwrap_or("").trim();
        if text.trim_start().starts_with('{') {
            json(text).map(implied_parameters)
        } else if first.starts_with("command,") {
            csv(doc).map(implied_parameters)
        } else if MD_HEADER.is_match(first) {
            markdown(doc)
        } else {
            terminal(doc)
        }
    })
}

#[derive(Deserialize)]
struct Export {
    results: Vec<CommandResult>,
}

#[derive(Deserialize)]
struct CommandResult {
    command: String,
    mean: f64,
    stddev: Option<f64>,
    median: Option<f64>,
    user: Option<f64>,
    system: Option<f64>,
    min: Option<f64>,
    max: Option<f64>,
    #[serde(default)]
    times: Vec<f64>,
    #[serde(default)]
    exit_codes: Vec<Option<i64>>,
    #[serde(default)]
    parameters: BTreeMap<String, serde_json::Value>,
}

fn json_error(e: &serde_json::Error) -> ParseError {
    ParseError::new(e.line() as u64, format!("hyperfine JSON: {e}"))
}

fn json(text: &str) -> Result<Vec<Block>, ParseError> {
    let export: Export = serde_json::from_str(text).map_err(|e| json_error(&e))?;
    // The line of each result's `"command"` key, for line ranges.
    let command_lines: Vec<u64> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("\"command\""))
        .map(|(i, _)| i as u64 + 1)
        .collect();
    let total = text.lines().count() as u64;
    let mut blocks = Vec::new();
    for (i, r) in export.results.into_iter().enumerate() {
        let first_line = command_lines.get(i).copied().unwrap_or(1);
        let last_line = command_lines
            .get(i + 1)
            .map_or(total, |l| l.saturating_sub(1).max(first_line));
        let metric = METRIC.to_string();
        let params: BTreeMap<String, Param> = r
            .parameters
            .iter()
            .map(|(k, v)| {
                let p = match v {
                    serde_json::Value::String(s) => s
                        .parse::<f64>()
                        .map_or_else(|_| Param::from(s.as_str()), Param::Num),
                    serde_json::Value::Number(n) => Param::Num(n.as_f64().unwrap_or(f64::NAN)),
                    other => Param::from(other.to_string()),
                };
                (k.clone(), p)
            })
            .collect();
        let runs: Vec<Run> = r
            .times
            .iter()
            .enumerate()
            .map(|(j, t)| {
                let mut run = Run {
                    bench: Some(r.command.clone()),
                    index: j as u32 + 1,
                    first_line,
                    last_line,
                    series: vec![Series::new(
                        metric.clone(),
                        r.command.clone(),
                        "s",
                        Data::Value { value: Some(*t) },
                    )],
                    ..Run::default()
                };
                for (k, v) in &params {
                    run.set_config(k.clone(), v.clone());
                }
                if let Some(Some(code)) = r.exit_codes.get(j) {
                    run.params
                        .insert("exit_code".into(), Param::Num(*code as f64));
                }
                run
            })
            .collect();
        let summary = [
            ("mean", Some(r.mean)),
            ("stddev", r.stddev),
            ("median", r.median),
            ("min", r.min),
            ("max", r.max),
            ("user", r.user),
            ("system", r.system),
        ];
        let runs = if runs.is_empty() {
            // An export without `times` (hyperfine before 1.2): its mean is the run.
            vec![summary_run(
                &metric, &r.command, "s", &summary, params, first_line, last_line,
            )]
        } else {
            runs
        };
        blocks.push(Block {
            label: None,
            first_line,
            last_line,
            runs,
            printed: printed(&metric, &summary),
        });
    }
    Ok(blocks)
}

fn printed(metric: &str, summary: &[(&str, Option<f64>)]) -> Vec<PrintedStat> {
    summary
        .iter()
        .filter(|(_, v)| v.is_some())
        .map(|(name, value)| PrintedStat {
            metric: metric.to_string(),
            percentile: summary_percentile(name),
            name: name.to_string(),
            value: *value,
        })
        .collect()
}

/// The percentile a summary number is (`min` 0, `median` 50, `max` 100): those are
/// points of the command's printed ladder, not stats.
fn summary_percentile(name: &str) -> Option<f64> {
    match name {
        "min" => Some(0.0),
        "median" => Some(50.0),
        "max" => Some(100.0),
        _ => None,
    }
}

/// One run of `command` holding the mean as a value, the other summary numbers as its
/// stats; `config` are its parameter values.
fn summary_run(
    metric: &str,
    command: &str,
    unit: &str,
    summary: &[(&str, Option<f64>)],
    config: BTreeMap<String, Param>,
    first_line: u64,
    last_line: u64,
) -> Run {
    let mean = summary.iter().find(|(n, _)| *n == "mean").and_then(|x| x.1);
    let mut s = Series::new(metric, command, unit, Data::Value { value: mean });
    for (name, v) in summary {
        if let (false, None, Some(v)) = (*name == "mean", summary_percentile(name), v) {
            s.stats.insert(name.to_string(), *v);
        }
    }
    let mut run = Run {
        bench: Some(command.to_string()),
        index: 1,
        first_line,
        last_line,
        series: vec![s],
        ..Run::default()
    };
    for (k, v) in config {
        run.set_config(k, v);
    }
    run
}

/// A scan's parameter values are configuration only where the command does not already
/// tell them apart: hyperfine rewrites `sleep 0.0{n}` into `sleep 0.01`, `sleep 0.02`, …,
/// so the command alone names each step, as it does in the terminal and markdown outputs
/// of the same invocation, which print no parameters. When every command of the export
/// has one set of parameter values, they stay params but leave the configuration (the
/// JSON export and its terminal output are then one benchmark); when one command ran
/// with two sets (a `--command-name` without the parameter), they stay configuration.
fn implied_parameters(mut blocks: Vec<Block>) -> Vec<Block> {
    let mut sets: BTreeMap<&str, BTreeSet<Vec<(String, String)>>> = BTreeMap::new();
    for run in blocks.iter().flat_map(|b| &b.runs) {
        let values = run
            .config_params()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        sets.entry(run.bench.as_deref().unwrap_or(""))
            .or_default()
            .insert(values);
    }
    if sets.values().all(|s| s.len() == 1) {
        for run in blocks.iter_mut().flat_map(|b| &mut b.runs) {
            run.config.clear();
        }
    }
    blocks
}

/// Splits one CSV record, honouring double quotes (commands may hold commas).
fn csv_cells(line: &str) -> Vec<String> {
    let mut cells = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                cells.last_mut().expect("one cell").push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => cells.push(String::new()),
            c => cells.last_mut().expect("one cell").push(c),
        }
    }
    cells
}

fn number(cell: &str, what: &str, n: u64) -> Result<f64, ParseError> {
    cell.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| {
            ParseError::new(
                n,
                format!(
                    "hyperfine {what}: cannot read `{}` as a number",
                    cell.trim()
                ),
            )
        })
}

fn csv(doc: &Document) -> Result<Vec<Block>, ParseError> {
    // Not un-wrapped: an export file is read as written (quoted cells and all).
    let mut lines = doc.clean_lines();
    let header: Vec<String> = lines.next().map(|(_, l)| csv_cells(&l)).unwrap_or_default();
    let mut blocks = Vec::new();
    for (n, line) in lines {
        let line = &*line;
        if line.trim().is_empty() {
            continue;
        }
        let cells = csv_cells(line);
        if cells.len() != header.len() {
            return Err(ParseError::new(
                n,
                format!(
                    "hyperfine CSV row has {} cells, the header {}",
                    cells.len(),
                    header.len()
                ),
            ));
        }
        let command = cells[0].clone();
        let metric = METRIC;
        let mut summary = Vec::new();
        let mut params = BTreeMap::new();
        for (h, c) in header.iter().zip(&cells).skip(1) {
            if let Some(p) = h.strip_prefix("parameter_") {
                let v = c
                    .parse::<f64>()
                    .map_or_else(|_| Param::from(c.as_str()), Param::Num);
                params.insert(p.to_string(), v);
            } else if let Some(name) = ["mean", "stddev", "median", "user", "system", "min", "max"]
                .into_iter()
                .find(|k| k == h)
            {
                let v = if c.is_empty() {
                    None
                } else {
                    Some(number(c, name, n)?)
                };
                summary.push((name, v));
            }
        }
        blocks.push(Block {
            label: None,
            first_line: n,
            last_line: n,
            runs: vec![summary_run(metric, &command, "s", &summary, params, n, n)],
            printed: printed(metric, &summary),
        });
    }
    Ok(blocks)
}

/// Reads `12.7 ± 2.4` (or `12.7`) into the number and its error.
fn plus_minus(cell: &str, what: &str, n: u64) -> Result<(f64, Option<f64>), ParseError> {
    let mut parts = cell.split(['±', '\u{fffd}']).map(str::trim);
    let v = number(parts.next().unwrap_or(""), what, n)?;
    let e = match parts.next() {
        Some(e) => Some(number(e, what, n)?),
        None => None,
    };
    Ok((v, e))
}

fn markdown(doc: &Document) -> Result<Vec<Block>, ParseError> {
    let mut unit = String::new();
    let mut blocks = Vec::new();
    // Not un-wrapped: the pipe table is the export itself.
    for (n, line) in doc.clean_lines() {
        let line = line.trim();
        if let Some(c) = MD_HEADER.captures(line) {
            unit = c[1].to_string();
            continue;
        }
        if !line.starts_with('|') || line.starts_with("|:") || line.starts_with("|-") {
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        if cells.len() < 5 {
            return Err(ParseError::new(
                n,
                format!("hyperfine markdown row has {} cells, not 5", cells.len()),
            ));
        }
        let command = cells[0].trim_matches('`').to_string();
        let metric = METRIC;
        let (mean, sd) = plus_minus(cells[1], "mean", n)?;
        let min = number(cells[2], "min", n)?;
        let max = number(cells[3], "max", n)?;
        let (rel, rel_err) = plus_minus(cells[4], "relative", n)?;
        let summary = [
            ("mean", Some(mean)),
            ("stddev", sd),
            ("min", Some(min)),
            ("max", Some(max)),
        ];
        let mut printed = printed(metric, &summary);
        printed.extend(relative(metric, rel, rel_err));
        blocks.push(Block {
            label: None,
            first_line: n,
            last_line: n,
            runs: vec![summary_run(
                metric,
                &command,
                &unit,
                &summary,
                BTreeMap::new(),
                n,
                n,
            )],
            printed,
        });
    }
    Ok(blocks)
}

fn relative(metric: &str, rel: f64, err: Option<f64>) -> Vec<PrintedStat> {
    let stat = |name: &str, value| PrintedStat {
        metric: metric.to_string(),
        percentile: None,
        name: name.to_string(),
        value,
    };
    let mut v = vec![stat("relative", Some(rel))];
    if err.is_some() {
        v.push(stat("relative_error", err));
    }
    v
}

/// A terminal time (`12.7`, `ms`) in `unit`, exactly (moving the decimal point).
fn time_in(num: &str, from: &str, unit: &str, n: u64) -> Result<f64, ParseError> {
    let pow = |u: &str| match u {
        "s" => Some(0),
        "ms" => Some(-3),
        "µs" | "us" | "μs" => Some(-6),
        "ns" => Some(-9),
        _ => None,
    };
    let (Some(a), Some(b)) = (pow(from), pow(unit)) else {
        return Err(ParseError::new(
            n,
            format!("hyperfine: unknown time unit `{from}`"),
        ));
    };
    scaled_decimal(num, a - b)
        .ok_or_else(|| ParseError::new(n, format!("hyperfine: cannot read `{num}` as a number")))
}

#[derive(Default)]
struct Pending {
    command: String,
    first_line: u64,
    last_line: u64,
    unit: String,
    summary: Vec<(&'static str, Option<f64>)>,
    runs: Option<f64>,
    printed: Vec<PrintedStat>,
}

fn terminal(doc: &Document) -> Result<Vec<Block>, ParseError> {
    let mut done: Vec<Pending> = Vec::new();
    let mut cur: Option<Pending> = None;
    let mut fastest: Option<String> = None;
    for (n, line) in doc.lines() {
        if let Some(c) = BENCHMARK.captures(&line) {
            done.extend(cur.take());
            cur = Some(Pending {
                command: c[2].to_string(),
                first_line: n,
                last_line: n,
                ..Default::default()
            });
        } else if let (Some(c), Some(p)) = (TIME.captures(&line), cur.as_mut()) {
            let unit = c[2].to_string();
            p.summary
                .push(("mean", Some(time_in(&c[1], &unit, &unit, n)?)));
            if let (Some(v), Some(u)) = (c.get(3), c.get(4)) {
                p.summary
                    .push(("stddev", Some(time_in(v.as_str(), u.as_str(), &unit, n)?)));
            }
            if let (Some(uv), Some(uu), Some(sv), Some(su)) =
                (c.get(5), c.get(6), c.get(7), c.get(8))
            {
                p.summary
                    .push(("user", Some(time_in(uv.as_str(), uu.as_str(), &unit, n)?)));
                p.summary
                    .push(("system", Some(time_in(sv.as_str(), su.as_str(), &unit, n)?)));
            }
            p.unit = unit;
            p.last_line = n;
        } else if let (Some(c), Some(p)) = (RANGE.captures(&line), cur.as_mut()) {
            let unit = p.unit.clone();
            p.summary
                .push(("min", Some(time_in(&c[1], &c[2], &unit, n)?)));
            p.summary
                .push(("max", Some(time_in(&c[3], &c[4], &unit, n)?)));
            if let Some(r) = c.get(5) {
                p.runs = Some(number(r.as_str(), "runs", n)?);
            }
            p.last_line = n;
        } else if let Some(c) = RAN.captures(&line) {
            done.extend(cur.take());
            fastest = Some(quoted_or_bare(&c, 1).to_string());
        } else if let Some(c) = FASTER.captures(&line) {
            let rel = number(&c[1], "times faster", n)?;
            let err = match c.get(2) {
                Some(e) => Some(number(e.as_str(), "times faster", n)?),
                None => None,
            };
            let slower = quoted_or_bare(&c, 3);
            if let Some(p) = done.iter_mut().find(|p| p.command == slower) {
                p.printed.extend(relative(METRIC, rel, err));
            }
        }
    }
    done.extend(cur.take());
    let mut blocks = Vec::new();
    for mut p in done {
        if p.summary.is_empty() {
            return Err(ParseError::new(
                p.first_line,
                format!("hyperfine: benchmark `{}` has no `Time` line", p.command),
            ));
        }
        if fastest.as_deref() == Some(p.command.as_str()) {
            p.printed.extend(relative(METRIC, 1.0, None));
        }
        let mut printed = printed(METRIC, &p.summary);
        printed.append(&mut p.printed);
        let mut run = summary_run(
            METRIC,
            &p.command,
            &p.unit,
            &p.summary,
            BTreeMap::new(),
            p.first_line,
            p.last_line,
        );
        if let Some(r) = p.runs {
            run.params.insert("runs".to_string(), Param::Num(r));
        }
        blocks.push(Block {
            label: None,
            first_line: p.first_line,
            last_line: p.last_line,
            runs: vec![run],
            printed,
        });
    }
    Ok(blocks)
}

/// The command name captured at group `i` (quoted) or `i + 1` (bare).
fn quoted_or_bare<'t>(c: &regex::Captures<'t>, i: usize) -> &'t str {
    c.get(i).or_else(|| c.get(i + 1)).map_or("", |m| m.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{parse_ok, printed};
    use std::path::PathBuf;

    fn real(name: &str) -> Vec<Block> {
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/real/hyperfine")
            .join(name);
        let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        parse_ok(&FORMAT, &bytes)
    }

    /// The percentile and value of the block's printed number `name`.
    fn point(b: &Block, name: &str) -> (Option<f64>, Option<f64>) {
        let p = b.printed.iter().find(|p| p.name == name).expect(name);
        (p.percentile, p.value)
    }

    fn value(run: &Run) -> f64 {
        crate::testutil::single(&run.series[0])
    }

    #[test]
    fn json_runs_are_the_timing_runs() {
        let blocks = real("two-commands.json");
        assert_eq!(blocks.len(), 2);
        let b = &blocks[0];
        assert_eq!(b.label, None);
        assert_eq!(b.runs.len(), 10);
        // Two commands: two benches, both measuring `time`.
        assert!(
            b.runs
                .iter()
                .all(|r| r.bench.as_deref() == Some("sleep 0.01"))
        );
        assert!(
            blocks[1]
                .runs
                .iter()
                .all(|r| r.bench.as_deref() == Some("sleep 0.02"))
        );
        assert!(
            blocks
                .iter()
                .all(|b| b.runs.iter().all(|r| r.series[0].metric == "time"))
        );
        // The exit code is what a run did, not configuration.
        assert!(b.runs[0].config.is_empty());
        assert_eq!(b.runs[0].series[0].unit, "s");
        assert_eq!(value(&b.runs[0]), 0.010335841440000002);
        assert_eq!(value(&b.runs[9]), 0.013498069440000001);
        assert_eq!(b.runs[0].params["exit_code"], Param::Num(0.0));
        assert_eq!(printed(b, "mean"), Some(0.012654691440000001));
        assert_eq!(point(b, "median"), (Some(50.0), Some(0.013546731440000001)));
        assert_eq!(printed(&blocks[1], "max"), Some(0.026671475440000002));
    }

    #[test]
    fn a_published_export() {
        let blocks = real("1brc-hyperfine.json");
        assert_eq!(blocks.len(), 2);
        let b = &blocks[0];
        assert_eq!(
            b.runs[0].bench.as_deref(),
            Some("cargo run --release --bin 1brc measurements_1000000000.txt")
        );
        assert_eq!(b.runs[0].series[0].metric, "time");
        let times: Vec<f64> = b.runs.iter().map(value).collect();
        assert_eq!(
            times,
            [13.148435542520001, 11.81813333352, 9.877873458520002]
        );
        assert_eq!(printed(b, "mean"), Some(11.61481411152));
        assert_eq!(printed(&blocks[1], "median"), Some(12.04923320852));
    }

    #[test]
    fn json_parameter_scan_keeps_its_parameters() {
        let blocks = real("scan.json");
        assert_eq!(blocks.len(), 3);
        assert_eq!(blocks[2].runs[0].bench.as_deref(), Some("sleep 0.03"));
        assert_eq!(blocks[0].runs.len(), 5);
        assert_eq!(blocks[0].runs[1].params["n"], Param::Num(1.0));
        // `sleep 0.0{n}` became `sleep 0.01`: the command names the step, as the
        // terminal output of the same invocation does without parameters.
        assert!(blocks[0].runs[1].config.is_empty());
        assert_eq!(value(&blocks[0].runs[1]), 0.014171563960000001);
        assert_eq!(blocks[2].runs[0].params["n"], Param::Num(3.0));
        assert_eq!(printed(&blocks[2], "mean"), Some(0.03271382896));
    }

    /// `--command-name run` with `-P n 1 2`: one name for both steps, so the parameter is
    /// what tells them apart.
    #[test]
    fn a_parameter_the_name_does_not_tell_stays_configuration() {
        let result = |n: u32| {
            format!(
                r#"{{"command": "run", "mean": 0.{n}, "times": [0.{n}], "parameters": {{"n": "{n}"}}}}"#
            )
        };
        let text = format!(r#"{{"results": [{}, {}]}}"#, result(1), result(2));
        let blocks = json(&text).map(implied_parameters).unwrap();
        for (b, n) in blocks.iter().zip([1.0, 2.0]) {
            assert!(b.runs[0].config.contains("n"));
            assert_eq!(b.runs[0].params["n"], Param::Num(n));
        }
    }

    #[test]
    fn csv_rows_with_parameter_columns() {
        let blocks = real("scan.csv");
        assert_eq!(blocks.len(), 3);
        let r = &blocks[1].runs[0];
        assert_eq!(value(r), 0.022357553960000002);
        assert_eq!(r.series[0].stats["stddev"], 0.003698794957475948);
        assert_eq!(r.series[0].stats["system"], 0.0);
        assert_eq!(r.params["n"], Param::Num(2.0));
        assert!(r.config.is_empty());
        assert_eq!(r.bench.as_deref(), Some("sleep 0.02"));
        let blocks = real("two-commands.csv");
        assert_eq!(value(&blocks[0].runs[0]), 0.012654691440000001);
        // `min` is a printed point (percentile 0), not a stat of the run.
        assert!(!blocks[0].runs[0].series[0].stats.contains_key("min"));
        assert_eq!(
            point(&blocks[0], "min"),
            (Some(0.0), Some(0.009970168440000001))
        );
    }

    #[test]
    fn markdown_takes_its_unit_from_the_header() {
        let blocks = real("two-commands.md");
        assert_eq!(blocks.len(), 2);
        let s = &blocks[1].runs[0].series[0];
        assert_eq!((s.metric.as_str(), s.unit.as_str()), ("time", "ms"));
        assert_eq!(blocks[1].runs[0].bench.as_deref(), Some("sleep 0.02"));
        assert_eq!(value(&blocks[1].runs[0]), 22.1);
        assert_eq!(s.stats["stddev"], 2.9);
        assert_eq!(point(&blocks[1], "max"), (Some(100.0), Some(26.7)));
        assert_eq!(printed(&blocks[1], "relative"), Some(1.75));
        assert_eq!(printed(&blocks[1], "relative_error"), Some(0.40));
        let blocks = real("shell-none.md");
        assert_eq!(blocks[0].runs[0].bench.as_deref(), Some("true-cmd"));
        assert_eq!(value(&blocks[0].runs[0]), 0.6);
    }

    #[test]
    fn terminal_output_with_warnings_and_summary() {
        let blocks = real("two-commands-terminal.txt");
        assert_eq!(blocks.len(), 2);
        let s = &blocks[0].runs[0].series[0];
        assert_eq!(s.unit, "ms");
        assert_eq!(value(&blocks[0].runs[0]), 12.7);
        assert_eq!(s.stats["stddev"], 2.4);
        assert_eq!(s.stats["user"], 0.8);
        assert_eq!(point(&blocks[0], "min"), (Some(0.0), Some(10.0)));
        assert_eq!(point(&blocks[0], "max"), (Some(100.0), Some(16.9)));
        assert_eq!(point(&blocks[0], "stddev"), (None, Some(2.4)));
        assert!(!s.stats.contains_key("max"));
        assert_eq!(blocks[0].runs[0].params["runs"], Param::Num(10.0));
        assert!(blocks[0].runs[0].config.is_empty());
        assert_eq!(blocks[1].runs[0].bench.as_deref(), Some("sleep 0.02"));
        assert_eq!(printed(&blocks[0], "relative"), Some(1.0));
        assert_eq!(printed(&blocks[1], "relative"), Some(1.75));
        let blocks = real("scan-terminal.txt");
        assert_eq!(blocks.len(), 3);
        assert_eq!(value(&blocks[2].runs[0]), 32.7);
        assert_eq!(printed(&blocks[2], "relative"), Some(2.85));
        let blocks = real("shell-none-terminal.txt");
        assert_eq!(point(&blocks[0], "max"), (Some(100.0), Some(0.7)));
    }

    #[test]
    fn coloured_summary_with_unquoted_names() {
        // process-info-bench-bench.ans, last five lines: `clang.exe ran` and
        // `1.00 ± 0.04 times faster than g++.exe` …, every name wrapped in SGR colours.
        let blocks = real("process-info-bench-bench.ans");
        let rel = |cmd: &str| {
            let b = blocks
                .iter()
                .find(|b| b.runs[0].bench.as_deref() == Some(cmd))
                .expect(cmd);
            (printed(b, "relative"), printed(b, "relative_error"))
        };
        assert_eq!(rel("clang.exe"), (Some(1.0), None));
        assert_eq!(rel("g++.exe"), (Some(1.00), Some(0.04)));
        assert_eq!(rel("gcc.exe"), (Some(1.04), Some(0.08)));
        assert_eq!(rel("msvc.exe"), (Some(1.06), Some(0.05)));
        assert_eq!(rel("rust.exe"), (Some(1.11), Some(0.07)));
    }

    #[test]
    fn terminal_units_convert_exactly_to_the_means_unit() {
        let text = "Benchmark 1: x\n  Time (mean ± σ):      1.234 s ±  12.5 ms    [User: 900.0 µs, System: 2.0 ms]\n  Range (min … max):    1.200 s …  1.300 s    10 runs\n";
        let b = parse_ok(&FORMAT, text.as_bytes());
        let s = &b[0].runs[0].series[0];
        assert_eq!(s.unit, "s");
        assert_eq!(s.stats["stddev"], 0.0125);
        assert_eq!(s.stats["user"], 0.0009);
        assert_eq!(point(&b[0], "max"), (Some(100.0), Some(1.3)));
    }

    #[test]
    fn a_bad_json_number_names_its_line() {
        let text = "{\n  \"results\": [\n    {\n      \"command\": \"x\",\n      \"mean\": \"fast\"\n    }\n  ]\n}\n";
        let err = (FORMAT.parse)(Box::new(text.as_bytes()))
            .find_map(Result::err)
            .unwrap();
        assert_eq!(err.line, 5);
    }

    #[test]
    fn fixtures_snapshot() {
        insta::glob!("../../../fixtures/hyperfine", "*.*", |path| {
            let items = crate::testutil::items_json(&FORMAT, &std::fs::read(path).unwrap());
            insta::assert_json_snapshot!(items);
        });
    }
}
