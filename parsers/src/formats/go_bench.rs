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
//! Every benchmark (name with its `-N` GOMAXPROCS suffix, per package) is one block
//! labelled with the name; its `-count` repeats are its runs, in order. Each `value unit`
//! pair of a line is one value series named `<benchmark>.<unit>`, both normalised
//! (`BenchmarkJoin-2` `ns/op` → `join_2.ns_op`), the unit kept as printed (`ns/op`,
//! `B/op`, `allocs/op`, `MB/s`, custom units). Params: `iterations` (b.N), `procs` (the
//! suffix, 1 when absent), `key=value` parts of sub-benchmark names, and the `goos`,
//! `goarch`, `pkg`, `cpu` headers (the last ones printed, for results printed before any).
//!
//! With `-json`, the `Output` of every `output` event is joined in order (one result line
//! can be split across two events) and read as text; a line's number is that of the event
//! where it starts. Fixtures: `fixtures/real/go-bench/bench-count3.txt`,
//! `fixtures/real/go-bench/bench-json.jsonl`.
//!
//! A result line whose iteration count or values do not parse, or a JSON event line that
//! is not JSON, is an error naming the line.

use crate::document;
use crate::error::ParseError;
use crate::format::{Format, Head, ParseIter};
use crate::model::{Block, Data, Param, Run, Series};
use crate::text::metric_name;
use crate::text::re;
use regex::Regex;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::sync::LazyLock;

/// The format entry for the registry.
pub const FORMAT: Format = Format::new("go-bench", "1", sniff, parse);

/// `BenchmarkX-8  N  value unit [value unit …]`.
static RESULT: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(Benchmark\S*)\s+(\S+)((?:\s+\S+\s+\S+)+)\s*$"));
/// A result line with at least one `ns/op` pair, as the sniffer wants it.
static SNIFF_RESULT: LazyLock<Regex> = LazyLock::new(|| re(r"^Benchmark\S*\s+\d+\s+[0-9.]+ ns/op"));
static HEADER: LazyLock<Regex> = LazyLock::new(|| re(r"^(goos|goarch|pkg|cpu): (.*?)\s*$"));

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
    let mut headers = 0;
    for line in text.lines().take(2000) {
        let line = line.trim_end_matches('\r');
        if SNIFF_RESULT.is_match(line) {
            results += 1;
        } else if HEADER.is_match(line) {
            headers += 1;
        }
    }
    match (results, headers) {
        (0, _) => 0,
        (_, h) if h >= 2 => 95,
        _ => 80,
    }
}

#[derive(Deserialize)]
struct Event {
    #[serde(rename = "Action")]
    action: String,
    #[serde(rename = "Output", default)]
    output: Option<String>,
}

/// Parses Go benchmark text or `-json` events (see the module doc).
pub fn parse<'a>(r: Box<dyn BufRead + 'a>) -> ParseIter<'a> {
    document::parse(r, |doc| {
        let lines = if doc.text().starts_with('{') {
            json_lines(doc.text())?
        } else {
            doc.lines().map(|(n, l)| (n, l.into_owned())).collect()
        };
        read(&lines)
    })
}

/// The text lines a `-json` stream printed, each with the number of the event line
/// where it starts.
fn json_lines(text: &str) -> Result<Vec<(u64, String)>, ParseError> {
    let mut out = Vec::new();
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
    Ok(out)
}

/// One benchmark being collected.
struct Bench {
    name: String,
    first_line: u64,
    last_line: u64,
    runs: Vec<Run>,
}

