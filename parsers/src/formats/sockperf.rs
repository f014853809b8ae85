//! sockperf client output (format `sockperf`): ping-pong, under-load and throughput
//! runs, and the `--full-log` CSV.
//!
//! ```text
//! sockperf: == version #3.7-no.git ==
//! [ 0] IP = 127.0.0.1       PORT = 17211 # TCP
//! sockperf: [Total Run] RunTime=3.000 sec; Warm up time=400 msec; SentMessages=3001; ReceivedMessages=3001
//! sockperf: ========= Printing statistics for Server No: 0
//! sockperf: [Valid Duration] RunTime=2.546 sec; SentMessages=2547; ReceivedMessages=2547
//! sockperf: ====> avg-rtt=383.309 (std-dev=1081.320)
//! sockperf: # dropped messages = 0; # duplicated messages = 0; # out-of-order messages = 0
//! sockperf: Summary: Round trip is 383.309 usec
//! sockperf: Total 2547 observations; each percentile contains 25.47 observations
//! sockperf: ---> <MAX> observation = 8610.880
//! sockperf: ---> percentile 99.999 = 8610.880
//! …
//! sockperf: ---> <MIN> observation =   13.590
//! ```
//!
//! Each output (from its `== version` line, or from the `test was performed using …`
//! header of a `--full-log` CSV) is one block; each `Printing statistics for Server No: N`
//! section, or a throughput summary, is one run of it. Per run:
//! - the latency ladder in `us` (sockperf prints usec): `end_to_end` when sockperf
//!   measured round trips (`--full-rtt`: `avg-rtt`, `Round trip is`, CSV column
//!   `rtt(usec)`), the same name and unit as `bench-db run loopback`'s round trip, so the
//!   two compare directly; `latency` (half the round trip, sockperf's default) otherwise.
//!   `<MAX>` is the worst (percentile 100); the ladder's count is the `Total N
//!   observations`; stats `mean` and `stddev` (the `avg-…` line), `min` (`<MIN>`);
//! - `sent_messages`, `received_messages` (the `[Valid Duration]` line),
//!   `dropped_messages`, `duplicated_messages`, `out_of_order_messages`;
//! - throughput runs: `message_rate` (`msg/sec`), `bandwidth` (`MB/s`, sockperf's `MBps`),
//!   `bandwidth_bits` (`Mbit/s`, the `(… Mbps)` sockperf prints beside it: eight times the
//!   bytes, printed rounded on its own), `sent_messages`; `--giga-size`'s `GBps`/`Gbps`
//!   are stored in the same mega units;
//! - the `--full-log` rows as a time series `<ladder metric>_samples` (t = txTime in
//!   seconds since the test started, value in `us`).
//!
//! Params: `protocol` (`TCP`/`UDP`), `full_rtt`, `run_time_s` (valid duration),
//! `achieved_throughput` (a latency run's `SentMessages / RunTime` of its valid duration),
//! `total_run_time_s`, `warmup_ms`, `server`, and from the `--full-log` header or the
//! throughput note `target_throughput` (`--mps`), `msg_size`, `burst`, `reply_every`.
//! `interrupted` is set when the test ended on a signal. Fixtures:
//! `fixtures/real/sockperf/pingpong-tcp-fullrtt-1000.txt`, `fixtures/sockperf/`.
//!
//! A line of sockperf's own shape whose numbers do not parse, or a statistics section
//! that ends before any number, is an error naming the line.
//!
//! A last line without its newline (a log cut mid-write) is read by the form sockperf
//! prints it in: a ladder or `--full-log` value without its three decimals (`%.3lf`:
//! `4682.1` of `4682.177`), or an `mps=` without the `.` after it, is cut short and the
//! line is left out with a warning; a `BandWidth` line without the `)` after its bits keeps
//! the bytes only. `[Valid Duration]` and `# dropped messages` lines end in a bare count and
//! are always followed by the ladder, so ending there the output is cut: the line is read,
//! with a warning that its last count may be cut short.
//!
//! Identity: no bench. `config` is the options chosen: `target_throughput` (`--mps`),
//! `msg_size`, `burst`, `reply_every`, `full_rtt`, `protocol`; run times, warm-up and
//! `interrupted` are plain params. No timestamp is printed.

use crate::error::ParseError;
use crate::format::{Format, Head, ParseIter};
use crate::lines::{LineMachine, Queue, drive};
use crate::model::{Block, Data, LadderPoint, Param, Run, Series, TimePoint};
use crate::text::{clean_line, re};
use crate::units::scaled_decimal;
use regex::Regex;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::sync::LazyLock;

/// The format entry for the registry.
pub const FORMAT: Format = Format::new("sockperf", "1", sniff, parse).claims_at_most(95);

