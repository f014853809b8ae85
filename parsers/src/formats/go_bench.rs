//! Go `testing` benchmark results (format `go-bench`): `go test -bench` text (the
//! benchstat format) and `go test -json` events.
//!
//! ```text
//! goos: linux
//! goarch: amd64
//! pkg: example.com/benchdemo
//! cpu: AMD EPYC
//! BenchmarkJoin-2                 214471          1064 ns/op        1016 B/op           7 allocs/op
//! BenchmarkSortCopy-2               6171         40474 ns/op     197.66 MB/s        8216 B/op           2 allocs/op
//! ```
//!
//! Each `value unit` pair of a result line is one value series named by its normalised
//! unit (`ns/op` → `ns_op`, `B/op` → `b_op`, `allocs/op`, `MB/s` → `mb_s`, custom units),
//! the unit kept as printed.
//!
//! Identity: `bench` is the name as printed without its `-N` GOMAXPROCS suffix
//! (`BenchmarkGet/size=10`). `config` holds every configuration line in force (`goos`,
//! `goarch`, `pkg`, `cpu`, and any other `key: value` line such as `note: before`; a line
//! applies to the results after it, as in benchstat; lines printed only after all results,
//! as in a sorted copy, apply to the last run's results), `procs` (the suffix, 1 when
//! absent) and the `key=value` parts of a sub-benchmark name. `iterations` (b.N) is a
//! plain param: it is measured, not chosen. One block is one `go test` package run: the
//! results after one group of configuration lines (a configuration line after results
//! starts the next block); its runs are every result line in order, so `-count` repeats
//! are the replicates of their bench. No label: the output has no lead line.
//!
//! With `-json`, the `Output` of every `output` event is joined in order (one result line
//! can be split across two events) and read as text; a line's number is that of the event
//! where it starts. Fixtures: `fixtures/real/go-bench/bench-count3.txt`,
//! `fixtures/real/go-bench/bench-json.jsonl`. Each result gets its event's `Time` as the run's
//! `time` tag (UTC, to the second).
//!
//! A result line whose iteration count or values do not parse, or a JSON event line that
//! is not JSON, is an error naming the line.

use crate::document;
use crate::error::ParseError;
use crate::format::{Format, Head, ParseIter};
use crate::model::{Block, Data, Param, Parsed, Run, Series};
use crate::text::metric_name;
use crate::text::re;
use regex::Regex;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::sync::LazyLock;

/// The format entry for the registry.
pub const FORMAT: Format = Format::new("go-bench", "1", sniff, parse)
    .read_whole()
    .claims_at_most(95);

/// `BenchmarkX-8  N  value unit [value unit …]`.
static RESULT: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(Benchmark\S*)\s+(\S+)((?:\s+\S+\s+\S+)+)\s*$"));
/// A result line with at least one `ns/op` pair, as the sniffer wants it.
static SNIFF_RESULT: LazyLock<Regex> = LazyLock::new(|| re(r"^Benchmark\S*\s+\d+\s+[0-9.]+ ns/op"));
/// A whole result line in any units, every value a number: the benchmark format lets a
/// tool report only its own units (`Benchmarkk8s_schedulercache_total 1 33871255
/// total-bytes`, from the Go team's `bent`), fields split by single spaces.
static SNIFF_ANY_UNITS: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^Benchmark\S*\s+\d+(?:\s+-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s+[^\s\d]\S*)+\s*$")
});
static HEADER: LazyLock<Regex> = LazyLock::new(|| re(r"^(goos|goarch|pkg|cpu): (.*?)\s*$"));
/// Any configuration line, `key: value` with a lower-case key (benchstat's rule).
static CONFIG: LazyLock<Regex> = LazyLock::new(|| re(r"^([a-z][^\s:]*):\s+(\S.*?)\s*$"));

/// Confidence that `head` holds Go benchmark results.
pub fn sniff(head: &Head) -> u8 {
    let text = head.text;
    if text.starts_with("{\"Time\":") || text.starts_with("{\"Action\":") {
        let json_bench = text
            .lines()
            .take(2000)
            .any(|l| l.contains("\"Output\":\"Benchmark") && l.contains("ns/op"))
            || text.contains(" ns/op\\t") && text.contains("\"Output\":\"Benchmark");
        return if json_bench { 95 } else { 0 };
    }
    let mut results = 0;
    let mut other_units = 0;
    let mut headers = 0;
    for line in text.lines().take(2000) {
        let line = line.trim_end_matches('\r');
        if SNIFF_RESULT.is_match(line) {
            results += 1;
        } else if SNIFF_ANY_UNITS.is_match(line) {
            other_units += 1;
        } else if HEADER.is_match(line) {
            headers += 1;
        }
    }
    match (results, other_units, headers) {
        (0, 0, _) => 0,
        (_, _, h) if h >= 2 => 95,
        (0, _, _) => 60,
        _ => 80,
    }
}