fn read(lines: &[(u64, String)]) -> Result<Vec<Block>, ParseError> {
    let mut headers: BTreeMap<String, Param> = BTreeMap::new();
    let mut benches: Vec<Bench> = Vec::new();
    let mut index: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (n, line) in lines {
        let n = *n;
        let line = line.trim_end();
        if let Some(c) = HEADER.captures(line) {
            headers.insert(c[1].to_string(), Param::from(&c[2]));
            continue;
        }
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
        let cells: Vec<&str> = c[3].split_whitespace().collect();
        let mut params = headers.clone();
        params.insert("iterations".into(), Param::Num(iterations as f64));
        let (base, procs) = split_procs(&name);
        params.insert("procs".into(), Param::Num(procs as f64));
        for part in base.split('/').skip(1) {
            if let Some((k, v)) = part.split_once('=') {
                let p = v.parse::<f64>().map_or_else(|_| Param::from(v), Param::Num);
                params.insert(k.to_string(), p);
            }
        }
        let prefix = metric_name(name.strip_prefix("Benchmark").unwrap_or(&name));
        let mut series = Vec::new();
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
            series.push(Series::new(
                format!("{prefix}.{}", metric_name(unit)),
                format!("{name} {unit}"),
                *unit,
                Data::Value { value: Some(value) },
            ));
        }
        let pkg = match headers.get("pkg") {
            Some(Param::Text(p)) => p.clone(),
            _ => String::new(),
        };
        let i = *index.entry((pkg, name.clone())).or_insert_with(|| {
            benches.push(Bench {
                name: name.clone(),
                first_line: n,
                last_line: n,
                runs: Vec::new(),
            });
            benches.len() - 1
        });
        let b = &mut benches[i];
        b.last_line = n;
        b.runs.push(Run {
            bench: None,
            config: Default::default(),
            index: b.runs.len() as u32 + 1,
            first_line: n,
            last_line: n,
            params,
            tags: BTreeMap::new(),
            series,
        });
    }
    // Headers printed after the results (a sorted copy) still describe them.
    for b in &mut benches {
        for r in &mut b.runs {
            for (k, v) in &headers {
                r.params.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
    }
    Ok(benches
        .into_iter()
        .map(|b| Block {
            label: Some(b.name),
            first_line: b.first_line,
            last_line: b.last_line,
            runs: b.runs,
            printed: Vec::new(),
        })
        .collect())
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
    use crate::testutil::parse_ok;
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

    #[test]
    fn count_repeats_are_runs() {
        let blocks = real("bench-count3.txt");
        assert_eq!(blocks.len(), 3);
        let join = &blocks[0];
        assert_eq!(join.label.as_deref(), Some("BenchmarkJoin-2"));
        assert_eq!(join.runs.len(), 3);
        assert_eq!(value(&join.runs[0], "join_2.ns_op"), 1064.0);
        assert_eq!(value(&join.runs[1], "join_2.ns_op"), 1289.0);
        assert_eq!(value(&join.runs[2], "join_2.b_op"), 1016.0);
        assert_eq!(value(&join.runs[2], "join_2.allocs_op"), 7.0);
        assert_eq!(join.runs[0].params["iterations"], Param::Num(214471.0));
        assert_eq!(join.runs[0].params["procs"], Param::Num(2.0));
        assert_eq!(join.runs[0].params["cpu"], Param::from("AMD EPYC"));
        assert_eq!(
            join.runs[0].params["pkg"],
            Param::from("example.com/benchdemo")
        );
        let sort = &blocks[1];
        assert_eq!(value(&sort.runs[2], "sortcopy_2.mb_s"), 206.53);
        let mb = sort.runs[0]
            .series
            .iter()
            .find(|s| s.metric == "sortcopy_2.mb_s");
        assert_eq!(mb.unwrap().unit, "MB/s");
        let par = &blocks[2];
        assert_eq!(value(&par.runs[0], "paralleljoin_2.ns_op"), 126.7);
        assert_eq!(value(&par.runs[1], "paralleljoin_2.items_op"), 10.0);
    }

    #[test]
    fn a_sorted_published_run_with_headers_last() {
        let blocks = real("go-pkg-benchmarks-loggers.txt");
        assert_eq!(blocks.len(), 17);
        let first = &blocks[0];
        assert_eq!(first.label.as_deref(), Some("BenchmarkDiscardedLogSlog-8"));
        assert_eq!(value(&first.runs[0], "discardedlogslog_8.ns_op"), 4.893);
        assert_eq!(first.runs[0].params["iterations"], Param::Num(1e7));
        assert_eq!(first.runs[0].params["goos"], Param::from("darwin"));
        assert_eq!(first.runs[0].params["goarch"], Param::from("arm64"));
        let stack = &blocks[4].runs[0];
        assert_eq!(value(stack, "errorlogzerologwithstack_8.ns_op"), 3881.0);
        assert_eq!(value(stack, "errorlogzerologwithstack_8.b_op"), 3058.0);
        assert_eq!(value(stack, "errorlogzerologwithstack_8.allocs_op"), 69.0);
        assert_eq!(
            value(&blocks[14].runs[0], "simpleinfologslog_8.ns_op"),
            956.1
        );
    }

    #[test]
    fn without_a_suffix_procs_is_one() {
        let blocks = real("bench-cpu.txt");
        assert_eq!(blocks.len(), 4);
        assert_eq!(blocks[0].label.as_deref(), Some("BenchmarkJoin"));
        assert_eq!(blocks[0].runs[0].params["procs"], Param::Num(1.0));
        assert_eq!(value(&blocks[0].runs[1], "join.ns_op"), 1518.0);
        assert_eq!(value(&blocks[1].runs[1], "join_2.ns_op"), 2742.0);
        assert_eq!(value(&blocks[2].runs[0], "paralleljoin.ns_op"), 273.7);
    }

    #[test]
    fn json_events_join_split_result_lines() {
        let blocks = real("bench-json.jsonl");
        assert_eq!(blocks.len(), 3);
        let join = &blocks[0];
        // Split across events 6 and 7.
        assert_eq!(join.first_line, 6);
        assert_eq!(value(&join.runs[0], "join_2.ns_op"), 1277.0);
        assert_eq!(join.runs[0].params["iterations"], Param::Num(120754.0));
        assert_eq!(value(&blocks[1].runs[0], "sortcopy_2.mb_s"), 210.80);
        assert_eq!(value(&blocks[2].runs[0], "paralleljoin_2.b_op"), 56.0);
        assert_eq!(blocks[2].runs[0].params["goarch"], Param::from("amd64"));
    }

    #[test]
    fn sub_benchmark_parameters() {
        let text = "BenchmarkMap/size=10/kind=hash-8   \t 1000\t  12.5 ns/op\n";
        let b = parse_ok(&FORMAT, text.as_bytes());
        let r = &b[0].runs[0];
        assert_eq!(r.params["size"], Param::Num(10.0));
        assert_eq!(r.params["kind"], Param::from("hash"));
        assert_eq!(r.params["procs"], Param::Num(8.0));
        assert_eq!(r.series[0].metric, "map_size_10_kind_hash_8.ns_op");
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