static VERSION: LazyLock<Regex> = LazyLock::new(|| re(r"^sockperf: == version #(\S+)"));
static ADDRESS: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\[\s*\d+\]\s+IP = \S+\s+PORT =\s*\d+\s+#\s*(\w+)"));
static TOTAL_RUN: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^sockperf: \[Total Run\] RunTime=(\S+) sec; Warm up time=(\S+) msec; SentMessages=(\S+); ReceivedMessages=(\S+)",
    )
});
static SERVER: LazyLock<Regex> =
    LazyLock::new(|| re(r"^sockperf: =+ Printing statistics for Server No:\s*(\d+)"));
static VALID: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^sockperf: \[Valid Duration\] RunTime=(\S+) sec; SentMessages=(\S+); ReceivedMessages=(\S+)",
    )
});
static AVG: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^sockperf: =+> avg-(rtt|latency|lat)\s*=\s*(\S+)\s*\(std-dev\s*=\s*([^)\s]+)\)")
});
static DROPPED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^sockperf: # dropped messages = (\S+); # duplicated messages = (\S+); # out-of-order messages = (\S+)",
    )
});
static SUMMARY_RTT: LazyLock<Regex> = LazyLock::new(|| re(r"^sockperf: Summary: Round trip is"));
static OBSERVATIONS: LazyLock<Regex> = LazyLock::new(|| re(r"^sockperf: Total (\S+) observations"));
static LADDER_ROW: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^sockperf: -+> (?:<(MAX|MIN)> observation|percentile\s+(\S+))\s*=\s*(\S*)\s*$")
});
static SENT_IN: LazyLock<Regex> =
    LazyLock::new(|| re(r"^sockperf: Total of (\S+) messages sent in (\S+) sec"));
static NOTE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^sockperf: NOTE: test was performed, using msg-size=(\d+), mps=(\w+)"));
static RATE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^sockperf: Summary: Message Rate is (\S+) \[msg/sec\]"));
/// `BandWidth is 0.067 MBps (0.534 Mbps)`; with `--giga-size` `… GBps (… Gbps)`.
static BANDWIDTH: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^sockperf: Summary: BandWidth is (\S+) ([MG])Bps(?: \((\S+) ([MG])bps\))?")
});
static PARAMS: LazyLock<Regex> =
    LazyLock::new(|| re(r"^test was performed using the following parameters:(.*)$"));
static CSV_HEADER: LazyLock<Regex> =
    LazyLock::new(|| re(r"^packet, txTime\(sec\), rxTime\(sec\), (rtt|latency)\(usec\)\s*$"));
static INTERRUPTED: LazyLock<Regex> =
    LazyLock::new(|| re(r"^sockperf: Test end \(interrupted by signal"));

/// Confidence that `head` is sockperf output: its version banner, its statistics lines,
/// or the `--full-log` CSV header.
pub fn sniff(head: &Head) -> u8 {
    let mut score = 0;
    for line in head.text.lines().take(400) {
        let line = clean_line(line);
        if VERSION.is_match(&line)
            || CSV_HEADER.is_match(&line)
            || LADDER_ROW.is_match(&line)
            || VALID.is_match(&line)
            || RATE.is_match(&line)
        {
            score += 1;
        }
        if score >= 2 {
            return 95;
        }
    }
    if score == 1 { 60 } else { 0 }
}

/// Parses sockperf output into blocks (see the module doc).
pub fn parse<'a>(r: Box<dyn BufRead + 'a>) -> ParseIter<'a> {
    drive(r, Machine::default())
}

/// One run (one server's statistics, or a throughput summary) being read.
#[derive(Debug, Default)]
struct RunState {
    first_line: u64,
    last_line: u64,
    params: BTreeMap<String, Param>,
    full_rtt: Option<bool>,
    count: Option<u64>,
    points: Vec<LadderPoint>,
    stats: BTreeMap<String, f64>,
    values: Vec<Series>,
    samples: Vec<TimePoint>,
}

impl RunState {
    fn is_empty(&self) -> bool {
        self.points.is_empty()
            && self.values.is_empty()
            && self.samples.is_empty()
            && self.stats.is_empty()
    }
}

/// One output being read.
#[derive(Debug, Default)]
struct Output {
    first_line: u64,
    last_line: u64,
    params: BTreeMap<String, Param>,
    /// Round trips or half round trips, once an output line has said which.
    full_rtt: Option<bool>,
    runs: Vec<RunState>,
    current: Option<RunState>,
    /// Inside the `--full-log` rows.
    in_csv: bool,
}

#[derive(Debug, Default)]
struct Machine {
    output: Option<Output>,
    out: Queue,
}

fn num(text: &str, what: &str, n: u64) -> Result<f64, ParseError> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| {
            ParseError::new(
                n,
                format!("sockperf {what}: cannot read `{}` as a number", text.trim()),
            )
        })
}

impl Machine {
    fn output(&mut self, n: u64) -> &mut Output {
        self.output.get_or_insert_with(|| Output {
            first_line: n,
            ..Default::default()
        })
    }

