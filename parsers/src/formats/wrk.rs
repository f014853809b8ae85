//! wrk and wrk2 console output (format `wrk`; FORMATS.md §5.4, §5.5).
//!
//! ```text
//! Running 10s test @ http://127.0.0.1:8080
//!   8 threads and 200 connections
//!   Thread Stats   Avg      Stdev     Max   +/- Stdev
//!     Latency     2.52ms  716.89us  16.20ms   76.31%
//!     Req/Sec     9.82k     0.98k   18.08k    80.35%
//!   Latency Distribution
//!      50%    2.48ms
//!   …
//!   785546 requests in 10.10s, 7.85GB read
//!   Socket errors: connect 0, read 1310, write 0, timeout 0
//! Requests/sec:  77772.27
//! Transfer/sec:    795.91MB
//! ```
//!
//! wrk2 adds `Thread calibration` lines, an eight-row `Latency Distribution (HdrHistogram -
//! Recorded Latency)` followed by the full `Detailed Percentile spectrum` (the C
//! HdrHistogram printer, values in ms), and with `--u_latency` the same again for the
//! uncorrected latency. Fixtures: `fixtures/wrk/wrk-latency.txt`, `fixtures/wrk/wrk2-u_latency.txt`.
//!
//! Each output (from `Running …` to `Transfer/sec:`) is one block with one run:
//! - `latency` (ladder, unit `us`): wrk2's spectrum when printed (count and footer stats
//!   `mean`, `stddev`, `max`, `total_count`, `buckets`, `sub_buckets`; the short
//!   distribution's values become `line_value` where the percentiles coincide), else the
//!   `Latency Distribution` rows. wrk prints `us`, `ms` and `s` side by side; every time
//!   is converted (exactly, by moving the decimal point) to microseconds.
//! - `latency_uncorrected`: the same from wrk2's uncorrected block, when present.
//! - Thread stats as values: `latency_avg`, `latency_stdev`, `latency_max` (`us`),
//!   `latency_within_stdev` (`%`, the `+/- Stdev` column), `req_per_thread_avg`,
//!   `req_per_thread_stdev`, `req_per_thread_max` (`req/s`), `req_per_thread_within_stdev` (`%`).
//!   A `-nan` cell is absent, with a warning, and so is what it makes meaningless: a row
//!   whose `Avg` is `-nan` (wrk2 took no sample; `Req/Sec -nan -nan 0.00 0.00%`) is
//!   left out whole, and a `-nan` `Stdev` takes its `+/- Stdev` with it.
//! - `requests`, `bytes_read` (`bytes`), `socket_errors.connect|read|write|timeout`,
//!   `non2xx`, `requests_per_sec` (`req/s`), `transfer_per_sec` (`bytes/s`; wrk's `MB` is
//!   1024², its `k` in request rates is 1000).
//! - Params: `duration` and `elapsed` (seconds), `threads`, `connections`, `url`, and
//!   `target_throughput` (requests/s) when an echoed `wrk … -R <rate>` command line
//!   precedes the output (wrk2 does not print its rate).
//!
//! A line of wrk's own shape whose numbers do not parse, or an output cut off before its
//! `Transfer/sec:` line, is an error naming the line.
//!
//! Identity: no bench. `config` is `target_throughput` (wrk2 `-R`), `connections` and
//! `threads`; `duration`, `elapsed` and `url` are plain params. One block is one wrk run.
//! No timestamp is printed.

use crate::error::ParseError;
use crate::format::{Format, Head, ParseIter};
use crate::hdr_table::{Feed, Table, TableParser, header_layout};
use crate::lines::LineReader;
use crate::model::{Block, Data, LadderPoint, Param, Parsed, Run, Series};
use crate::text::LabelTracker;
use crate::text::re;
use crate::units::{bytes, duration_s, metric_count, scaled_decimal, time_us};
use regex::Regex;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::sync::LazyLock;

/// The format entry for the registry.
pub const FORMAT: Format = Format::new("wrk", "1", sniff, parse).claims_at_most(95);

static RUNNING: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*Running (\S+) test @ (\S+)\s*$"));
static THREADS: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*(\d+) threads and (\d+) connections\s*$"));
static STATS_ROW: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*(Latency|Req/Sec)\s+(\S.*)$"));
static DISTRIBUTION: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*Latency Distribution\b(.*)$"));
static PERCENTILE_ROW: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*(\d+(?:\.\d+)?)%\s+(.*)$"));
static REQUESTS: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*(\S+) requests in (\S+), (\S+) read\s*$"));
static SOCKET_ERRORS: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^\s*Socket errors: connect (\S+), read (\S+), write (\S+), timeout (\S+)\s*$")
});
static NON_2XX: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*Non-2xx or 3xx responses: (\S+)\s*$"));
static REQ_PER_SEC: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*Requests/sec:\s*(\S*)\s*$"));
static TRANSFER: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*Transfer/sec:\s*(\S*)\s*$"));
/// The thread stats header, where an excerpt trimmed of its `Running` line starts.
static THREAD_STATS: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*Thread Stats\s+Avg\s+Stdev\s+Max\s+\+/- Stdev\s*$"));
/// wrk2's lead lines before its percentile tables.
static WRK2_LEAD: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^\s*(?:Latency Distribution \(HdrHistogram|Detailed Percentile spectrum:)")
});
/// An echoed command line with wrk2's rate option: `wrk2 -t2 -R2000 …`, `wrk --rate=10k …`.
static COMMAND_RATE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?:^|[\s/$>])wrk2?(?:\s+\S+)*?\s+(?:-R|--rate)(?:=|\s*)(\d+(?:\.\d+)?[kMG]?)(?:\s|$)")
});

