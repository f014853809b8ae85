//! brownsys/zookeeper-benchmark data files (FORMATS §4.2): `<TEST>.dat` and
//! `<client>-<TEST>_timings.dat`.
//!
//! Both hold one line of two Java `Double.toString` numbers per event (`2.602615462
//! 342.7321527224524`, `5.12E-4`):
//! - `<TEST>.dat` (`READ.dat`, `SETSINGLE.dat`, …): `<elapsed_s> <rate>` per timer tick →
//!   one `TimeSeries` series `ops_per_sec` (unit `ops/s`; t = seconds since the test start).
//! - `*_timings.dat`: `<submit_s> <complete_s>` per completed request → one `Ladder` series
//!   `latency` (unit `s`, as the file is in seconds) with percentiles 50, 75, 90, 95, 99,
//!   99.9, 99.99 and 100 and `count` = number of requests.
//!
//! The parser sees no file name, so it tells the two apart by content: a timings file
//! has `submit ≤ complete` on every line, its complete times never decrease (the client
//! writes a line when each request completes), and its mean latency is below its mean
//! submit time; a rate file, whose second column is a rate in the thousands, fails at
//! least one of these. Each file is one block with one run. Lines that do not start
//! with a number are ignored; a line that does must be exactly two numbers. A timings file
//! cut inside its last number breaks the shape on that line alone: the line is left out with
//! a warning. `Double.toString` always prints a decimal point with a digit after it
//! (`342.0`, `1.0E7`), so a last line without its newline whose numbers lack that form
//! (`2.602615462 34` of `342.7321527224524`) is cut short: left out with a warning. A cut
//! that still has the form (`342.7`) cannot be told from a whole number and is read.
//! Fixtures: `fixtures/zk-benchmark/READ.dat`, `fixtures/zk-benchmark/0-READ_timings.dat`.
//!
//! Identity: no bench, no config; no timestamp.

use crate::error::ParseError;
use crate::format::{Format, Head, ParseIter};
use crate::lines::LineReader;
use crate::model::{Block, Data, LadderPoint, Parsed, Run, Series, TimePoint};
use crate::units::java_number;
use regex::Regex;
use std::io::BufRead;
use std::sync::LazyLock;

/// The `zk-benchmark` format.
pub const FORMAT: Format = Format::new("zk-benchmark", "1", sniff, parse).claims_at_most(95);

/// Percentiles of the latency ladder computed from a timings file.
pub const PERCENTILES: [f64; 8] = [50.0, 75.0, 90.0, 95.0, 99.0, 99.9, 99.99, 100.0];

/// The names the tool gives its files: `READ.dat`, `0-SETSINGLE_timings.dat`, ….
static ZK_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(^|[-_./])(\d+-)?(READ|SETSINGLE|CREATE|SETMULTI|DELETE)(_timings)?\.dat")
        .expect("valid regex")
});

/// Confidence that `head` is a zookeeper-benchmark `.dat` file: the name must say `.dat`
/// (two numbers per line is too common a shape to claim on content alone) and the
/// first lines must all be two numbers; a name the tool writes, or one mentioning
/// ZooKeeper, gives full confidence.
pub fn sniff(head: &Head) -> u8 {
    if !head.file_name.contains(".dat") {
        return 0;
    }
    let lower = head.file_name.to_ascii_lowercase();
    let named =
        ZK_NAME.is_match(head.file_name) || lower.contains("zk") || lower.contains("zookeeper");
    // Every line must have the data shape; a malformed number still counts, so that the
    // parser, not detection, reports it with its line.
    let mut rows = 0;
    for line in head.text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if pair(line).is_none() {
            return 0;
        }
        rows += 1;
        if rows == 20 {
            break;
        }
    }
    match (rows, named) {
        (0, _) => 0,
        (1 | 2, _) | (_, false) => 40,
        _ => 90,
    }
}

/// One data line's two numbers (`None` = `NaN`/`Infinity`).
type Row = (Option<f64>, Option<f64>);

/// The two numbers of a data line. `None` when the line is not of the data shape (does
/// not start with a number); `Some(Err)` when it is but is not exactly two numbers.
fn pair(t: &str) -> Option<Result<Row, String>> {
    let first = t.split_whitespace().next()?;
    let numeric_start = first
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_digit() || b == b'-' || b == b'.')
        || matches!(first, "NaN" | "Infinity" | "-Infinity");
    if !numeric_start {
        return None;
    }
    let parts: Vec<&str> = t.split_whitespace().collect();
    if parts.len() != 2 {
        return Some(Err(format!(
            "expected two numbers `<seconds> <value>`, found {} field{} in `{t}`",
            parts.len(),
            if parts.len() == 1 { "" } else { "s" }
        )));
    }
    let num = |s: &str| java_number(s).map_err(|_| format!("`{s}` is not a number"));
    Some(num(parts[0]).and_then(|a| Ok((a, num(parts[1])?))))
}