#[derive(Deserialize)]
struct Event {
    #[serde(rename = "Action")]
    action: String,
    #[serde(rename = "Output", default)]
    output: Option<String>,
    /// When the event was written (RFC 3339, the machine's zone).
    #[serde(rename = "Time", default)]
    time: Option<String>,
}

/// Parses Go benchmark text or `-json` events (see the module doc).
pub fn parse<'a>(r: Box<dyn BufRead + 'a>) -> ParseIter<'a> {
    document::parse(r, |doc| {
        if doc.text().starts_with('{') {
            let (lines, times) = json_lines(doc.text())?;
            let (mut blocks, _) = read(&lines, None)?;
            // A result's time is its event's: `time` in UTC, as ingest reads it.
            for run in blocks.iter_mut().flat_map(|b| b.runs.iter_mut()) {
                if let Some(t) = times.get(&run.first_line) {
                    run.tags.insert("time".into(), t.clone());
                }
            }
            return Ok(blocks.into_iter().map(Parsed::from).collect());
        }
        let lines: Vec<(u64, String)> = doc.lines().map(|(n, l)| (n, l.into_owned())).collect();
        // Go ends every line it prints: a file ending inside a line was cut there.
        let text = doc.text();
        let cut = (!text.is_empty() && !text.ends_with('\n'))
            .then(|| lines.last().map(|l| l.0))
            .flatten();
        let (blocks, warning) = read(&lines, cut)?;
        Ok(warning
            .into_iter()
            .chain(blocks.into_iter().map(Parsed::from))
            .collect())
    })
}

/// Units `go test` prints itself: a unit on a cut line that is a strict beginning of one
/// (`B/` of `B/op`) was cut inside it.
const GO_UNITS: [&str; 4] = ["ns/op", "B/op", "allocs/op", "MB/s"];

/// The cells of a result line the file ends inside (`cut`: no newline after it): a
/// dangling value, or a pair whose unit is cut inside one of [`GO_UNITS`], is left out;
/// the warning says what.
fn cut_cells(name: &str, n: u64, cells: &mut Vec<&str>) -> Parsed {
    let mut left: Vec<&str> = Vec::new();
    if cells.len() % 2 == 1 {
        left.extend(cells.pop());
    } else if let Some(unit) = cells.last()
        && GO_UNITS
            .iter()
            .any(|u| u.len() > unit.len() && u.starts_with(unit))
    {
        let unit = cells.pop();
        left.extend(cells.pop());
        left.extend(unit);
    }
    let message = if left.is_empty() {
        format!(
            "{name}: the file ends inside this line (no newline after it): its last value may be cut"
        )
    } else {
        format!(
            "{name}: the file ends inside this line (no newline after it): `{}` is cut and left out",
            left.join(" ")
        )
    };
    Parsed::Warning { line: n, message }
}

/// Per event line, its time in UTC to the second (`2026-12-01T04:32:34Z`).
type Times = std::collections::BTreeMap<u64, String>;

/// The text lines a `-json` stream printed, each with the number of the event line
/// where it starts, and the time of each event.
fn json_lines(text: &str) -> Result<(Vec<(u64, String)>, Times), ParseError> {
    let mut out = Vec::new();
    let mut times = Times::new();
    let mut pending = String::new();
    let mut start = 0;
    for (i, line) in text.lines().enumerate() {
        let n = i as u64 + 1;
        if line.trim().is_empty() {
            continue;
        }
        let ev: Event = serde_json::from_str(line)
            .map_err(|e| ParseError::new(n, format!("go test -json event: {e}")))?;
        if ev.action != "output" {
            continue;
        }
        if let Some(t) = ev.time.as_deref().and_then(utc_second) {
            times.insert(n, t);
        }
        let Some(mut s) = ev.output else { continue };
        if pending.is_empty() {
            start = n;
        }
        while let Some(pos) = s.find('\n') {
            pending.push_str(&s[..pos]);
            out.push((start, std::mem::take(&mut pending)));
            s.drain(..=pos);
            start = n;
        }
        pending.push_str(&s);
    }
    if !pending.is_empty() {
        out.push((start, pending));
    }
    Ok((out, times))
}

