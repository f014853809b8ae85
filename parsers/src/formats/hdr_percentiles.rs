//! HdrHistogram percentile-distribution text (format `hdr-percentiles`): the output of the
//! Java `AbstractHistogram.outputPercentileDistribution` and of the C
//! `hdr_percentiles_print` (FORMATS.md §5.1, §5.2).
//!
//! ```text
//!        Value     Percentile TotalCount 1/(1-Percentile)
//!
//!    43679.743 0.000000000000          1           1.00
//!    …
//!    81723.391 1.000000000000      10000                (C: a 4th column `inf`)
//! #[Mean    =    44980.067, StdDeviation   =     1258.432]
//! #[Max     =    81723.391, Total count    =        10000]
//! #[Buckets =           32, SubBuckets     =         2048]
//! ```
//!
//! Each table is one block with one run holding the series `latency`: a ladder with one
//! point per printed row (percentile = the Percentile column × 100, so the last row is
//! 100), count = the footer's total count, and the footer numbers as stats (`mean`,
//! `stddev`, `max`, `total_count`, `buckets`, `sub_buckets`). The printers state no unit
//! (the Java one divides by a caller-chosen ratio without naming it), so the unit is empty.
//! The CSV variant (`"Value","Percentile",…` header, no footer) is read too.
//! A table cut off before its footer is an error naming the line.
//! Fixtures: `fixtures/hdr-percentiles/java-3digits.txt`, `fixtures/hdr-percentiles/c-wrk2.txt`.
//!
//! The table reader ([`TableParser`]) is shared with the wrk parser, which embeds the C
//! printer's output in wrk2's `Detailed Percentile spectrum`.
//!
//! Identity: no bench, no config (a percentile dump names neither); no timestamp.

use crate::error::ParseError;
use crate::format::{Format, Head, ParseIter};
use crate::hdr_table::{CSV_HEADER, Feed, MEAN, TEXT_HEADER, Table, TableParser, header_layout};
use crate::lines::LineReader;
use crate::model::{Block, Parsed, Run};
use crate::text::{LabelTracker, clean_line};
use regex::Regex;
use std::io::BufRead;
use std::sync::LazyLock;

/// The format entry for the registry.
pub const FORMAT: Format = Format::new("hdr-percentiles", "1", sniff, parse).claims_at_most(95);

/// wrk's own lines: its `Running … test @` first line, and what an excerpt cut above it
/// still shows (the thread stats header, wrk2's `Latency Distribution (HdrHistogram …)`
/// and `Detailed Percentile spectrum:` lead lines). wrk2 embeds these tables, so such a
/// file belongs to the `wrk` format, which reads the rest of it too.
static WRK_OWN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^\s*(?:Running \S+ test @ |Thread Stats\s+Avg\s+Stdev\s|Latency Distribution \(HdrHistogram|Detailed Percentile spectrum:)",
    )
    .unwrap()
});

/// Confidence that `head` holds percentile tables: the header line is required; the
/// `#[Mean` footer (or the CSV header, which has none) makes it near certain. Files that
/// are wrk outputs are left to the `wrk` format. Lines are matched as the parsers read
/// them ([`clean_line`]), so line ends and colours do not change the decision. Without
/// colour codes a line is matched as written (less a final `\r`), so a pattern whose
/// literal text the whole head lacks is not tried on its lines: a head without
/// `TotalCount` has no header of either kind and is not read line by line.
pub fn sniff(head: &Head) -> u8 {
    let text = head.text;
    let plain = !text.contains('\x1b');
    let may = |literals: &[&str]| !plain || literals.iter().any(|l| text.contains(l));
    if !may(&["TotalCount"]) {
        return 0;
    }
    let wrk = may(&[
        "Running ",
        "Thread Stats",
        "Latency Distribution (HdrHistogram",
        "Detailed Percentile spectrum:",
    ]);
    let mean = may(&["#[Mean"]);
    let mut header = false;
    let mut csv = false;
    let mut footer = false;
    for line in text.lines() {
        let line = clean_line(line);
        let line = line.as_ref();
        if wrk && WRK_OWN.is_match(line) {
            return 0;
        }
        header |= TEXT_HEADER.is_match(line);
        csv |= CSV_HEADER.is_match(line);
        footer |= mean && MEAN.is_match(line);
    }
    match (header, csv, footer) {
        (true, _, true) => 95,
        (_, true, _) => 90,
        (true, _, false) => 60,
        _ => 0,
    }
}