/// Parses one `.dat` file into one block.
pub fn parse<'a>(r: Box<dyn BufRead + 'a>) -> ParseIter<'a> {
    let mut reader = LineReader::new(r);
    let mut done = false;
    let mut out = std::collections::VecDeque::new();
    Box::new(std::iter::from_fn(move || {
        if !done {
            done = true;
            match read_all(&mut reader) {
                Ok(items) => out.extend(items),
                Err(e) => return Some(Err(e)),
            }
        }
        out.pop_front().map(Ok)
    }))
}

/// Reads every data line, then builds the block (nothing when there were no data lines),
/// after the warning about a cut last line if there is one.
fn read_all<R: BufRead>(reader: &mut LineReader<R>) -> Result<Vec<Parsed>, ParseError> {
    let mut rows: Vec<Row> = Vec::new();
    let (mut first_line, mut last_line, mut before_last) = (0, 0, 0);
    let mut out = Vec::new();
    while let Some((n, l, unterminated)) = reader.next_with_end()? {
        let t = l.trim();
        let row = pair(t);
        // Cutting can shorten the last number or drop the second, never add a field.
        let fields = t.split_whitespace().count();
        let cut = fields < 2 || !t.split_whitespace().all(java_form);
        if unterminated && row.is_some() && fields <= 2 && cut {
            out.push(Parsed::Warning {
                line: n,
                message: format!(
                    "the input ends inside this line, without its newline (`{t}`): a number \
                     is cut short or missing (Java prints each with a decimal point): left out"
                ),
            });
            continue;
        }
        match row {
            None => continue,
            Some(Err(msg)) => return Err(ParseError::new(n, msg)),
            Some(Ok(p)) => rows.push(p),
        }
        if first_line == 0 {
            first_line = n;
        }
        before_last = last_line;
        last_line = n;
    }
    if rows.is_empty() {
        return Ok(out);
    }
    // A file cut inside its last number (`3.506` of `3.506717391`) breaks the timings
    // shape on that line alone: the requests before it are whole.
    let cut = rows.len() > 2 && !is_timings(&rows) && is_timings(&rows[..rows.len() - 1]);
    if cut {
        out.push(Parsed::Warning {
            line: last_line,
            message: "the last request's times break the timings file's order (the input \
                      was cut inside a number?): it is left out"
                .to_string(),
        });
        rows.pop();
        last_line = before_last;
    }
    let series = if cut || is_timings(&rows) {
        latency_ladder(&rows)
    } else {
        let points = rows
            .iter()
            .filter_map(|&(t, v)| t.map(|t| TimePoint { t, value: v }))
            .collect();
        Series::new("ops_per_sec", "rate", "ops/s", Data::TimeSeries { points })
    };
    out.push(Parsed::Block(Block {
        label: None,
        first_line,
        last_line,
        runs: vec![Run {
            index: 1,
            first_line,
            last_line,
            series: vec![series],
            ..Default::default()
        }],
        printed: Vec::new(),
    }));
    Ok(out)
}

/// Whether `s` is a whole Java `Double.toString` number: `NaN`, `Infinity`, or digits, a
/// point, digits and an optional exponent (`-2.5`, `342.0`, `5.12E-4`, `1.0E7`).
fn java_form(s: &str) -> bool {
    if matches!(s, "NaN" | "Infinity" | "-Infinity") {
        return true;
    }
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let s = s.strip_prefix('-').unwrap_or(s);
    let (mantissa, exponent) = match s.split_once('E') {
        Some((m, e)) => (m, Some(e.strip_prefix('-').unwrap_or(e))),
        None => (s, None),
    };
    mantissa
        .split_once('.')
        .is_some_and(|(i, f)| digits(i) && digits(f))
        && exponent.is_none_or(digits)
}

/// Whether the rows are `<submit> <complete>` pairs (see the module doc).
fn is_timings(rows: &[Row]) -> bool {
    let mut prev_complete = f64::NEG_INFINITY;
    let (mut sum_submit, mut sum_latency) = (0.0, 0.0);
    for &(s, c) in rows {
        let (Some(s), Some(c)) = (s, c) else {
            return false;
        };
        if s > c || c < prev_complete {
            return false;
        }
        prev_complete = c;
        sum_submit += s;
        sum_latency += c - s;
    }
    sum_latency < sum_submit
}