    /// The run a statistics line belongs to; a line outside any server section opens one.
    fn run(&mut self, n: u64) -> &mut RunState {
        let out = self.output(n);
        out.last_line = n;
        let run = out.current.get_or_insert_with(|| RunState {
            first_line: n,
            ..Default::default()
        });
        run.last_line = n;
        run
    }

    fn close_run(&mut self) {
        if let Some(out) = self.output.as_mut()
            && let Some(run) = out.current.take()
        {
            out.runs.push(run);
        }
    }

    fn close_output(&mut self) -> Result<(), ParseError> {
        self.close_run();
        let Some(out) = self.output.take() else {
            return Ok(());
        };
        let mut runs = Vec::new();
        for (i, r) in out.runs.into_iter().enumerate() {
            if r.is_empty() {
                return Err(ParseError::new(
                    r.first_line,
                    "sockperf statistics section ends before any number",
                ));
            }
            runs.push(finish_run(r, &out.params, out.full_rtt, i as u32 + 1));
        }
        if runs.is_empty() {
            // A banner or warm-up chatter without results: nothing to store.
            return Ok(());
        }
        for run in &mut runs {
            for key in CONFIG {
                if run.params.contains_key(*key) {
                    run.config.insert(key.to_string());
                }
            }
        }
        self.out.block(Block {
            label: None,
            first_line: out.first_line,
            last_line: out.last_line,
            runs,
            printed: Vec::new(),
        });
        Ok(())
    }
}

fn finish_run(
    r: RunState,
    block_params: &BTreeMap<String, Param>,
    block_rtt: Option<bool>,
    index: u32,
) -> Run {
    let full_rtt = r.full_rtt.or(block_rtt).unwrap_or(false);
    let (metric, display) = if full_rtt {
        ("end_to_end", "rtt")
    } else {
        ("latency", "latency")
    };
    let mut params = block_params.clone();
    params.extend(r.params);
    let mut series = Vec::new();
    if !r.points.is_empty() {
        let mut points = r.points;
        points.sort_by(|a, b| a.percentile.total_cmp(&b.percentile));
        let mut s = Series::new(
            metric,
            display,
            "us",
            Data::Ladder {
                count: r.count,
                points,
            },
        );
        s.stats = r.stats;
        if let Some(c) = r.count {
            s.stats.insert("total_count".into(), c as f64);
        }
        series.push(s);
        params.insert("full_rtt".into(), Param::Bool(full_rtt));
    }
    if !r.samples.is_empty() {
        series.push(Series::new(
            format!("{metric}_samples"),
            format!("{display}(usec)"),
            "us",
            Data::TimeSeries { points: r.samples },
        ));
    }
    series.extend(r.values);
    Run {
        bench: None,
        config: Default::default(),
        index,
        first_line: r.first_line,
        last_line: r.last_line,
        params,
        tags: BTreeMap::new(),
        series,
    }
}

/// The params that are the benchmark's configuration (the options the user chose); run
/// times, warm-up and `interrupted` are what a run did.
const CONFIG: &[&str] = &[
    "target_throughput",
    "msg_size",
    "burst",
    "reply_every",
    "full_rtt",
    "protocol",
];

/// Reads `--mps=1000 --burst=1 …` into params.
fn option_params(
    opts: &str,
    params: &mut BTreeMap<String, Param>,
    n: u64,
) -> Result<(), ParseError> {
    for opt in opts.split_whitespace() {
        let (key, value) = opt.split_once('=').unwrap_or((opt, ""));
        let name = match key {
            "--mps" => "target_throughput",
            "--msg-size" => "msg_size",
            "--burst" => "burst",
            "--reply-every" => "reply_every",
            "--time" => "duration_s",
            "--full-rtt" => {
                params.insert("full_rtt".into(), Param::Bool(true));
                continue;
            }
            _ => continue,
        };
        let v = if value == "max" {
            Param::from("max")
        } else {
            Param::Num(num(value, key, n)?)
        };
        params.insert(name.into(), v);
    }
    Ok(())
}

/// The value a last line cut mid-write ends in, where sockperf prints a fixed form the
/// value lacks: a ladder row's or a `--full-log` row's `%.3lf`, the `.` after `mps=N`.
fn cut_value(line: &str, in_csv: bool) -> Option<&str> {
    let three_decimals = |v: &str| v.split_once('.').is_some_and(|(_, f)| f.len() == 3);
    if in_csv {
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        if cells.len() == 4 && cells[0].bytes().all(|b| b.is_ascii_digit()) {
            return (!three_decimals(cells[3])).then_some(cells[3]);
        }
    }
    if let Some(c) = LADDER_ROW.captures(line) {
        let v = c.get(3).map_or("", |m| m.as_str());
        return (!three_decimals(v)).then_some(v);
    }
    if let Some(c) = NOTE.captures(line) {
        let mps = c.get(2).expect("mps");
        return (!line[mps.end()..].starts_with('.')).then_some(mps.as_str());
    }
    None
}