/// Confidence that `head` holds wrk output: the `Running … test @ …` line, and the
/// threads-and-connections line that follows it for near certainty.
pub fn sniff(head: &Head) -> u8 {
    let mut running = false;
    let mut threads = false;
    let mut stats = false;
    let mut totals = false;
    let mut wrk2 = false;
    for line in head.text.lines() {
        running |= RUNNING.is_match(line);
        threads |= THREADS.is_match(line);
        stats |= THREAD_STATS.is_match(line);
        totals |= REQ_PER_SEC.is_match(line);
        wrk2 |= WRK2_LEAD.is_match(line);
    }
    match (running, threads) {
        (true, true) => 95,
        // An excerpt trimmed of its `Running` line.
        _ if stats && totals => 90,
        // Cut further: the thread stats or wrk2's distribution and spectrum lead lines
        // are wrk's alone (`hdr-percentiles` leaves such files to wrk).
        _ if stats || wrk2 => 85,
        (true, false) => 50,
        _ => 0,
    }
}

/// Recorded (0) or uncorrected (1) latency.
const RECORDED: usize = 0;
const UNCORRECTED: usize = 1;

/// One output being read.
#[derive(Debug, Default)]
struct Output {
    first_line: u64,
    label: Option<String>,
    params: BTreeMap<String, Param>,
    /// Thread stats rows: `[avg, stdev, max, within_stdev_pct]` (`None` when absent).
    latency_stats: Option<[Option<f64>; 4]>,
    req_stats: Option<[Option<f64>; 4]>,
    /// The short `Latency Distribution` rows, recorded and uncorrected.
    distribution: [Vec<LadderPoint>; 2],
    spectrum: [Option<Table>; 2],
    /// The printed distribution rows when a spectrum follows them.
    printed_distribution: [Option<Series>; 2],
    /// Which latency the current distribution section is about.
    section: Option<usize>,
    /// Saw `Detailed Percentile spectrum:`, waiting for the table header.
    awaiting_spectrum: bool,
    table: Option<TableParser>,
    /// Single-value series in the order printed.
    values: Vec<Series>,
    /// Warnings about the output, handed out before its block.
    warnings: Vec<Parsed>,
}

fn parse_err(n: u64, what: &str, text: &str) -> ParseError {
    ParseError::new(
        n,
        format!("{what}: cannot read `{}` as a number", text.trim()),
    )
}

fn whole(text: &str, what: &str, n: u64) -> Result<f64, ParseError> {
    text.parse::<u64>()
        .map(|v| v as f64)
        .map_err(|_| parse_err(n, what, text))
}

/// Whether a cell is C's printing of a non-finite number (`-nan`, `nan`, `inf`): wrk2
/// prints `-nan` for a thread that took no rate sample. Such a value is absent.
fn not_finite(cell: &str) -> bool {
    matches!(
        cell.trim_start_matches(['-', '+'])
            .to_ascii_lowercase()
            .as_str(),
        "nan" | "inf" | "nan%" | "inf%"
    )
}

/// Reads a thread stats row's four cells with `read` for the first three.
fn stats_cells(
    rest: &str,
    what: &str,
    n: u64,
    read: fn(&str) -> Option<f64>,
) -> Result<[Option<f64>; 4], ParseError> {
    let cells: Vec<&str> = rest.split_whitespace().collect();
    if cells.len() != 4 {
        return Err(ParseError::new(
            n,
            format!(
                "{what} row needs 4 columns (Avg Stdev Max +/- Stdev), found {}: `{}`",
                cells.len(),
                rest.trim()
            ),
        ));
    }
    let mut out = [None; 4];
    for (i, cell) in cells[..3].iter().enumerate() {
        if !not_finite(cell) {
            out[i] = Some(read(cell).ok_or_else(|| parse_err(n, what, cell))?);
        }
    }
    if !not_finite(cells[3]) {
        out[3] = Some(
            cells[3]
                .strip_suffix('%')
                .and_then(|p| scaled_decimal(p, 0))
                .ok_or_else(|| parse_err(n, what, cells[3]))?,
        );
    }
    Ok(out)
}

/// The values of a thread stats row that mean something, and why any others are left
/// out: without an average (no sample) the row's zeros are not measurements, and without
/// a standard deviation neither is the share of threads within it.
fn meaningful(row: [Option<f64>; 4], what: &str) -> ([Option<f64>; 4], Option<String>) {
    match row {
        [None, ..] => (
            [None; 4],
            Some(format!(
                "the `{what}` thread stats have no average (`-nan`): none of the row is kept"
            )),
        ),
        [avg, None, max, Some(_)] => (
            [avg, None, max, None],
            Some(format!(
                "the `{what}` thread stats have no standard deviation (`-nan`): its \
                 `+/- Stdev` is not kept either"
            )),
        ),
        [_, _, None, _] | [_, None, _, _] | [_, _, _, None] => (
            row,
            Some(format!(
                "the `{what}` thread stats have a `-nan` cell: it is not kept"
            )),
        ),
        _ => (row, None),
    }
}