/// The latency ladder of `<submit> <complete>` rows, by the nearest-rank method: the
/// p-th percentile is the ⌈p/100 · n⌉-th smallest latency (the 1st for tiny p). The
/// times are nanoTime/1e9, so each latency is rounded to whole nanoseconds to drop the
/// binary noise of the subtraction.
fn latency_ladder(rows: &[Row]) -> Series {
    let mut ns: Vec<i64> = rows
        .iter()
        .filter_map(|&(s, c)| Some(((c? - s?) * 1e9).round() as i64))
        .collect();
    ns.sort_unstable();
    let n = ns.len();
    let points = PERCENTILES
        .iter()
        .map(|&p| {
            // Integer rank arithmetic in basis points of a percent avoids 99.99 % rounding up.
            let bp = (p * 100.0).round() as u128;
            let rank = (bp * n as u128).div_ceil(10_000).max(1) as usize;
            LadderPoint {
                percentile: p,
                value: ns.get(rank - 1).map(|&v| v as f64 / 1e9),
                line_value: None,
            }
        })
        .collect();
    Series::new(
        "latency",
        "latency (complete - submit)",
        "s",
        Data::Ladder {
            count: Some(n as u64),
            points,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_of_one_number_says_one_field() {
        let err = pair("3.497134631").unwrap().unwrap_err();
        assert!(err.contains("found 1 field in"), "{err}");
        let err = pair("1 2 3").unwrap().unwrap_err();
        assert!(err.contains("found 3 fields in"), "{err}");
    }
    use crate::testutil::{detect_file, fixture, parse_err};
    use crate::testutil::{parse_ok, shared};

    fn only_series(blocks: &[Block]) -> &Series {
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].runs.len(), 1);
        assert_eq!(blocks[0].runs[0].series.len(), 1);
        &blocks[0].runs[0].series[0]
    }

    fn time_points(s: &Series) -> &[TimePoint] {
        assert_eq!(
            (s.metric.as_str(), s.unit.as_str()),
            ("ops_per_sec", "ops/s")
        );
        match &s.data {
            Data::TimeSeries { points } => points,
            other => panic!("not a time series: {other:?}"),
        }
    }

    /// (count, [(percentile, value)]) of a ladder series.
    fn ladder(s: &Series) -> (Option<u64>, Vec<(f64, Option<f64>)>) {
        assert_eq!((s.metric.as_str(), s.unit.as_str()), ("latency", "s"));
        match &s.data {
            Data::Ladder { count, points } => (
                *count,
                points.iter().map(|p| (p.percentile, p.value)).collect(),
            ),
            other => panic!("not a ladder: {other:?}"),
        }
    }

    #[test]
    fn rate_samples() {
        let Some(dir) = shared("samples/zookeeper") else {
            return;
        };
        for (file, n, first, last) in [
            (
                "zk-benchmark-READ.dat.txt",
                20,
                (2.602615462, 342.7321527224524),
                (6.40541679, 12606.523749424587),
            ),
            (
                "zk-benchmark-SETSINGLE.dat.txt",
                23,
                (2.00339402, 51.41275204565101),
                (6.408347442, 3175.955330950104),
            ),
        ] {
            let path = dir.join(file);
            assert_eq!(detect_file(&path), Some("zk-benchmark"), "{file}");
            let blocks = parse_ok(&FORMAT, &std::fs::read(&path).unwrap());
            let points = time_points(only_series(&blocks));
            assert_eq!(points.len(), n, "{file}");
            assert_eq!((points[0].t, points[0].value), (first.0, Some(first.1)));
            let l = points[n - 1];
            assert_eq!((l.t, l.value), (last.0, Some(last.1)));
            assert_eq!((blocks[0].first_line, blocks[0].last_line), (1, n as u64));
        }
    }

    #[test]
    fn timings_sample_ladder() {
        let Some(dir) = shared("samples/zookeeper") else {
            return;
        };
        let path = dir.join("zk-benchmark-0-READ_timings.dat.head40.txt");
        assert_eq!(detect_file(&path), Some("zk-benchmark"));
        let blocks = parse_ok(&FORMAT, &std::fs::read(&path).unwrap());
        let (count, points) = ladder(only_series(&blocks));
        assert_eq!(count, Some(40));
        // Nearest rank over the 40 latencies (ns): ranks 20, 30, 36, 38, then 40.
        assert_eq!(
            points,
            vec![
                (50.0, Some(0.007483066)),
                (75.0, Some(0.008314047)),
                (90.0, Some(0.009275263)),
                (95.0, Some(0.009461623)),
                (99.0, Some(0.00958276)),
                (99.9, Some(0.00958276)),
                (99.99, Some(0.00958276)),
                (100.0, Some(0.00958276)),
            ]
        );
    }

    /// The shared 40-line sample without its last 7 bytes: the last line reads
    /// `3.497134631 3.506`, whose complete time is before the line above's. The 39 whole
    /// requests are stored as timings, with a warning at line 40.
    #[test]
    fn timings_cut_inside_the_last_number() {
        let Some(dir) = shared("samples/zookeeper") else {
            return;
        };
        let bytes = std::fs::read(dir.join("zk-benchmark-0-READ_timings.dat.head40.txt")).unwrap();
        let cut = &bytes[..bytes.len() - 7];
        assert!(cut.ends_with(b"3.497134631 3.506"));
        let blocks = parse_ok(&FORMAT, cut);
        let (count, points) = ladder(only_series(&blocks));
        assert_eq!(count, Some(39));
        // Rank 20 of 39 is the same latency as rank 20 of 40.
        assert_eq!(points[0], (50.0, Some(0.007483066)));
        assert_eq!(blocks[0].last_line, 39);
        let w = crate::testutil::warnings(&FORMAT, cut);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].0, 40);
    }

    /// epyeh-MIXREADWRITE-0.5.dat.txt cut inside its last rate, `18119.44644836319`
    /// (line 16): `18119` has no decimal point, so the line is left out with a warning and
    /// the 15 samples before it are kept, the last `5.602601827 23190.726644954884`. Cut
    /// after `18119.4` the rate has Java's form and is read as printed so far.
    #[test]
    fn a_rate_cut_without_its_decimal_point_is_left_out() {
        let text =
            String::from_utf8(fixture("real/zk-benchmark/epyeh-MIXREADWRITE-0.5.dat.txt")).unwrap();
        let last = text.find("5.802773505 18119.").unwrap();
        let at = last + "5.802773505 18119".len();
        let cut = &text.as_bytes()[..at];
        let blocks = parse_ok(&FORMAT, cut);
        let points = time_points(only_series(&blocks));
        assert_eq!(points.len(), 15);
        let l = points[14];
        assert_eq!((l.t, l.value), (5.602601827, Some(23190.726644954884)));
        assert!(points.iter().all(|p| p.value != Some(18119.0)));
        assert_eq!(blocks[0].last_line, 15);
        let w = crate::testutil::warnings(&FORMAT, cut);
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].0, 16);
        assert!(w[0].1.contains("`5.802773505 18119`"), "{}", w[0].1);
        // Only the second number: the line is left out too.
        let cut = &text.as_bytes()[..last + "5.802773505".len()];
        assert_eq!(time_points(only_series(&parse_ok(&FORMAT, cut))).len(), 15);
        assert_eq!(crate::testutil::warnings(&FORMAT, cut).len(), 1);
        let cut = &text.as_bytes()[..at + ".4".len()];
        let blocks = parse_ok(&FORMAT, cut);
        assert_eq!(time_points(only_series(&blocks))[15].value, Some(18119.4));
    }

    /// epyeh-2-SETSINGLE_timings.dat.txt cut after `4.215276974 6` of its last request
    /// (line 8458, complete `6.463602753`): left out with a warning, 8457 requests kept.
    #[test]
    fn a_timing_cut_without_its_decimal_point_is_left_out() {
        let text = String::from_utf8(fixture(
            "real/zk-benchmark/epyeh-2-SETSINGLE_timings.dat.txt",
        ))
        .unwrap();
        let at = text.find("4.215276974 6.463602753").unwrap() + "4.215276974 6".len();
        let cut = &text.as_bytes()[..at];
        let blocks = parse_ok(&FORMAT, cut);
        let (count, _) = ladder(only_series(&blocks));
        assert_eq!(count, Some(8457));
        assert_eq!(blocks[0].last_line, 8457);
        let w = crate::testutil::warnings(&FORMAT, cut);
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].0, 8458);
    }

    #[test]
    fn a_whole_file_without_its_final_newline_reads_the_same() {
        let n = crate::testutil::final_newline_changes_nothing(
            &FORMAT,
            "zk-benchmark",
            "zookeeper",
            "zk-benchmark-",
        );
        assert!(n >= 4, "{n}");
    }

    #[test]
    fn java_number_forms() {
        for whole in [
            "342.0",
            "342.7321527224524",
            "5.12E-4",
            "1.0E7",
            "-2.5",
            "NaN",
        ] {
            assert!(java_form(whole), "{whole}");
        }
        for cut in ["342", "342.", "1.0E", "1.0E-", "-", "", "Infin", "3.4.5"] {
            assert!(!java_form(cut), "{cut}");
        }
    }

    #[test]
    fn rate_fixture() {
        let blocks = parse_ok(&FORMAT, &fixture("zk-benchmark/READ.dat"));
        let points = time_points(only_series(&blocks));
        let got: Vec<(f64, Option<f64>)> = points.iter().map(|p| (p.t, p.value)).collect();
        assert_eq!(
            got,
            vec![
                (0.200118, Some(1250.5)),
                (0.40021, Some(4800.0)),
                (0.600345, Some(5012.75)),
                (0.800401, Some(4998.25)),
                (1.000512, Some(1.0e7)),
            ]
        );
    }

    /// Latencies (ms) sorted: 0.75 0.9 1.0 1.1 1.25 2.0 2.5 3.0 5.512 12.0; nearest rank
    /// of 10: p50 → 5th, p75 → 8th, p90 → 9th, p95 and up → 10th.
    #[test]
    fn timings_fixture_by_hand() {
        let blocks = parse_ok(&FORMAT, &fixture("zk-benchmark/0-READ_timings.dat"));
        let (count, points) = ladder(only_series(&blocks));
        assert_eq!(count, Some(10));
        let values: Vec<Option<f64>> = points.iter().map(|p| p.1).collect();
        assert_eq!(
            values,
            [0.00125, 0.003, 0.005512, 0.012, 0.012, 0.012, 0.012, 0.012].map(Some)
        );
        let percentiles: Vec<f64> = points.iter().map(|p| p.0).collect();
        assert_eq!(percentiles, PERCENTILES);
    }

    #[test]
    fn nearest_rank_separates_the_high_percentiles() {
        // 10,000 requests with latencies 1..=10000 µs: p99.99 is the 9,999th.
        let text: String = (1..=10_000u32)
            .map(|i| format!("{}.0 {}\n", 100 + i, 100.0 + i as f64 + i as f64 * 1e-6))
            .collect();
        let blocks = parse_ok(&FORMAT, text.as_bytes());
        let (count, points) = ladder(only_series(&blocks));
        assert_eq!(count, Some(10_000));
        let us: Vec<f64> = points
            .iter()
            .map(|p| (p.1.unwrap() * 1e6).round())
            .collect();
        assert_eq!(
            us,
            [
                5000.0, 7500.0, 9000.0, 9500.0, 9900.0, 9990.0, 9999.0, 10000.0
            ]
        );
    }

    #[test]
    fn bad_number_is_an_error_at_its_line() {
        let e = parse_err(&FORMAT, &fixture("malformed/zk-benchmark-bad-number.dat"));
        assert_eq!(e.line, 2);
        assert!(e.message.contains("`48O0.0`"), "{}", e.message);
        let e = parse_err(&FORMAT, b"0.2 1.0\n0.4 2.0 3.0\n");
        assert_eq!(e.line, 2);
        assert!(e.message.contains("3 fields"), "{}", e.message);
    }

    #[test]
    fn fixtures_snapshot() {
        insta::glob!("../../../fixtures/zk-benchmark", "*.*", |path| {
            let blocks = parse_ok(&FORMAT, &std::fs::read(path).unwrap());
            insta::assert_json_snapshot!(blocks);
        });
    }

    #[test]
    fn prose_and_empty_input_yield_nothing() {
        assert!(parse_ok(&FORMAT, b"").is_empty());
        assert!(parse_ok(&FORMAT, b"no numbers here\n\n").is_empty());
    }

    #[test]
    fn sniffer_needs_the_name_and_the_shape() {
        let text = "2.6 342.7\n2.8 5249.4\n3.0 7495.4\n";
        let head = |file_name| Head {
            file_name,
            text,
            complete: true,
        };
        assert_eq!(sniff(&head("READ.dat")), 90);
        assert_eq!(sniff(&head("0-READ_timings.dat")), 90);
        assert_eq!(sniff(&head("zk-benchmark-READ.dat.txt")), 90);
        assert_eq!(sniff(&head("results.dat")), 40);
        assert_eq!(sniff(&head("READ.txt")), 0);
        assert_eq!(sniff(&head("")), 0);
        let prose = Head {
            file_name: "notes.dat",
            text: "READ results\n2.6 342.7\n",
            complete: true,
        };
        assert_eq!(sniff(&prose), 0);
    }
}