impl LineMachine for Machine {
    fn feed(&mut self, line: &str, n: u64) -> Result<(), ParseError> {
        let line = line.trim_end();
        if self.output.as_ref().is_some_and(|o| o.in_csv) {
            let cells: Vec<&str> = line.split(',').map(str::trim).collect();
            if cells.len() == 4 && cells[0].bytes().all(|b| b.is_ascii_digit()) {
                let t = num(cells[1], "txTime", n)?;
                let v = num(cells[3], "latency", n)?;
                self.run(n).samples.push(TimePoint { t, value: Some(v) });
                return Ok(());
            }
            if line.is_empty() {
                return Ok(());
            }
            self.output(n).in_csv = false;
        }
        if let Some(c) = VERSION.captures(line) {
            self.close_output()?;
            self.output(n)
                .params
                .insert("sockperf_version".into(), Param::from(&c[1]));
            return Ok(());
        }
        if let Some(c) = PARAMS.captures(line) {
            // The `--full-log` CSV begins here; in a console output it follows the results.
            let out = self.output(n);
            out.last_line = n;
            option_params(&c[1], &mut out.params, n)?;
            if out.params.contains_key("full_rtt") {
                out.full_rtt = Some(true);
            }
            return Ok(());
        }
        if let Some(c) = ADDRESS.captures(line) {
            self.output(n)
                .params
                .insert("protocol".into(), Param::from(&c[1]));
            return Ok(());
        }
        if let Some(c) = TOTAL_RUN.captures(line) {
            let total = num(&c[1], "RunTime", n)?;
            let warm = num(&c[2], "Warm up time", n)?;
            num(&c[3], "SentMessages", n)?;
            num(&c[4], "ReceivedMessages", n)?;
            let out = self.output(n);
            out.last_line = n;
            out.params
                .insert("total_run_time_s".into(), Param::Num(total));
            out.params.insert("warmup_ms".into(), Param::Num(warm));
            return Ok(());
        }
        if let Some(c) = SERVER.captures(line) {
            self.close_run();
            let server = num(&c[1], "server number", n)?;
            self.run(n)
                .params
                .insert("server".into(), Param::Num(server));
            return Ok(());
        }
        if INTERRUPTED.is_match(line) {
            self.output(n)
                .params
                .insert("interrupted".into(), Param::Bool(true));
            return Ok(());
        }
        if let Some(c) = VALID.captures(line) {
            let time = num(&c[1], "RunTime", n)?;
            let sent = num(&c[2], "SentMessages", n)?;
            let recv = num(&c[3], "ReceivedMessages", n)?;
            let run = self.run(n);
            run.params.insert("run_time_s".into(), Param::Num(time));
            // The rate the run sent at, what a curve draws it at: sockperf prints no rate
            // for a latency run, and `--mps` only in a `--full-log` header.
            if time > 0.0 {
                run.params
                    .insert("achieved_throughput".into(), Param::Num(sent / time));
            }
            run.values
                .push(Series::value("sent_messages", "messages", Some(sent)));
            run.values
                .push(Series::value("received_messages", "messages", Some(recv)));
            return Ok(());
        }
        if let Some(c) = AVG.captures(line) {
            let mean = num(&c[2], "average", n)?;
            let sd = num(&c[3], "std-dev", n)?;
            let rtt = &c[1] == "rtt";
            let run = self.run(n);
            run.full_rtt = Some(rtt);
            run.stats.insert("mean".into(), mean);
            run.stats.insert("stddev".into(), sd);
            return Ok(());
        }
        if let Some(c) = DROPPED.captures(line) {
            let vals = [
                ("dropped_messages", num(&c[1], "dropped messages", n)?),
                ("duplicated_messages", num(&c[2], "duplicated messages", n)?),
                (
                    "out_of_order_messages",
                    num(&c[3], "out-of-order messages", n)?,
                ),
            ];
            let run = self.run(n);
            for (name, v) in vals {
                run.values.push(Series::value(name, "messages", Some(v)));
            }
            return Ok(());
        }
        if SUMMARY_RTT.is_match(line) {
            self.run(n).full_rtt = Some(true);
            return Ok(());
        }
        if let Some(c) = OBSERVATIONS.captures(line) {
            let count = num(&c[1], "observations", n)?;
            self.run(n).count = Some(count as u64);
            return Ok(());
        }
        if let Some(c) = LADDER_ROW.captures(line) {
            let value = num(&c[3], "percentile row", n)?;
            let run = self.run(n);
            match (c.get(1).map(|m| m.as_str()), c.get(2)) {
                (Some("MIN"), _) => {
                    run.stats.insert("min".into(), value);
                }
                (Some(_), _) => run.points.push(LadderPoint {
                    percentile: 100.0,
                    value: Some(value),
                    line_value: None,
                }),
                (None, Some(p)) => {
                    let p = num(p.as_str(), "percentile", n)?;
                    run.points.push(LadderPoint {
                        percentile: p,
                        value: Some(value),
                        line_value: None,
                    });
                }
                (None, None) => unreachable!("the regex captures one of the two"),
            }
            return Ok(());
        }
        if let Some(c) = SENT_IN.captures(line) {
            let sent = num(&c[1], "messages sent", n)?;
            let time = num(&c[2], "seconds", n)?;
            let run = self.run(n);
            run.params.insert("run_time_s".into(), Param::Num(time));
            run.values
                .push(Series::value("sent_messages", "messages", Some(sent)));
            return Ok(());
        }
        if let Some(c) = NOTE.captures(line) {
            let size = num(&c[1], "msg-size", n)?;
            let mps = if &c[2] == "max" {
                Param::from("max")
            } else {
                Param::Num(num(&c[2], "mps", n)?)
            };
            let out = self.output(n);
            out.params.insert("msg_size".into(), Param::Num(size));
            out.params.insert("target_throughput".into(), mps);
            return Ok(());
        }
        if let Some(c) = RATE.captures(line) {
            let v = num(&c[1], "Message Rate", n)?;
            self.run(n)
                .values
                .push(Series::value("message_rate", "msg/sec", Some(v)));
            return Ok(());
        }
        if let Some(c) = BANDWIDTH.captures(line) {
            // Both figures in mega units: sockperf's GBps is its MBps / 1000.
            let mega = |text: &str, prefix: &str, what: &str| -> Result<f64, ParseError> {
                let pow = if prefix == "G" { 3 } else { 0 };
                num(text, what, n)?;
                scaled_decimal(text.trim(), pow)
                    .ok_or_else(|| ParseError::new(n, format!("sockperf {what}: `{text}`")))
            };
            let bytes = mega(&c[1], &c[2], "BandWidth")?;
            let bits = match (c.get(3), c.get(4)) {
                (Some(v), Some(p)) => Some(mega(v.as_str(), p.as_str(), "BandWidth bits")?),
                _ => None,
            };
            let run = self.run(n);
            run.values
                .push(Series::value("bandwidth", "MB/s", Some(bytes)));
            if let Some(b) = bits {
                run.values
                    .push(Series::value("bandwidth_bits", "Mbit/s", Some(b)));
            }
            return Ok(());
        }
        if let Some(c) = CSV_HEADER.captures(line) {
            let rtt = &c[1] == "rtt";
            let out = self.output(n);
            out.in_csv = true;
            out.full_rtt = Some(rtt);
            self.run(n);
            return Ok(());
        }
        Ok(())
    }