impl Output {
    /// Keeps a thread stats row's meaningful values, with a warning for any left out.
    fn stats_row(&mut self, row: [Option<f64>; 4], what: &str, n: u64) -> [Option<f64>; 4] {
        let (row, warning) = meaningful(row, what);
        if let Some(message) = warning {
            self.warnings.push(Parsed::Warning { line: n, message });
        }
        row
    }

    /// Takes one line inside the output; `Ok(true)` when it ended the output.
    fn feed(&mut self, line: &str, n: u64) -> Result<bool, ParseError> {
        if let Some(t) = &mut self.table {
            match t.feed(line, n)? {
                Feed::More => return Ok(false),
                Feed::Done => {
                    self.end_table();
                    return Ok(false);
                }
                Feed::EndedBefore => self.end_table(),
            }
        }
        if self.awaiting_spectrum {
            if let Some(layout) = header_layout(line) {
                self.awaiting_spectrum = false;
                self.table = Some(TableParser::new(layout, 3));
                return Ok(false);
            }
            if !line.trim().is_empty() {
                return Err(ParseError::new(
                    n,
                    "expected the `Value Percentile TotalCount 1/(1-Percentile)` header of the \
                     detailed percentile spectrum",
                ));
            }
            return Ok(false);
        }
        let t = line.trim();
        if t.starts_with("Detailed Percentile spectrum") {
            self.awaiting_spectrum = true;
            self.section.get_or_insert(RECORDED);
        } else if let Some(c) = THREADS.captures(line) {
            self.params
                .insert("threads".into(), whole(&c[1], "threads", n)?.into());
            self.params
                .insert("connections".into(), whole(&c[2], "connections", n)?.into());
        } else if let Some(c) = DISTRIBUTION.captures(line) {
            let uncorrected = c[1].contains("Uncorrected");
            self.section = Some(if uncorrected { UNCORRECTED } else { RECORDED });
        } else if let Some(c) = STATS_ROW.captures(line) {
            if &c[1] == "Latency" {
                let row = stats_cells(&c[2], "Latency", n, time_us)?;
                self.latency_stats = Some(self.stats_row(row, "Latency", n));
            } else {
                let row = stats_cells(&c[2], "Req/Sec", n, metric_count)?;
                self.req_stats = Some(self.stats_row(row, "Req/Sec", n));
            }
        } else if let (Some(section), Some(c)) = (self.section, PERCENTILE_ROW.captures(line)) {
            let percentile =
                scaled_decimal(&c[1], 0).ok_or_else(|| parse_err(n, "percentile", &c[1]))?;
            let value = time_us(c[2].trim())
                .ok_or_else(|| parse_err(n, "latency distribution value", &c[2]))?;
            self.distribution[section].push(LadderPoint {
                percentile,
                value: Some(value),
                line_value: None,
            });
        } else if let Some(c) = REQUESTS.captures(line) {
            let requests = whole(&c[1], "requests", n)?;
            let elapsed = duration_s(&c[2]).ok_or_else(|| parse_err(n, "duration", &c[2]))?;
            let read = bytes(&c[3]).ok_or_else(|| parse_err(n, "bytes read", &c[3]))?;
            self.params.insert("elapsed".into(), elapsed.into());
            self.section = None;
            self.values
                .push(Series::value("requests", "", Some(requests)));
            self.values
                .push(Series::value("bytes_read", "bytes", Some(read)));
        } else if let Some(c) = SOCKET_ERRORS.captures(line) {
            for (i, kind) in ["connect", "read", "write", "timeout"].iter().enumerate() {
                let v = whole(&c[i + 1], "socket errors", n)?;
                let metric = format!("socket_errors.{kind}");
                self.values.push(Series::value(&metric, "", Some(v)));
            }
        } else if let Some(c) = NON_2XX.captures(line) {
            let v = whole(&c[1], "non-2xx responses", n)?;
            self.values.push(Series::value("non2xx", "", Some(v)));
        } else if let Some(c) = REQ_PER_SEC.captures(line) {
            let v = scaled_decimal(&c[1], 0).ok_or_else(|| parse_err(n, "Requests/sec", &c[1]))?;
            self.values
                .push(Series::value("requests_per_sec", "req/s", Some(v)));
        } else if let Some(c) = TRANSFER.captures(line) {
            let v = bytes(&c[1]).ok_or_else(|| parse_err(n, "Transfer/sec", &c[1]))?;
            self.values
                .push(Series::value("transfer_per_sec", "bytes/s", Some(v)));
            return Ok(true);
        } else if !t.is_empty() && !t.starts_with("Thread ") && !t.starts_with("---") {
            // Anything else ends a distribution section (foreign lines are ignored).
            self.section = None;
        }
        Ok(false)
    }

    fn end_table(&mut self) {
        if let Some(t) = self.table.take() {
            let section = self.section.unwrap_or(RECORDED);
            self.spectrum[section] = Some(t.into_table());
        }
    }