/// An RFC 3339 time (any offset, any fraction) in UTC to the second.
fn utc_second(t: &str) -> Option<String> {
    let d = chrono::DateTime::parse_from_rfc3339(t).ok()?;
    crate::units::rfc3339_utc(d.timestamp() as f64)
}

/// One `go test` run being collected: the results after one group of configuration lines.
struct Group {
    first_line: u64,
    last_line: u64,
    runs: Vec<Run>,
}

/// The blocks of `lines`, and the warning about a result line the file ends inside
/// (`cut`, its number).
fn read(
    lines: &[(u64, String)],
    cut: Option<u64>,
) -> Result<(Vec<Block>, Option<Parsed>), ParseError> {
    let mut warning = None;
    // Configuration in force: a line sets its key for the results after it (benchstat).
    let mut config: BTreeMap<String, Param> = BTreeMap::new();
    let mut groups: Vec<Group> = Vec::new();
    // A configuration line after results starts the next package run.
    let mut new_group = true;
    // Configuration lines printed after the last results (a sorted copy).
    let mut trailing: BTreeMap<String, Param> = BTreeMap::new();
    for (n, line) in lines {
        let n = *n;
        let line = line.trim_end();
        if let Some(c) = CONFIG.captures(line) {
            let v = c[2].trim();
            new_group = true;
            config.insert(c[1].to_string(), Param::from(v));
            trailing.insert(c[1].to_string(), Param::from(v));
            continue;
        }
        // A line cut after a value holds one cell too many to be read as pairs: it is
        // read without it (the warning says so).
        let (line, dangling) = match line.rsplit_once(char::is_whitespace) {
            Some((whole, last)) if cut == Some(n) && !RESULT.is_match(line) => (whole, Some(last)),
            _ => (line, None),
        };
        let Some(c) = RESULT.captures(line) else {
            continue;
        };
        let name = c[1].to_string();
        let iterations: u64 = c[2].parse().map_err(|_| {
            ParseError::new(
                n,
                format!("{name}: cannot read `{}` as an iteration count", &c[2]),
            )
        })?;
        let mut cells: Vec<&str> = c[3].split_whitespace().collect();
        if cut == Some(n) {
            cells.extend(dangling);
            warning = Some(cut_cells(&name, n, &mut cells));
            if cells.is_empty() {
                continue;
            }
        }
        let (base, procs) = split_procs(&name);
        let mut run = Run {
            bench: Some(base.to_string()),
            first_line: n,
            last_line: n,
            ..Run::default()
        };
        for (k, v) in &config {
            run.set_config(k.clone(), v.clone());
        }
        run.params
            .insert("iterations".into(), Param::Num(iterations as f64));
        run.set_config("procs", procs as f64);
        for part in base.split('/').skip(1) {
            if let Some((k, v)) = part.split_once('=') {
                let p = v.parse::<f64>().map_or_else(|_| Param::from(v), Param::Num);
                run.set_config(k, p);
            }
        }
        for pair in cells.chunks(2) {
            let [value, unit] = pair else {
                return Err(ParseError::new(
                    n,
                    format!("{name}: a value without a unit"),
                ));
            };
            let value: f64 = value
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite())
                .ok_or_else(|| {
                    ParseError::new(n, format!("{name}: cannot read `{value}` as a number"))
                })?;
            run.series.push(Series::new(
                metric_name(unit),
                format!("{name} {unit}"),
                *unit,
                Data::Value { value: Some(value) },
            ));
        }
        if new_group {
            groups.push(Group {
                first_line: n,
                last_line: n,
                runs: Vec::new(),
            });
            new_group = false;
        }
        trailing.clear();
        let g = groups.last_mut().expect("a group was just pushed");
        g.last_line = n;
        run.index = g.runs.len() as u32 + 1;
        g.runs.push(run);
    }
    // Configuration printed only after the results (a sorted copy) still describes them.
    if let Some(last) = groups.last_mut() {
        for r in &mut last.runs {
            for (k, v) in &trailing {
                if !r.params.contains_key(k) {
                    r.set_config(k.clone(), v.clone());
                }
            }
        }
    }
    let blocks = groups
        .into_iter()
        .map(|g| Block {
            label: None,
            first_line: g.first_line,
            last_line: g.last_line,
            runs: g.runs,
            printed: Vec::new(),
        })
        .collect();
    Ok((blocks, warning))
}