    fn feed_unterminated(&mut self, line: &str, n: u64) -> Result<(), ParseError> {
        let line = line.trim_end();
        let in_csv = self.output.as_ref().is_some_and(|o| o.in_csv);
        if let Some(value) = cut_value(line, in_csv) {
            self.out.warning(
                n,
                format!(
                    "the input ends inside this line, without its newline: `{value}` is cut \
                     short (sockperf prints `%.3lf` values and `mps=N.`): left out"
                ),
            );
            return Ok(());
        }
        if let Some(c) = BANDWIDTH.captures(line)
            && c.get(3).is_none()
            && let Some(open) = line.find(" (")
        {
            self.out.warning(
                n,
                format!(
                    "the input ends inside this line, without its newline: the bits `{}` \
                     are cut short: left out",
                    &line[open + 1..]
                ),
            );
            return self.feed(&line[..open], n);
        }
        self.feed(line, n)?;
        let count = VALID
            .captures(line)
            .map(|c| c.get(3))
            .or_else(|| DROPPED.captures(line).map(|c| c.get(3)))
            .flatten();
        if let Some(count) = count {
            self.out.warning(
                n,
                format!(
                    "the input ends on this line, without its newline, before the statistics \
                     sockperf prints after it: its last count `{}` is stored but may be cut short",
                    count.as_str()
                ),
            );
        }
        Ok(())
    }

    fn finish(&mut self, _last: u64) -> Result<(), ParseError> {
        self.close_output()
    }