    /// The latency ladder series for `section`, if anything was printed for it.
    fn latency(&mut self, section: usize, metric: &str, display: &str) -> Option<Series> {
        let short = std::mem::take(&mut self.distribution[section]);
        match self.spectrum[section].take() {
            Some(mut table) => {
                for p in &short {
                    let same = table
                        .points
                        .iter_mut()
                        .rev()
                        .find(|q| (q.percentile - p.percentile).abs() < 1e-9);
                    if let Some(q) = same {
                        q.line_value = p.value;
                    }
                }
                if !short.is_empty() {
                    // wrk2's printed `Latency Distribution` stays as printed, so a printed
                    // percentile the spectrum has no row for (p99.999) is not lost.
                    self.printed_distribution[section] = Some(Series::new(
                        format!("{metric}_distribution"),
                        format!("{display} Distribution"),
                        "us",
                        Data::Ladder {
                            count: None,
                            points: short,
                        },
                    ));
                }
                Some(table.into_series(metric, display, "us"))
            }
            None if !short.is_empty() => Some(Series::new(
                metric,
                display,
                "us",
                Data::Ladder {
                    count: None,
                    points: short,
                },
            )),
            None => None,
        }
    }

    fn into_block(mut self, last_line: u64) -> Block {
        let mut series = Vec::new();
        series.extend(self.latency(RECORDED, "latency", "Latency"));
        series.extend(self.latency(UNCORRECTED, "latency_uncorrected", "Uncorrected Latency"));
        series.extend(
            self.printed_distribution
                .iter_mut()
                .filter_map(Option::take),
        );
        let rows = [
            ("latency", "us", self.latency_stats),
            ("req_per_thread", "req/s", self.req_stats),
        ];
        for (prefix, unit, stats) in rows {
            let Some([avg, stdev, max, within]) = stats else {
                continue;
            };
            for (name, unit, v) in [
                ("avg", unit, avg),
                ("stdev", unit, stdev),
                ("max", unit, max),
                ("within_stdev", "%", within),
            ] {
                if v.is_some() {
                    series.push(Series::value(&format!("{prefix}_{name}"), unit, v));
                }
            }
        }
        series.append(&mut self.values);
        let mut run = Run {
            index: 1,
            first_line: self.first_line,
            last_line,
            params: self.params,
            series,
            ..Run::default()
        };
        // What the user chose; `duration`, `elapsed` and the URL stay plain params.
        for key in ["target_throughput", "connections", "threads"] {
            if run.params.contains_key(key) {
                run.config.insert(key.to_string());
            }
        }
        Block {
            label: self.label,
            first_line: self.first_line,
            last_line,
            runs: vec![run],
            printed: Vec::new(),
        }
    }
}

/// Streams wrk outputs as blocks.
struct Parser<R> {
    reader: LineReader<R>,
    labels: LabelTracker,
    /// A target rate from an echoed command line, for the next output.
    pending_rate: Option<f64>,
    open: Option<Output>,
    /// Items ready to hand out, in order (warnings before the block they are about).
    ready: std::collections::VecDeque<Parsed>,
    done: bool,
}

/// Opens an output at its `Running <duration> test @ <url>` line.
fn start(
    c: &regex::Captures,
    n: u64,
    label: Option<String>,
    rate: Option<f64>,
) -> Result<Output, ParseError> {
    let duration = duration_s(&c[1]).ok_or_else(|| parse_err(n, "test duration", &c[1]))?;
    let mut out = Output {
        first_line: n,
        label,
        ..Output::default()
    };
    out.params.insert("duration".into(), duration.into());
    out.params.insert("url".into(), c[2].into());
    if let Some(rate) = rate {
        out.params.insert("target_throughput".into(), rate.into());
    }
    Ok(out)
}

impl<R: BufRead> Iterator for Parser<R> {
    type Item = Result<Parsed, ParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(item) = self.ready.pop_front() {
            return Some(Ok(item));
        }
        if self.done {
            return None;
        }
        let err = loop {
            let last = self.reader.line_number();
            let (n, line, unterminated) = match self.reader.next_with_end() {
                Err(e) => break e,
                Ok(None) => match self.open.take() {
                    None => {
                        self.done = true;
                        return None;
                    }
                    Some(mut open) => {
                        self.done = true;
                        // An excerpt cut short by its author: keep what it printed.
                        open.end_table();
                        let first = open.first_line;
                        self.ready.push_back(Parsed::Warning {
                            line: last,
                            message: format!(
                                "the wrk output started at line {first} ends before its \
                                 `Transfer/sec:` line: what it printed is kept"
                            ),
                        });
                        self.ready.extend(open.warnings.drain(..));
                        let block = open.into_block(last);
                        if !block.runs[0].series.is_empty() {
                            self.ready.push_back(Parsed::Block(block));
                        }
                        return self.ready.pop_front().map(Ok);
                    }
                },
                Ok(Some(l)) => l,
            };
            if self.open.is_some() && unterminated && !transfer_whole(line) {
                // The input ends inside the output, on a line without its newline: a
                // log cut mid-write, whose last value may be cut short (`3.02m` of
                // `3.02ms` would read as minutes).
                let shown: String = line.trim().chars().take(60).collect();
                self.ready.push_back(Parsed::Warning {
                    line: n,
                    message: format!(
                        "the input ends inside the wrk output, on a line without its newline \
                         that may be cut short (`{shown}`): left out"
                    ),
                });
                continue;
            }
            if let Some(c) = RUNNING.captures(line) {
                if let Some(open) = &self.open {
                    break ParseError::new(
                        n,
                        format!(
                            "a new wrk output starts before the one at line {} printed its \
                             `Transfer/sec:` line",
                            open.first_line
                        ),
                    );
                }
                match start(
                    &c,
                    n,
                    self.labels.take_for_block(),
                    self.pending_rate.take(),
                ) {
                    Ok(out) => self.open = Some(out),
                    Err(e) => break e,
                }
                continue;
            }
            if self.open.is_none() && THREAD_STATS.is_match(line) {
                // An excerpt trimmed of its `Running` and threads lines.
                let mut out = Output {
                    first_line: n,
                    label: self.labels.take_for_block(),
                    ..Output::default()
                };
                if let Some(rate) = self.pending_rate.take() {
                    out.params.insert("target_throughput".into(), rate.into());
                }
                self.open = Some(out);
                continue;
            }
            match &mut self.open {
                Some(out) => match out.feed(line, n) {
                    Err(e) => break e,
                    Ok(false) => {}
                    Ok(true) => {
                        let mut out = self.open.take()?;
                        self.ready.extend(out.warnings.drain(..));
                        self.ready.push_back(Parsed::Block(out.into_block(n)));
                        return self.ready.pop_front().map(Ok);
                    }
                },
                None => {
                    if let Some(c) = COMMAND_RATE.captures(line) {
                        self.pending_rate = metric_count(&c[1]);
                    }
                    self.labels.observe(line);
                }
            }
        };
        self.done = true;
        Some(Err(err))
    }
}