/// `BenchmarkX/n=1-8` → (`BenchmarkX/n=1`, 8); without a suffix GOMAXPROCS was 1.
fn split_procs(name: &str) -> (&str, u64) {
    if let Some((base, procs)) = name.rsplit_once('-')
        && let Ok(p) = procs.parse::<u64>()
    {
        return (base, p);
    }
    (name, 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{items_json, parse_ok};
    use std::path::PathBuf;

    fn real(name: &str) -> Vec<Block> {
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/real/go-bench")
            .join(name);
        let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        parse_ok(&FORMAT, &bytes)
    }

    fn value(run: &Run, metric: &str) -> f64 {
        let s = run
            .series
            .iter()
            .find(|s| s.metric == metric)
            .unwrap_or_else(|| panic!("no {metric}"));
        match s.data {
            Data::Value { value } => value.unwrap(),
            _ => panic!("{metric} is not a value"),
        }
    }

    fn config(run: &Run) -> Vec<&str> {
        run.config.iter().map(String::as_str).collect()
    }

    #[test]
    fn count_repeats_are_runs_of_one_block() {
        let blocks = real("bench-count3.txt");
        assert_eq!(blocks.len(), 1);
        let b = &blocks[0];
        assert_eq!(b.label, None);
        assert_eq!((b.first_line, b.last_line), (5, 13));
        assert_eq!(b.runs.len(), 9);
        let join = &b.runs[..3];
        for r in join {
            assert_eq!(r.bench.as_deref(), Some("BenchmarkJoin"));
        }
        assert_eq!(value(&join[0], "ns_op"), 1064.0);
        assert_eq!(value(&join[1], "ns_op"), 1289.0);
        assert_eq!(value(&join[2], "b_op"), 1016.0);
        assert_eq!(value(&join[2], "allocs_op"), 7.0);
        assert_eq!(join[0].params["iterations"], Param::Num(214471.0));
        assert_eq!(join[0].params["procs"], Param::Num(2.0));
        assert_eq!(join[0].params["cpu"], Param::from("AMD EPYC"));
        assert_eq!(join[0].params["pkg"], Param::from("example.com/benchdemo"));
        assert_eq!(config(&join[0]), ["cpu", "goarch", "goos", "pkg", "procs"]);
        // Repeats differ in N only, which is not identity.
        assert_eq!(join[0].config_params(), join[1].config_params());
        let sort = &b.runs[5];
        assert_eq!(sort.bench.as_deref(), Some("BenchmarkSortCopy"));
        assert_eq!(value(sort, "mb_s"), 206.53);
        let mb = sort.series.iter().find(|s| s.metric == "mb_s");
        assert_eq!(mb.unwrap().unit, "MB/s");
        let par = &b.runs[6];
        assert_eq!(par.bench.as_deref(), Some("BenchmarkParallelJoin"));
        assert_eq!(value(par, "ns_op"), 126.7);
        assert_eq!(value(&b.runs[7], "items_op"), 10.0);
    }

    #[test]
    fn a_sorted_published_run_with_headers_last() {
        let blocks = real("go-pkg-benchmarks-loggers.txt");
        assert_eq!(blocks.len(), 1);
        let runs = &blocks[0].runs;
        assert_eq!(runs.len(), 17);
        let first = &runs[0];
        assert_eq!(first.bench.as_deref(), Some("BenchmarkDiscardedLogSlog"));
        assert_eq!(value(first, "ns_op"), 4.893);
        assert_eq!(first.params["iterations"], Param::Num(1e7));
        assert_eq!(first.params["goos"], Param::from("darwin"));
        assert_eq!(first.params["goarch"], Param::from("arm64"));
        assert_eq!(config(first), ["goarch", "goos", "procs"]);
        let stack = &runs[4];
        assert_eq!(
            stack.bench.as_deref(),
            Some("BenchmarkErrorLogZerologWithStack")
        );
        assert_eq!(value(stack, "ns_op"), 3881.0);
        assert_eq!(value(stack, "b_op"), 3058.0);
        assert_eq!(value(stack, "allocs_op"), 69.0);
        assert_eq!(value(&runs[14], "ns_op"), 956.1);
    }

    #[test]
    fn without_a_suffix_procs_is_one() {
        let blocks = real("bench-cpu.txt");
        assert_eq!(blocks.len(), 1);
        let runs = &blocks[0].runs;
        assert_eq!(runs[0].bench.as_deref(), Some("BenchmarkJoin"));
        assert_eq!(runs[0].params["procs"], Param::Num(1.0));
        assert_eq!(value(&runs[1], "ns_op"), 1518.0);
        // `-cpu 1,2`: the same bench with another `procs` configuration.
        assert_eq!(runs[3].bench.as_deref(), Some("BenchmarkJoin"));
        assert_eq!(runs[3].params["procs"], Param::Num(2.0));
        assert_eq!(value(&runs[3], "ns_op"), 2742.0);
        assert_eq!(runs[4].bench.as_deref(), Some("BenchmarkParallelJoin"));
        assert_eq!(value(&runs[4], "ns_op"), 273.7);
    }

    #[test]
    fn json_events_join_split_result_lines() {
        let blocks = real("bench-json.jsonl");
        assert_eq!(blocks.len(), 1);
        let runs = &blocks[0].runs;
        assert_eq!(runs.len(), 3);
        // Split across events 6 and 7.
        assert_eq!(blocks[0].first_line, 6);
        assert_eq!(runs[0].bench.as_deref(), Some("BenchmarkJoin"));
        assert_eq!(value(&runs[0], "ns_op"), 1277.0);
        assert_eq!(runs[0].params["iterations"], Param::Num(120754.0));
        assert_eq!(value(&runs[1], "mb_s"), 210.80);
        assert_eq!(value(&runs[2], "b_op"), 56.0);
        assert_eq!(runs[2].params["goarch"], Param::from("amd64"));
        // Each result carries the time of the event it starts on, in UTC to the second:
        // event 6 at 04:32:34.301647794Z, event 9 at 04:32:34.445802454Z.
        assert_eq!(runs[0].tags["time"], "2026-12-01T04:32:34Z");
        assert_eq!(runs[1].tags["time"], "2026-12-01T04:32:34Z");
    }

    #[test]
    fn event_times_in_any_offset_read_as_utc() {
        assert_eq!(
            utc_second("2024-03-05T23:59:59.999+02:00").as_deref(),
            Some("2024-03-05T21:59:59Z")
        );
        assert_eq!(utc_second("not a time"), None);
    }

    #[test]
    fn notes_and_packages_are_configuration_of_one_bench() {
        let bytes = crate::testutil::fixture("go-bench/notes-same-name-two-packages.txt");
        let blocks = parse_ok(&FORMAT, &bytes);
        assert_eq!(blocks.len(), 3);
        let [a, b, after] = [&blocks[0].runs, &blocks[1].runs, &blocks[2].runs];
        assert_eq!(a.len(), 2);
        for r in [&a[0], &a[1], &b[0], &after[0]] {
            assert_eq!(r.bench.as_deref(), Some("BenchmarkParse"));
            assert_eq!(config(r), ["goarch", "goos", "note", "pkg", "procs"]);
        }
        assert_eq!(a[0].params["pkg"], Param::from("example.com/a"));
        assert_eq!(b[0].params["pkg"], Param::from("example.com/b"));
        assert_eq!(a[0].params["note"], Param::from("before"));
        assert_eq!(b[0].params["note"], Param::from("before"));
        assert_eq!(after[0].params["note"], Param::from("after"));
        assert_eq!(after[0].params["pkg"], Param::from("example.com/a"));
        assert_eq!(value(&b[0], "ns_op"), 2400.0);
        assert_eq!(value(&after[0], "ns_op"), 1000.0);
        assert_eq!((blocks[1].first_line, blocks[1].last_line), (10, 10));
    }

    #[test]
    fn sub_benchmark_parameters() {
        let text = "BenchmarkMap/size=10/kind=hash-8   \t 1000\t  12.5 ns/op\n";
        let b = parse_ok(&FORMAT, text.as_bytes());
        let r = &b[0].runs[0];
        assert_eq!(r.bench.as_deref(), Some("BenchmarkMap/size=10/kind=hash"));
        assert_eq!(r.params["size"], Param::Num(10.0));
        assert_eq!(r.params["kind"], Param::from("hash"));
        assert_eq!(r.params["procs"], Param::Num(8.0));
        assert_eq!(config(r), ["kind", "procs", "size"]);
        assert_eq!(r.series[0].metric, "ns_op");
    }

    /// fixtures/real/go-bench/bench-count3.txt cut after its first 600 bytes ends inside
    /// line 10, `… 206.53 MB/s\t    8216 B/`: the cut pair is left out with a warning (it
    /// was a metric `b` in a unit `B/`); cut after a value, the value is.
    #[test]
    fn a_file_ending_inside_a_result_line_leaves_the_cut_pair_out() {
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/real/go-bench/bench-count3.txt");
        let bytes = std::fs::read(p).unwrap();
        let items = items_json(&FORMAT, &bytes[..600]);
        let warning = &items[0]["warning"];
        assert_eq!(warning["line"], 10);
        assert!(
            warning["message"]
                .as_str()
                .unwrap()
                .contains("`8216 B/` is cut and left out"),
            "{warning}"
        );
        let blocks = parse_ok(&FORMAT, &bytes[..600]);
        let last = blocks.last().unwrap().runs.last().unwrap();
        let metrics: Vec<&str> = last.series.iter().map(|s| s.metric.as_str()).collect();
        assert_eq!(metrics, ["ns_op", "mb_s"]);
        assert_eq!(value(last, "mb_s"), 206.53);
        let end = bytes[..600].iter().rposition(|b| *b == b'B').unwrap();
        let blocks = parse_ok(&FORMAT, &bytes[..end - 1]);
        let last = blocks.last().unwrap().runs.last().unwrap();
        assert_eq!(last.series.len(), 2);
        // The whole file, newline and all, warns of nothing.
        assert!(
            items_json(&FORMAT, &bytes)
                .iter()
                .all(|i| i.get("warning").is_none())
        );
    }

    #[test]
    fn custom_units_only_single_spaced() {
        // `bent` binary sizes: no ns/op anywhere, one space between fields.
        let blocks = real("perf-bent-20200101T213604.Base.benchsize");
        assert_eq!(blocks.len(), 34);
        assert_eq!(blocks.iter().map(|b| b.runs.len()).sum::<usize>(), 204);
        let r = &blocks[0].runs[0];
        assert_eq!(
            r.bench.as_deref(),
            Some("Benchmarkk8s_schedulercache_total")
        );
        assert_eq!(value(r, "total_bytes"), 33871255.0);
        assert_eq!(r.series[0].unit, "total-bytes");
        assert_eq!(r.params["goos"], Param::from("linux"));
        assert_eq!(value(&blocks[0].runs[4], "pclntab_bytes"), 8773267.0);
        let last = blocks.last().unwrap().runs.last().unwrap();
        assert_eq!(last.bench.as_deref(), Some("Benchmarkbindata_zdebug_total"));
        assert_eq!(value(last, "zdebug_bytes"), 925860.0);

        // `bent` DWARF quality: fractions, and tool chatter between the groups.
        let blocks = real("perf-bent-20200101T213604.Base.benchdwarf");
        assert_eq!(blocks.iter().map(|b| b.runs.len()).sum::<usize>(), 102);
        let r = &blocks[0].runs[1];
        assert_eq!(
            r.bench.as_deref(),
            Some("Benchmarkk8s_schedulercache_dwarf_args_goodness")
        );
        assert_eq!(value(r, "args_quality"), 0.855791);
        assert_eq!(value(&blocks[0].runs[2], "stmts_quality"), 0.9975);

        let head = |text| Head {
            file_name: "x",
            text,
            complete: true,
        };
        assert_eq!(
            sniff(&head("Benchmarkk8s_api_total 1 33871255 total-bytes\n")),
            60
        );
        assert_eq!(sniff(&head("BenchmarkX 1 0.5e-3 widgets 2 B/op\n")), 60);
        // A value that is not a number, or no unit, is not a result line.
        assert_eq!(sniff(&head("Benchmark 1: sleep 0.1\n")), 0);
        assert_eq!(sniff(&head("BenchmarkX 1 fast ms\n")), 0);
        assert_eq!(sniff(&head("BenchmarkX 10 20\n")), 0);
    }

    #[test]
    fn a_bad_value_names_its_line() {
        let text = "goos: linux\nBenchmarkX-8  100  1.2.3 ns/op\n";
        let err = (FORMAT.parse)(Box::new(text.as_bytes()))
            .find_map(Result::err)
            .unwrap();
        assert_eq!(err.line, 2);
        assert!(err.message.contains("1.2.3"));
    }

    #[test]
    fn fixtures_snapshot() {
        insta::glob!("../../../fixtures/go-bench", "*.*", |path| {
            let items = crate::testutil::items_json(&FORMAT, &std::fs::read(path).unwrap());
            insta::assert_json_snapshot!(items);
        });
    }
}