    fn queue(&mut self) -> &mut Queue {
        &mut self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::parse_ok;
    use std::path::PathBuf;

    fn real(name: &str) -> Vec<u8> {
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/real/sockperf")
            .join(name);
        std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    fn ladder(s: &Series) -> Vec<(f64, f64)> {
        s.ladder()
            .unwrap()
            .iter()
            .map(|p| (p.percentile, p.value.unwrap()))
            .collect()
    }

    fn value(run: &Run, metric: &str) -> f64 {
        match run.series.iter().find(|s| s.metric == metric).unwrap().data {
            Data::Value { value } => value.unwrap(),
            _ => panic!("{metric} is not a value"),
        }
    }

    #[test]
    fn full_rtt_ping_pong_is_an_end_to_end_ladder() {
        let blocks = parse_ok(&FORMAT, &real("pingpong-tcp-fullrtt-1000.txt"));
        assert_eq!(blocks.len(), 1);
        let run = &blocks[0].runs[0];
        let s = &run.series[0];
        assert_eq!((s.metric.as_str(), s.unit.as_str()), ("end_to_end", "us"));
        let l = ladder(s);
        assert_eq!(l[0], (25.0, 15.372));
        assert!(l.contains(&(50.0, 17.756)));
        assert!(l.contains(&(99.0, 4682.177)));
        assert_eq!(*l.last().unwrap(), (100.0, 8610.880));
        assert_eq!(s.stats["mean"], 383.309);
        assert_eq!(s.stats["stddev"], 1081.320);
        assert_eq!(s.stats["min"], 13.590);
        assert!(matches!(
            s.data,
            Data::Ladder {
                count: Some(2547),
                ..
            }
        ));
        assert_eq!(value(run, "received_messages"), 2547.0);
        assert_eq!(value(run, "dropped_messages"), 0.0);
        assert_eq!(run.params["run_time_s"], Param::Num(2.546));
        // 2547 messages in 2.546 s of valid duration.
        assert_eq!(
            run.params["achieved_throughput"],
            Param::Num(2547.0 / 2.546)
        );
        assert!(!run.config.contains("achieved_throughput"));
        assert_eq!(run.params["warmup_ms"], Param::Num(400.0));
        assert_eq!(run.params["protocol"], Param::from("TCP"));
        assert_eq!(run.params["full_rtt"], Param::Bool(true));
    }

    #[test]
    fn udp_full_rtt() {
        let blocks = parse_ok(&FORMAT, &real("pingpong-udp-fullrtt-1000.txt"));
        let run = &blocks[0].runs[0];
        let l = ladder(&run.series[0]);
        assert_eq!(run.series[0].metric, "end_to_end");
        assert!(l.contains(&(99.0, 4998.442)));
        assert_eq!(*l.last().unwrap(), (100.0, 8542.715));
        assert_eq!(run.series[0].stats["mean"], 362.510);
        assert_eq!(run.params["protocol"], Param::from("UDP"));
    }

    #[test]
    fn half_round_trip_is_latency() {
        let blocks = parse_ok(&FORMAT, &real("pingpong-tcp-half-fulllog-1000.txt"));
        let s = &blocks[0].runs[0].series[0];
        assert_eq!(s.metric, "latency");
        let l = ladder(s);
        assert!(l.contains(&(50.0, 9.724)));
        assert!(l.contains(&(99.9, 4308.581)));
        assert_eq!(s.stats["mean"], 259.535);
        assert_eq!(blocks[0].runs[0].params["full_rtt"], Param::Bool(false));
    }

    #[test]
    fn under_load_keeps_its_few_observations() {
        let blocks = parse_ok(&FORMAT, &real("underload-tcp-2000.txt"));
        let run = &blocks[0].runs[0];
        let s = &run.series[0];
        assert!(matches!(
            s.data,
            Data::Ladder {
                count: Some(50),
                ..
            }
        ));
        assert!(ladder(s).contains(&(50.0, 34.248)));
        assert_eq!(value(run, "sent_messages"), 4901.0);
        assert_eq!(value(run, "received_messages"), 50.0);
        assert_eq!(run.params["interrupted"], Param::Bool(true));
    }

    #[test]
    fn throughput_summary() {
        let blocks = parse_ok(&FORMAT, &real("throughput-tcp-5000.txt"));
        let run = &blocks[0].runs[0];
        assert_eq!(value(run, "message_rate"), 5000.0);
        assert_eq!(value(run, "bandwidth"), 0.067);
        assert_eq!(value(run, "bandwidth_bits"), 0.534);
        let bits = run.series.iter().find(|s| s.metric == "bandwidth_bits");
        assert_eq!(bits.unwrap().unit, "Mbit/s");
        assert_eq!(value(run, "sent_messages"), 10003.0);
        assert_eq!(run.params["target_throughput"], Param::Num(5000.0));
        assert_eq!(run.params["msg_size"], Param::Num(14.0));
        assert_eq!(run.params["run_time_s"], Param::Num(2.0));
    }

    #[test]
    fn bandwidth_in_bits_and_giga_units() {
        // The three forms of sockperf's client.cpp (`%.3f MBps (%.3f Mbps)`, the
        // `--increase_output_precision` one, and `--giga-size`'s `GBps (Gbps)`).
        let run = |text: &str| parse_ok(&FORMAT, text.as_bytes())[0].runs[0].clone();
        let head = "sockperf: == version #3.10-no.git == \nsockperf: Total of 9385544 messages sent in 30.000 sec\n\n";
        let r = run(&format!(
            "{head}sockperf: Summary: Message Rate is 8636 [msg/sec], Packet Rate is about 388620 [pkt/sec] (45 ip frags / msg)\nsockperf: Summary: BandWidth is 538.630 MBps (4309.039 Mbps)\n"
        ));
        assert_eq!(value(&r, "message_rate"), 8636.0);
        assert_eq!(value(&r, "bandwidth"), 538.63);
        assert_eq!(value(&r, "bandwidth_bits"), 4309.039);
        let r = run(&format!(
            "{head}sockperf: Summary: BandWidth is 1.125666000 MBps (9.005328000 Mbps)\n"
        ));
        assert_eq!(value(&r, "bandwidth_bits"), 9.005328);
        let r = run(&format!(
            "{head}sockperf: Summary: BandWidth is 2.728 GBps (21.826 Gbps)\n"
        ));
        assert_eq!(value(&r, "bandwidth"), 2728.0);
        assert_eq!(value(&r, "bandwidth_bits"), 21826.0);
        // Without the bits in parentheses, only the bytes.
        let r = run(&format!(
            "{head}sockperf: Summary: BandWidth is 0.067 MBps\n"
        ));
        assert_eq!(value(&r, "bandwidth"), 0.067);
        assert!(r.series.iter().all(|s| s.metric != "bandwidth_bits"));
    }

    #[test]
    fn full_log_csv_has_ladder_and_samples() {
        let blocks = parse_ok(&FORMAT, &real("fulllog-tcp-fullrtt-1000.csv"));
        assert_eq!(blocks.len(), 1);
        let run = &blocks[0].runs[0];
        assert_eq!(run.params["target_throughput"], Param::Num(1000.0));
        assert_eq!(run.params["duration_s"], Param::Num(2.0));
        let s = &run.series[0];
        assert_eq!(s.metric, "end_to_end");
        assert_eq!(*ladder(s).last().unwrap(), (100.0, 11022.617));
        let samples = run
            .series
            .iter()
            .find(|s| s.metric == "end_to_end_samples")
            .unwrap();
        let Data::TimeSeries { points } = &samples.data else {
            panic!()
        };
        assert_eq!(points.len(), 1549);
        assert_eq!(points[0].t, 2.411229851);
        assert_eq!(points[0].value, Some(2966.417));
        assert_eq!(points[1].value, Some(24.246));
    }

    #[test]
    fn half_full_log_csv() {
        let blocks = parse_ok(&FORMAT, &real("fulllog-tcp-1000.csv"));
        let run = &blocks[0].runs[0];
        assert_eq!(run.series[0].metric, "latency");
        assert!(ladder(&run.series[0]).contains(&(50.0, 9.724)));
        let Data::TimeSeries { points } = &run.series[1].data else {
            panic!()
        };
        assert_eq!(points.len(), 2551);
        assert_eq!(points[0].value, Some(33.044));
    }

    #[test]
    fn a_bad_percentile_value_names_its_line() {
        let text = b"sockperf: == version #3.7 ==\nsockperf: ========= Printing statistics for Server No: 0\nsockperf: ---> percentile 99.000 = 4x.1\n";
        let err = (FORMAT.parse)(Box::new(&text[..]))
            .find_map(Result::err)
            .unwrap();
        assert_eq!(err.line, 3);
        assert!(err.message.contains("4x.1"), "{}", err.message);
    }

    /// Items of `text` cut after `upto` (the cut falls inside the line `upto` ends in).
    fn cut_at<'t>(text: &'t str, line: &str, upto: &str) -> &'t [u8] {
        assert!(line.starts_with(upto), "{upto} is not a prefix of {line}");
        &text.as_bytes()[..text.find(line).expect("the line") + upto.len()]
    }