/// Whether `line` is a `Transfer/sec:` line whose value ends in its unit (`7.53MB`): the
/// last line of a whole output, complete even where the file ends without a newline.
fn transfer_whole(line: &str) -> bool {
    TRANSFER
        .captures(line)
        .is_some_and(|c| c[1].trim_end().ends_with('B'))
}

/// Parses every wrk/wrk2 output of the input, one block each.
pub fn parse<'a>(r: Box<dyn BufRead + 'a>) -> ParseIter<'a> {
    Box::new(Parser {
        reader: LineReader::new(r),
        labels: LabelTracker::new(),
        pending_rate: None,
        open: None,
        ready: Default::default(),
        done: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{parse_ok, shared};

    fn read(path: &std::path::Path) -> Vec<u8> {
        std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    fn fixture(name: &str) -> Vec<u8> {
        read(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../fixtures")
                .join(name),
        )
    }

    fn sample(name: &str) -> Option<Vec<u8>> {
        shared("samples/wrk").map(|d| read(&d.join(name)))
    }

    fn series<'a>(run: &'a Run, metric: &str) -> &'a Series {
        run.series
            .iter()
            .find(|s| s.metric == metric)
            .unwrap_or_else(|| panic!("no series {metric}"))
    }

    fn value<'a>(run: &'a Run, metric: &str) -> (f64, &'a str) {
        let s = series(run, metric);
        match s.data {
            Data::Value { value: Some(v) } => (v, s.unit.as_str()),
            ref other => panic!("{metric} is not a value: {other:?}"),
        }
    }

    fn ladder<'a>(run: &'a Run, metric: &str) -> (&'a [LadderPoint], Option<u64>) {
        match &series(run, metric).data {
            Data::Ladder { points, count } => (points, *count),
            other => panic!("{metric} is not a ladder: {other:?}"),
        }
    }

    fn num(run: &Run, param: &str) -> f64 {
        run.params[param].as_f64().unwrap()
    }

    const MB: f64 = 1024.0 * 1024.0;

    #[test]
    fn wrk_basic_sample() {
        let Some(bytes) = sample("wrk-readme-basic.txt") else {
            return;
        };
        let blocks = parse_ok(&FORMAT, &bytes);
        assert_eq!(blocks.len(), 1);
        assert_eq!((blocks[0].first_line, blocks[0].last_line), (1, 8));
        let run = &blocks[0].runs[0];
        assert_eq!(num(run, "duration"), 30.0);
        assert_eq!(num(run, "elapsed"), 30.0);
        assert_eq!(num(run, "threads"), 12.0);
        assert_eq!(num(run, "connections"), 400.0);
        assert_eq!(
            run.params["url"],
            Param::from("http://127.0.0.1:8080/index.html")
        );
        assert!(!run.params.contains_key("target_throughput"));
        assert!(run.series.iter().all(|s| s.metric != "latency"));
        assert_eq!(value(run, "latency_avg"), (635.91, "us"));
        assert_eq!(value(run, "latency_stdev"), (890.0, "us"));
        assert_eq!(value(run, "latency_max"), (12920.0, "us"));
        assert_eq!(value(run, "latency_within_stdev"), (93.69, "%"));
        assert_eq!(value(run, "req_per_thread_avg"), (56200.0, "req/s"));
        assert_eq!(value(run, "req_per_thread_stdev"), (8070.0, "req/s"));
        assert_eq!(value(run, "req_per_thread_max"), (62000.0, "req/s"));
        assert_eq!(value(run, "requests"), (22464657.0, ""));
        assert_eq!(value(run, "bytes_read"), (17.76 * 1024.0 * MB, "bytes"));
        assert_eq!(value(run, "requests_per_sec"), (748868.53, "req/s"));
        assert_eq!(value(run, "transfer_per_sec"), (606.33 * MB, "bytes/s"));
    }

    #[test]
    fn wrk_latency_sample_with_socket_errors() {
        let Some(bytes) = sample("wrk-latency-socket-errors-m_net.txt") else {
            return;
        };
        let blocks = parse_ok(&FORMAT, &bytes);
        assert_eq!(blocks.len(), 1);
        let run = &blocks[0].runs[0];
        let (points, count) = ladder(run, "latency");
        assert_eq!(count, None);
        let got: Vec<_> = points.iter().map(|p| (p.percentile, p.value)).collect();
        assert_eq!(
            got,
            [
                (50.0, Some(2480.0)),
                (75.0, Some(2730.0)),
                (90.0, Some(3270.0)),
                (99.0, Some(4970.0))
            ]
        );
        assert_eq!(series(run, "latency").unit, "us");
        assert_eq!(value(run, "latency_stdev"), (716.89, "us"));
        assert_eq!(value(run, "socket_errors.connect").0, 0.0);
        assert_eq!(value(run, "socket_errors.read").0, 1310.0);
        assert_eq!(value(run, "socket_errors.timeout").0, 0.0);
        assert_eq!(value(run, "requests_per_sec").0, 77772.27);
        assert_eq!(value(run, "transfer_per_sec").0, 795.91 * MB);
        assert_eq!(num(run, "elapsed"), 10.1);
    }

    #[test]
    fn wrk2_samples_use_the_spectrum() {
        let Some(bytes) = sample("wrk2-latency-modern-polis-highload.txt") else {
            return;
        };
        let blocks = parse_ok(&FORMAT, &bytes);
        assert_eq!(blocks.len(), 1);
        assert_eq!((blocks[0].first_line, blocks[0].last_line), (1, 112));
        let run = &blocks[0].runs[0];
        assert_eq!(num(run, "duration"), 60.0);
        assert_eq!(num(run, "threads"), 1.0);
        let (points, count) = ladder(run, "latency");
        assert_eq!((points.len(), count), (86, Some(99357)));
        let p = |pct: f64| points.iter().rev().find(|p| p.percentile == pct).unwrap();
        assert_eq!(
            (p(50.0).value, p(50.0).line_value),
            (Some(1371.0), Some(1370.0))
        );
        assert_eq!(p(99.0625).value, Some(3041.0));
        assert_eq!(p(99.0625).line_value, None);
        assert_eq!(
            (p(100.0).value, p(100.0).line_value),
            (Some(12927.0), Some(12930.0))
        );
        let s = series(run, "latency");
        assert_eq!(s.stats["mean"], 1441.0);
        assert_eq!(s.stats["max"], 12920.0);
        assert_eq!(s.stats["total_count"], 99357.0);
        assert!(run.series.iter().all(|s| s.metric != "latency_uncorrected"));
        assert_eq!(value(run, "req_per_thread_avg").0, 2110.0);
        assert_eq!(value(run, "requests").0, 119714.0);
        assert_eq!(value(run, "requests_per_sec").0, 1995.22);
        assert_eq!(value(run, "transfer_per_sec").0, 173.39 * 1024.0);

        let Some(bytes) = sample("wrk2-latency-modern-64threads-polis-highload.txt") else {
            return;
        };
        let blocks = parse_ok(&FORMAT, &bytes);
        assert_eq!(blocks.len(), 1);
        let run = &blocks[0].runs[0];
        assert_eq!(num(run, "threads"), 64.0);
        let (points, count) = ladder(run, "latency");
        assert_eq!((points.len(), count), (107, Some(1999050)));
        let hundreds: Vec<_> = points.iter().filter(|p| p.percentile == 100.0).collect();
        assert_eq!(hundreds.len(), 2);
        assert_eq!(hundreds[1].value, Some(12639.0));
        assert_eq!(hundreds[1].line_value, Some(12640.0));
        assert_eq!(value(run, "requests_per_sec").0, 40038.45);
        assert_eq!(value(run, "transfer_per_sec").0, 3.38 * MB);
    }

    #[test]
    fn wrk2_recorded_and_uncorrected_sample() {
        let Some(bytes) = sample("wrk2-readme-example1-recorded-and-uncorrected-2014.txt") else {
            return;
        };
        let blocks = parse_ok(&FORMAT, &bytes);
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].last_line, 203);
        let run = &blocks[0].runs[0];
        assert_eq!(num(run, "duration"), 30.0);
        assert_eq!(num(run, "elapsed"), 30.01);
        let (points, count) = ladder(run, "latency");
        assert_eq!((points.len(), count), (79, Some(39500)));
        assert_eq!(points[5].percentile, 50.0);
        assert_eq!(
            (points[5].value, points[5].line_value),
            (Some(6207.0), Some(6210.0))
        );
        assert_eq!(points[78].value, Some(11319.0));
        let (points, count) = ladder(run, "latency_uncorrected");
        assert_eq!((points.len(), count), (79, Some(39500)));
        assert_eq!(
            (points[5].value, points[5].line_value),
            (Some(2679.0), Some(2680.0))
        );
        assert_eq!(points[78].value, Some(7015.0));
        assert_eq!(series(run, "latency_uncorrected").stats["mean"], 2757.0);
        assert_eq!(value(run, "requests_per_sec").0, 2000.67);
        assert_eq!(value(run, "bytes_read").0, 19.82 * MB);
    }

    #[test]
    fn a_line_directly_above_an_output_labels_that_output_only() {
        // The first output of the fixture under a heading, then one with the short line
        // `-R 2000` directly above it, then one with no lead line of its own.
        let text = String::from_utf8(fixture("wrk/wrk-latency.txt")).unwrap();
        let first: String = text.lines().take(17).map(|l| format!("{l}\n")).collect();
        let output: String = text
            .lines()
            .skip(3)
            .take(14)
            .map(|l| format!("{l}\n"))
            .collect();
        let input = format!("{first}\n-R 2000\n{output}\n{output}");
        let blocks = parse_ok(&FORMAT, input.as_bytes());
        let labels: Vec<_> = blocks.iter().map(|b| b.label.as_deref()).collect();
        assert_eq!(
            labels,
            [
                Some("Baseline (nginx 1.25, keep-alive)"),
                Some("-R 2000"),
                Some("Baseline (nginx 1.25, keep-alive)")
            ]
        );
    }

    #[test]
    fn fixtures_with_labels_rates_and_non2xx() {
        let blocks = parse_ok(&FORMAT, &fixture("wrk/wrk-latency.txt"));
        assert_eq!(blocks.len(), 2);
        assert_eq!(
            blocks[0].label.as_deref(),
            Some("Baseline (nginx 1.25, keep-alive)")
        );
        assert_eq!(blocks[1].label.as_deref(), Some("With the patch"));
        let run = &blocks[0].runs[0];
        assert!(!run.params.contains_key("target_throughput"));
        assert_eq!(value(run, "latency_max").0, 1_420_000.0);
        assert_eq!(value(run, "non2xx").0, 17.0);
        let (points, _) = ladder(run, "latency");
        assert_eq!(points[0].value, Some(655.0));
        assert_eq!(points[3].value, Some(4870.0));
        let run = &blocks[1].runs[0];
        assert_eq!(num(run, "duration"), 60.0);
        assert_eq!(value(run, "socket_errors.timeout").0, 3.0);

        let blocks = parse_ok(&FORMAT, &fixture("wrk/wrk2-u_latency.txt"));
        assert_eq!(blocks.len(), 1);
        let run = &blocks[0].runs[0];
        assert_eq!(num(run, "target_throughput"), 4000.0);
        let (points, count) = ladder(run, "latency");
        assert_eq!((points.len(), count), (9, Some(39912)));
        assert_eq!(
            (points[5].percentile, points[5].value),
            (99.0, Some(2613.0))
        );
        assert_eq!(points[5].line_value, Some(2610.0));
        let (points, _) = ladder(run, "latency_uncorrected");
        assert_eq!(points[8].value, Some(7503.0));
        assert_eq!(points[8].line_value, Some(7500.0));
    }

    #[test]
    fn target_rate_from_echoed_command_lines() {
        let rate = |cmd: &str| {
            let text = format!(
                "{cmd}\nRunning 1s test @ http://h/\nRequests/sec: 1.00\nTransfer/sec: 1.00KB\n"
            );
            let blocks = parse_ok(&FORMAT, text.as_bytes());
            blocks[0].runs[0]
                .params
                .get("target_throughput")
                .and_then(Param::as_f64)
        };
        assert_eq!(
            rate("$ ./wrk -t2 -c100 -d30s -R2000 --latency http://h/"),
            Some(2000.0)
        );
        assert_eq!(rate("wrk2 --rate 2k http://h/"), Some(2000.0));
        assert_eq!(rate("> wrk --rate=1.5M http://h/"), Some(1_500_000.0));
        assert_eq!(rate("wrk -t2 -c100 http://h/"), None);
        assert_eq!(rate("Results at -R 500 were noisy"), None);
    }

    #[test]
    fn malformed_outputs_name_the_line() {
        let err = |bytes: &[u8]| {
            parse(Box::new(bytes))
                .find_map(Result::err)
                .expect("a parse error")
        };
        let e = err(&fixture("malformed/wrk-junk-latency.txt"));
        assert_eq!(e.line, 4, "{e}");
        assert!(e.message.contains("7#6.89us"), "{e}");

        // Cut short: what was printed is kept, with a warning (here: nothing to keep).
        let items: Vec<_> = parse(Box::new(
            &b"Running 10s test @ http://x\n  1 threads and 1 connections\n"[..],
        ))
        .collect();
        assert_eq!(items.len(), 1, "{items:?}");
        match &items[0] {
            Ok(Parsed::Warning { line, message }) => {
                assert_eq!(*line, 2);
                assert!(message.contains("ends before"), "{message}");
            }
            other => panic!("{other:?}"),
        }

        let e = err(b"Running 10s test @ http://x\n  Latency Distribution\n     50%   1.2qs\n");
        assert_eq!(e.line, 3);
        assert!(e.message.contains("1.2qs"), "{e}");
    }

    #[test]
    fn fixture_snapshots() {
        insta::glob!("../../../fixtures/wrk", "*.txt", |path| {
            let blocks = parse_ok(&FORMAT, &std::fs::read(path).unwrap());
            insta::assert_json_snapshot!(blocks);
        });
    }

    #[test]
    fn junk_and_empty_inputs_yield_nothing() {
        assert!(parse_ok(&FORMAT, b"").is_empty());
        assert!(parse_ok(&FORMAT, b"Requests/sec: 12\n\xff\x00junk\n").is_empty());
    }

    #[test]
    fn rate_connections_and_threads_are_config() {
        let blocks =
            crate::testutil::parse_ok(&FORMAT, &crate::testutil::fixture("wrk/wrk2-u_latency.txt"));
        let run = &blocks[0].runs[0];
        let config: Vec<&str> = run.config.iter().map(String::as_str).collect();
        assert_eq!(config, ["connections", "target_throughput", "threads"]);
        assert_eq!(run.params["target_throughput"], Param::Num(4000.0));
        assert_eq!(run.params["connections"], Param::Num(16.0));
        // Measured, not chosen.
        assert_eq!(run.params["elapsed"], Param::Num(10.0));
        assert_eq!(run.bench, None);
    }

    /// Every item of `bytes`, warnings included.
    fn items(bytes: &[u8]) -> Vec<Parsed> {
        (FORMAT.parse)(Box::new(bytes))
            .map(|r| r.expect("parses"))
            .collect()
    }

    /// perfkitbenchmarker-wrk2_output_all_error.txt cut inside the unit of its
    /// ` 99.000%    3.17ms` line: `3.17m` would read as minutes, `3.17` as microseconds.
    /// The line is left out with a warning, the rows before it are kept; the same line
    /// with its newline is read.
    #[test]
    fn a_last_line_without_its_newline_inside_an_output_is_left_out() {
        let bytes = fixture("real/wrk/perfkitbenchmarker-wrk2_output_all_error.txt");
        let text = String::from_utf8(bytes).unwrap();
        let at = text.find(" 99.000%    3.17ms").unwrap() + " 99.000%    3.17".len();
        for cut in [&text[..at + 1], &text[..at]] {
            let got = items(cut.as_bytes());
            assert!(
                got.iter()
                    .any(|p| matches!(p, Parsed::Warning { line: 11, message }
                    if message.contains("may be cut short") && message.contains("99.000%"))),
                "{got:?}"
            );
            let last = last_latency(&got);
            assert_eq!(last.map(|p| p.percentile), Some(90.0));
        }
        let whole = format!("{}s\n", &text[..at + 1]);
        let got = items(whole.as_bytes());
        let last = last_latency(&got);
        assert_eq!(
            last.map(|p| (p.percentile, p.value)),
            Some((99.0, Some(3170.0)))
        );
    }

    /// The last point of the first block's `latency` ladder.
    fn last_latency(items: &[Parsed]) -> Option<LadderPoint> {
        let run = items.iter().find_map(|p| match p {
            Parsed::Block(b) => Some(&b.runs[0]),
            _ => None,
        })?;
        ladder(run, "latency").0.last().cloned()
    }

    #[test]
    fn a_nan_thread_stats_row_is_left_out_with_a_warning() {
        // fixtures/real/wrk/avio-README.md.txt line 60: `Req/Sec  -nan  -nan  0.00  0.00%`.
        let items = items(&fixture("real/wrk/avio-README.md.txt"));
        let warnings: Vec<(u64, &str)> = items
            .iter()
            .filter_map(|i| match i {
                Parsed::Warning { line, message } => Some((*line, message.as_str())),
                _ => None,
            })
            .collect();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!(warnings[0].0, 60);
        assert!(warnings[0].1.contains("Req/Sec"), "{}", warnings[0].1);
        let Some(Parsed::Block(b)) = items.iter().find(|i| matches!(i, Parsed::Block(_))) else {
            panic!("no block")
        };
        let run = &b.runs[0];
        assert!(
            !run.series
                .iter()
                .any(|s| s.metric.starts_with("req_per_thread")),
            "{:?}",
            run.series.iter().map(|s| &s.metric).collect::<Vec<_>>()
        );
        // The Latency row of line 59 is whole: `3.13ms  1.90ms  11.32ms  73.87%`.
        assert_eq!(value(run, "latency_max"), (11320.0, "us"));
        assert_eq!(value(run, "latency_within_stdev"), (73.87, "%"));
    }

    #[test]
    fn a_nan_stdev_takes_its_within_share_along() {
        let text = "Running 10s test @ http://x\n  1 threads and 1 connections\n  Thread Stats   Avg      Stdev     Max   +/- Stdev\n    Latency     1.00ms    -nan   1.00ms  100.00%\n  10 requests in 10.00s, 1.00KB read\nRequests/sec:      1.00\nTransfer/sec:      100.00B\n";
        let items = items(text.as_bytes());
        assert!(
            matches!(&items[0], Parsed::Warning { line: 4, .. }),
            "{items:?}"
        );
        let Parsed::Block(b) = &items[1] else {
            panic!("{items:?}")
        };
        let run = &b.runs[0];
        assert_eq!(value(run, "latency_avg"), (1000.0, "us"));
        assert_eq!(value(run, "latency_max"), (1000.0, "us"));
        assert!(!run.series.iter().any(|s| s.metric == "latency_stdev"));
        assert!(
            !run.series
                .iter()
                .any(|s| s.metric == "latency_within_stdev")
        );
    }
}