/// Streams the tables of an input as blocks.
struct Parser<R> {
    reader: LineReader<R>,
    labels: LabelTracker,
    /// The open table, its label and first line.
    open: Option<(TableParser, Option<String>, u64)>,
    /// A block held back until the warning about it is handed out.
    held: Option<Parsed>,
    done: bool,
}

fn block(table: Table, label: Option<String>, first: u64, last: u64) -> Parsed {
    let run = Run {
        index: 1,
        first_line: first,
        last_line: last,
        series: vec![table.into_series("latency", "Value", "")],
        ..Run::default()
    };
    Parsed::Block(Block {
        label,
        first_line: first,
        last_line: last,
        runs: vec![run],
        printed: Vec::new(),
    })
}

impl<R: BufRead> Iterator for Parser<R> {
    type Item = Result<Parsed, ParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(b) = self.held.take() {
            return Some(Ok(b));
        }
        if self.done {
            return None;
        }
        loop {
            let last = self.reader.line_number();
            let (n, line) = match self.reader.next_numbered() {
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
                Ok(None) => {
                    self.done = true;
                    let (t, label, first) = self.open.take()?;
                    let warning = t.cut_warning();
                    let b = match t.finish_at_eof(last) {
                        Ok(t) => block(t, label, first, last),
                        Err(e) => return Some(Err(e)),
                    };
                    return Some(Ok(match warning {
                        Some(message) => {
                            self.held = Some(b);
                            Parsed::Warning {
                                line: last,
                                message,
                            }
                        }
                        None => b,
                    }));
                }
                Ok(Some(l)) => l,
            };
            let mut finished = None;
            if let Some((t, _, _)) = &mut self.open {
                match t.feed(line, n) {
                    Err(e) => {
                        self.done = true;
                        return Some(Err(e));
                    }
                    Ok(Feed::More) => continue,
                    Ok(Feed::Done) => {
                        let (t, label, first) = self.open.take()?;
                        return Some(Ok(block(t.into_table(), label, first, n)));
                    }
                    Ok(Feed::EndedBefore) => {
                        let (t, label, first) = self.open.take()?;
                        let warning = t.cut_warning();
                        let b = block(t.into_table(), label, first, n - 1);
                        finished = Some(match warning {
                            Some(message) => {
                                self.held = Some(b);
                                Parsed::Warning {
                                    line: n - 1,
                                    message,
                                }
                            }
                            None => b,
                        });
                    }
                }
            }
            if let Some(layout) = header_layout(line) {
                self.open = Some((TableParser::new(layout, 0), self.labels.take_for_block(), n));
            } else {
                self.labels.observe(line);
            }
            if let Some(b) = finished {
                return Some(Ok(b));
            }
        }
    }
}