    fn one_warning(cut: &[u8]) -> (u64, String) {
        let w = crate::testutil::warnings(&FORMAT, cut);
        assert_eq!(w.len(), 1, "{w:?}");
        w[0].clone()
    }

    /// pingpong-tcp-fullrtt-1000.txt cut inside the `%8.3lf` values of its last line
    /// (`<MIN> observation =   13.590`, line 25) and of its `percentile 99.000 = 4682.177`
    /// row (line 20): the cut row is left out with a warning, the rows before it are kept.
    #[test]
    fn a_ladder_value_cut_short_is_left_out() {
        let text = String::from_utf8(real("pingpong-tcp-fullrtt-1000.txt")).unwrap();
        let min_row = "sockperf: ---> <MIN> observation =   13.590";
        let cut = cut_at(&text, min_row, "sockperf: ---> <MIN> observation =   13.59");
        let blocks = parse_ok(&FORMAT, cut);
        let s = &blocks[0].runs[0].series[0];
        assert_eq!(*ladder(s).last().unwrap(), (100.0, 8610.880));
        assert_eq!(ladder(s)[0], (25.0, 15.372));
        assert!(!s.stats.contains_key("min"), "{:?}", s.stats);
        let (line, message) = one_warning(cut);
        assert_eq!(line, 25);
        assert!(message.contains("`13.59`"), "{message}");

        let row = "sockperf: ---> percentile 99.000 = 4682.177";
        let cut = cut_at(&text, row, "sockperf: ---> percentile 99.000 = 4682.1");
        let blocks = parse_ok(&FORMAT, cut);
        let l = ladder(&blocks[0].runs[0].series[0]);
        assert_eq!(l[0], (99.9, 8012.425));
        assert!(l.iter().all(|p| p.0 != 99.0), "{l:?}");
        assert_eq!(one_warning(cut).0, 20);
    }