/// Parses every percentile table of the input, one block each.
pub fn parse<'a>(r: Box<dyn BufRead + 'a>) -> ParseIter<'a> {
    Box::new(Parser {
        reader: LineReader::new(r),
        labels: LabelTracker::new(),
        open: None,
        held: None,
        done: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Data, LadderPoint, Series};
    use crate::testutil::{parse_ok, shared};

    /// The literal pre-check reads colour codes as the lines are matched: without them.
    #[test]
    fn a_header_split_by_colour_codes_is_still_a_header() {
        let head = |text| Head {
            file_name: "p.txt",
            text,
            complete: true,
        };
        let plain = "       Value     Percentile TotalCount 1/(1-Percentile)\n";
        assert_eq!(sniff(&head(plain)), 60);
        let coloured = "       Value     Percentile Total\x1b[1mCount\x1b[0m 1/(1-Percentile)\n\
                        #[Mean    = 1.0, StdDeviation   = 0.5]\r\n";
        assert_eq!(sniff(&head(coloured)), 95);
        assert_eq!(sniff(&head("Value Percentile Count\n")), 0);
    }

    fn fixture(name: &str) -> Vec<u8> {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/hdr-percentiles")
            .join(name);
        std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    fn errors(bytes: &[u8]) -> ParseError {
        parse(Box::new(bytes))
            .find_map(Result::err)
            .expect("a parse error")
    }

    fn ladder(b: &Block) -> (&[LadderPoint], Option<u64>, &Series) {
        let s = &b.runs[0].series[0];
        match &s.data {
            Data::Ladder { points, count } => (points, *count, s),
            other => panic!("not a ladder: {other:?}"),
        }
    }

    #[test]
    fn java_sample() {
        let Some(dir) = shared("samples/hdrhistogram") else {
            return;
        };
        let bytes =
            std::fs::read(dir.join("java-outputPercentileDistribution-cassandra-lwt.txt")).unwrap();
        let blocks = parse_ok(&FORMAT, &bytes);
        assert_eq!(blocks.len(), 1);
        let b = &blocks[0];
        assert_eq!(
            (b.first_line, b.last_line, b.label.as_deref()),
            (1, 74, None)
        );
        let (points, count, s) = ladder(b);
        assert_eq!(s.metric, "latency");
        assert_eq!(s.unit, "");
        assert_eq!(points.len(), 69);
        assert_eq!(count, Some(10000));
        assert_eq!(points[0].percentile, 0.0);
        assert_eq!(points[0].value, Some(43679.743));
        assert_eq!(points[5].percentile, 50.0);
        assert_eq!(points[5].value, Some(44859.391));
        // 0.990625000000 → 99.0625
        assert_eq!(points[34].percentile, 99.0625);
        assert_eq!(points[34].value, Some(48201.727));
        let last = points.last().unwrap();
        assert_eq!((last.percentile, last.value), (100.0, Some(81723.391)));
        assert_eq!(s.stats["mean"], 44980.067);
        assert_eq!(s.stats["stddev"], 1258.432);
        assert_eq!(s.stats["max"], 81723.391);
        assert_eq!(s.stats["total_count"], 10000.0);
        assert_eq!(s.stats["buckets"], 32.0);
        assert_eq!(s.stats["sub_buckets"], 2048.0);
    }

    #[test]
    fn c_sample() {
        let Some(dir) = shared("samples/hdrhistogram") else {
            return;
        };
        let bytes = std::fs::read(dir.join("c-hdr_percentiles_print-12Krps.txt")).unwrap();
        let blocks = parse_ok(&FORMAT, &bytes);
        assert_eq!(blocks.len(), 1);
        let (points, count, s) = ladder(&blocks[0]);
        assert_eq!(points.len(), 106);
        assert_eq!(count, Some(3477000));
        // 0.990625 → 99.0625: the p99-ish row of the C printer.
        assert_eq!(points[34].percentile, 99.0625);
        assert_eq!(points[34].value, Some(9.343));
        let last = points.last().unwrap();
        assert_eq!((last.percentile, last.value), (100.0, Some(64.767)));
        assert_eq!(s.stats["mean"], 4.881);
        assert_eq!(s.stats["max"], 64.736);
        assert_eq!(s.stats["buckets"], 27.0);
    }

    #[test]
    fn fixtures_with_labels_and_csv() {
        let blocks = parse_ok(&FORMAT, &fixture("java-3digits.txt"));
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].label.as_deref(), Some("Before the change"));
        assert_eq!(blocks[1].label.as_deref(), Some("After the change"));
        let (points, count, s) = ladder(&blocks[1]);
        assert_eq!(count, Some(1000));
        assert_eq!(points.len(), 8);
        assert_eq!(points[7].value, Some(3.071));
        assert!(!s.stats.contains_key("buckets"));

        let blocks = parse_ok(&FORMAT, &fixture("c-wrk2.txt"));
        assert_eq!(blocks.len(), 1);
        let (points, count, _) = ladder(&blocks[0]);
        assert_eq!((points.len(), count), (10, Some(2000)));
        assert_eq!(points[9].value, Some(25.087));

        let blocks = parse_ok(&FORMAT, &fixture("java-csv.txt"));
        assert_eq!(blocks.len(), 1);
        let (points, count, s) = ladder(&blocks[0]);
        assert_eq!((points.len(), count), (6, Some(400)));
        assert_eq!(points[5].percentile, 100.0);
        assert_eq!(points[5].value, Some(18.431));
        assert!(s.stats.is_empty());
    }

    #[test]
    fn malformed_tables_name_the_line() {
        // Truncation is data: the rows before the cut are kept, with a warning.
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/hdr-percentiles/cut-by-terminal.txt");
        let items: Vec<_> = parse(Box::new(&std::fs::read(p).unwrap()[..]))
            .map(|r| r.expect("no error"))
            .collect();
        assert_eq!(items.len(), 2);
        match &items[0] {
            Parsed::Warning { line, message } => {
                assert_eq!(*line, 8);
                assert!(message.contains("ends at 99.9 (no #[Mean"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        let Parsed::Block(b) = &items[1] else {
            panic!("{:?}", items[1])
        };
        assert_eq!(b.runs[0].series[0].ladder().unwrap().len(), 6);
        let e = errors(
            b"       Value     Percentile TotalCount 1/(1-Percentile)\n\n   1.0 0.5 3 2.00\n   2.0 0.9 x\n",
        );
        assert_eq!(e.line, 4);
        assert!(e.message.contains("total count `x`"), "{e}");

        let e = errors(
            b"       Value     Percentile TotalCount 1/(1-Percentile)\n\n   1.0 0.5 x 2.00\n",
        );
        assert_eq!(e.line, 3);
        assert!(e.message.contains("total count `x`"), "{e}");

        let e = errors(b"       Value     Percentile TotalCount 1/(1-Percentile)\n\nthe end\n");
        assert_eq!(e.line, 3);
        assert!(e.message.contains("cut off"), "{e}");
    }

    #[test]
    fn a_header_may_open_a_multi_line_string_on_a_code_line() {
        let text = "  const expected = `       Value     Percentile TotalCount 1/(1-Percentile)\n\n      25.000 0.000000000000          1           1.00\n      75.000 1.000000000000          2\n#[Mean    =       50.000, StdDeviation   =       25.000]\n#[Max     =       75.000, Total count    =            2]\n`;\n";
        let py = "expected = \"\"\"\"Value\",\"Percentile\",\"TotalCount\",\"1/(1-Percentile)\"\n1.5,0.5,1,2.00\n3.0,1.0,2,Infinity\n\"\"\"\n";
        let head = |text| Head {
            file_name: "t.txt",
            text,
            complete: true,
        };
        assert_eq!(sniff(&head(text)), 95);
        assert_eq!(sniff(&head(py)), 90);
        let blocks = parse_ok(&FORMAT, text.as_bytes());
        let (points, count, s) = ladder(&blocks[0]);
        assert_eq!(
            (points.len(), count, points[1].value),
            (2, Some(2), Some(75.0))
        );
        assert_eq!(s.stats["stddev"], 25.0);
        let blocks = parse_ok(&FORMAT, py.as_bytes());
        let (points, count, _) = ladder(&blocks[0]);
        assert_eq!(
            (points.len(), count, points[0].value),
            (2, Some(2), Some(1.5))
        );
        // Text before the header that opens no string is still not a header.
        assert_eq!(
            sniff(&head("see: Value Percentile TotalCount 1/(1-Percentile)\n")),
            0
        );
    }

    #[test]
    fn a_wrk2_output_is_left_to_wrk_whatever_its_cut_and_line_ends() {
        let full = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../fixtures/wrk/wrk2-u_latency.txt"),
        )
        .unwrap();
        let without_running: String = full
            .lines()
            .filter(|l| !l.starts_with("Running ") && !l.starts_with("wrk2 "))
            .map(|l| format!("{l}\n"))
            .collect();
        // From the spectrum's lead line on: no thread stats, no totals.
        let spectrum_only = &full[full.find("  Detailed Percentile spectrum:").unwrap()..];
        for text in [full.as_str(), &without_running, spectrum_only] {
            for ends in ["\n", "\r\n", "\r\r\n"] {
                let t = text.replace('\n', ends);
                let head = Head {
                    file_name: "out.txt",
                    text: &t,
                    complete: true,
                };
                assert_eq!(sniff(&head), 0, "{ends:?} {}", &text[..40]);
                let got = crate::detect(&head).map(|f| f.name);
                assert_eq!(got, Some("wrk"), "{ends:?} {}", &text[..40]);
            }
        }
    }

    #[test]
    fn fixture_snapshots() {
        insta::glob!("../../../fixtures/hdr-percentiles", "*.txt", |path| {
            let blocks = parse_ok(&FORMAT, &std::fs::read(path).unwrap());
            insta::assert_json_snapshot!(blocks);
        });
    }

    #[test]
    fn junk_and_empty_inputs_yield_nothing() {
        assert!(parse_ok(&FORMAT, b"").is_empty());
        assert!(parse_ok(&FORMAT, b"hello\n\xff\xfe\x00 world\n").is_empty());
    }

    /// The HdrHistogram-family format a file must be detected as, from where it lives;
    /// `None` for every other file, which none of these sniffers may claim.
    fn expected(path: &std::path::Path) -> Option<&'static str> {
        let name = path.file_name()?.to_str()?;
        let dir = path.parent()?.file_name()?.to_str()?;
        match (dir, name) {
            ("hdrhistogram", n) if n.starts_with("hlog") => Some("hlog"),
            ("hdrhistogram" | "hdr-percentiles", _) => Some("hdr-percentiles"),
            ("hlog", _) => Some("hlog"),
            ("wrk", _) => Some("wrk"),
            ("malformed", n) if n.starts_with("hdr-") => Some("hdr-percentiles"),
            ("malformed", n) if n.starts_with("hlog-") => Some("hlog"),
            ("malformed", n) if n.starts_with("wrk-") => Some("wrk"),
            _ => None,
        }
    }

    #[test]
    fn hdr_hlog_and_wrk_sniffers_claim_exactly_their_files() {
        let mut paths = crate::testutil::own_fixtures();
        paths.extend(crate::testutil::shared_files().unwrap_or_default());
        let ours = [
            &FORMAT,
            &crate::formats::hlog::FORMAT,
            &crate::formats::wrk::FORMAT,
        ];
        let mut checked = 0;
        for path in paths.iter().filter(|p| !p.ends_with("README.md")) {
            let file = crate::testutil::FileHead::read(path);
            let head = file.head();
            match expected(path) {
                Some(name) => {
                    let got = crate::detect(&head).map(|f| f.name);
                    assert_eq!(got, Some(name), "{}", path.display());
                    checked += 1;
                }
                None => {
                    for f in ours {
                        assert_eq!((f.sniff)(&head), 0, "{} claims {}", f.name, path.display());
                    }
                }
            }
        }
        assert!(checked >= 10, "only {checked} files of these formats found");
    }

    #[test]
    fn junk_never_panics() {
        // xorshift: deterministic junk without a dependency.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let tokens = [
            "Running",
            "10s",
            "test",
            "@",
            "http://x",
            "threads",
            "and",
            "connections",
            "Latency",
            "Req/Sec",
            "Distribution",
            "50%",
            "1.2ms",
            "9.8k",
            "1.1GB",
            "requests",
            "in",
            "read",
            "Requests/sec:",
            "Transfer/sec:",
            "Detailed Percentile spectrum:",
            "       Value   Percentile   TotalCount 1/(1-Percentile)",
            "#[Mean",
            "=",
            ",",
            "StdDeviation",
            "]",
            "#[Max",
            "Total count",
            "#[Buckets",
            "1.000000",
            "inf",
            "0.5",
            "12",
            "Tag=A,",
            "0.1,1.0,2.0,",
            "HISTFAAAAEV42pNpmSzMwMCgyAAB",
            "HISTiQ",
            "#[Histogram log format version 1.2]",
            "\n",
            "\n",
            "\n",
            "   ",
            "\u{fffd}",
        ];
        let mut text = String::new();
        for _ in 0..60_000 {
            text.push_str(tokens[(next() % tokens.len() as u64) as usize]);
            text.push(if next() % 3 == 0 { '\n' } else { ' ' });
        }
        let bytes: Vec<u8> = (0..1_000_000).map(|_| next() as u8).collect();
        for f in [
            &FORMAT,
            &crate::formats::hlog::FORMAT,
            &crate::formats::wrk::FORMAT,
        ] {
            // Parsers stop at the first error: small chunks reach more states.
            let chunks = text.as_bytes().chunks(700).chain([&bytes[..]]);
            for input in chunks {
                // Errors are fine; panics are not.
                for item in (f.parse)(Box::new(input)) {
                    let _ = item;
                }
            }
        }
    }
}