    /// The same output cut inside `ReceivedMessages=2547` (line 11, a bare `%lu` that the
    /// ladder always follows): `254` is stored, with a warning that it may be cut.
    #[test]
    fn a_count_the_output_ends_on_is_kept_with_a_warning() {
        let text = String::from_utf8(real("pingpong-tcp-fullrtt-1000.txt")).unwrap();
        let valid = "sockperf: [Valid Duration] RunTime=2.546 sec; SentMessages=2547; \
                     ReceivedMessages=2547";
        let cut = cut_at(&text, valid, &valid[..valid.len() - 1]);
        let blocks = parse_ok(&FORMAT, cut);
        let run = &blocks[0].runs[0];
        assert_eq!(value(run, "sent_messages"), 2547.0);
        assert_eq!(value(run, "received_messages"), 254.0);
        let (line, message) = one_warning(cut);
        assert_eq!(line, 11);
        assert!(
            message.contains("`254` is stored but may be cut"),
            "{message}"
        );
    }

    /// throughput-tcp-5000.txt cut inside its NOTE's `mps=5000.` (line 10: `mps=50` would
    /// read as 50 msg/s) and inside its last line's `(0.534 Mbps)` (line 12).
    #[test]
    fn a_throughput_line_cut_short_keeps_only_whole_values() {
        let text = String::from_utf8(real("throughput-tcp-5000.txt")).unwrap();
        let note = "sockperf: \x1b[2;35mNOTE: test was performed, using msg-size=14, mps=5000.";
        let cut = cut_at(
            &text,
            note,
            "sockperf: \x1b[2;35mNOTE: test was performed, using msg-size=14, mps=50",
        );
        let blocks = parse_ok(&FORMAT, cut);
        let run = &blocks[0].runs[0];
        assert_eq!(value(run, "sent_messages"), 10003.0);
        assert!(
            !run.params.contains_key("target_throughput"),
            "{:?}",
            run.params
        );
        assert_eq!(one_warning(cut).0, 10);

        let bw = "sockperf: Summary: BandWidth is 0.067 MBps (0.534 Mbps)";
        let cut = cut_at(
            &text,
            bw,
            "sockperf: Summary: BandWidth is 0.067 MBps (0.53",
        );
        let blocks = parse_ok(&FORMAT, cut);
        let run = &blocks[0].runs[0];
        assert_eq!(value(run, "bandwidth"), 0.067);
        assert_eq!(value(run, "message_rate"), 5000.0);
        assert!(run.series.iter().all(|s| s.metric != "bandwidth_bits"));
        let (line, message) = one_warning(cut);
        assert_eq!(line, 12);
        assert!(message.contains("`(0.53`"), "{message}");
    }

    /// fulllog-tcp-fullrtt-1000.csv cut inside its last row's rtt (`1548, …, 31.297`,
    /// line 1570): 1548 samples are kept, the last `1547, …, 20.480`.
    #[test]
    fn a_full_log_row_cut_short_is_left_out() {
        let text = String::from_utf8(real("fulllog-tcp-fullrtt-1000.csv")).unwrap();
        let row = "1548, 3.959230012, 3.959261309, 31.297";
        let cut = cut_at(&text, row, "1548, 3.959230012, 3.959261309, 31.2");
        let blocks = parse_ok(&FORMAT, cut);
        let samples = blocks[0].runs[0]
            .series
            .iter()
            .find(|s| s.metric == "end_to_end_samples")
            .unwrap();
        let Data::TimeSeries { points } = &samples.data else {
            panic!()
        };
        assert_eq!(points.len(), 1548);
        assert_eq!(points[1547].value, Some(20.48));
        assert_eq!(one_warning(cut).0, 1570);
    }

    #[test]
    fn a_whole_file_without_its_final_newline_reads_the_same() {
        let n = crate::testutil::final_newline_changes_nothing(&FORMAT, "sockperf", "sockperf", "");
        assert!(n >= 8, "{n}");
    }

    #[test]
    fn fixtures_snapshot() {
        insta::glob!("../../../fixtures/sockperf", "*.*", |path| {
            let items = crate::testutil::items_json(&FORMAT, &std::fs::read(path).unwrap());
            insta::assert_json_snapshot!(items);
        });
    }

    #[test]
    fn chosen_options_are_config_and_run_times_are_not() {
        let blocks = crate::testutil::parse_ok(
            &FORMAT,
            &crate::testutil::fixture("sockperf/two-servers.txt"),
        );
        let run = &blocks[0].runs[0];
        let config: Vec<&str> = run.config.iter().map(String::as_str).collect();
        assert_eq!(config, ["full_rtt", "protocol"]);
        assert_eq!(run.params["protocol"], Param::from("UDP"));
        assert_eq!(run.params["run_time_s"], Param::Num(0.55));
        assert!(!run.config.contains("run_time_s"));
    }
}
