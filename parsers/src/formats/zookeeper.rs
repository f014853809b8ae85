//! ZooKeeper four-letter-word outputs: `srvr`, `stat` and `mntr` (3.4 to 3.9).
//!
//! `srvr` / `stat` (FORMATS §4.1) print `Zookeeper version: …`, for `stat` a `Clients:`
//! list, then `Latency min/avg/max: <min>/<avg>/<max>` (milliseconds; the average is an
//! integer in 3.4/3.5 and a double such as `0.5789` or `1.0E-4` from 3.6), `Received`,
//! `Sent`, `Connections`, `Outstanding`, `Zxid`, `Mode`, `Node count` and, on a 3.6+
//! leader, `Proposal sizes last/min/max`. Each output is one block with one run:
//! `Value` series `latency_min`, `latency_avg`, `latency_max` (unit `ms`), `received`,
//! `sent`, `connections`, `outstanding`, `node_count` and, from `stat`, `clients` (the
//! number of client lines listed; unit empty for every count); `proposal_size_last`,
//! `proposal_size_min`, `proposal_size_max` when printed (`-1`, "unset", stores no series).
//! `version`, `mode` and `zxid` (as printed, e.g. `0x1e00000024`) are text parameters;
//! read-only mode sets the flag `read_only`.
//!
//! `mntr` prints `zk_<key>\t<value>` lines; each key becomes a `Value` series under its own
//! name (`zk_avg_latency`, …), `-1` ("not available" in 3.6+) stores no series, and values that
//! are not numbers (`zk_version`, `zk_server_state`, `zk_peer_state`) become text
//! parameters. Unit `ms` goes to latency keys (names containing `latency`, except the
//! `zk_cnt_` counters) and to keys whose printed name ends in `_ms`; every other key has
//! no unit.
//!
//! Fewer than three `zk_` lines are a fragment (a test's broken sample), skipped with a warning.
//!
//! The input's last line without its newline (a log cut mid-write) is read by the form
//! ZooKeeper prints: a `Proposal sizes` line that is not three whole numbers (`-1/-1/-`), or
//! a `mntr` value that is not a whole number (`0.` of `0.7561`, `7` of a 3.6+ `zk_avg_`
//! double, printed as `7.0`), is cut short and left out with a warning. A bare count cannot
//! tell; it is stored with a warning where a line that always follows is missing: `Node
//! count` of a 3.4.10+ leader (`Proposal sizes` follows), a 3.4 `mntr` key before the
//! ones 3.4 always prints after it (`zk_packets_received`, then `zk_packets_sent`, …).
//!
//! Several outputs in one file are separate blocks, labelled by their lead lines. Other
//! lines are ignored. Fixtures: `fixtures/zookeeper/srvr-3.9.txt`, `fixtures/zookeeper/mntr-3.4.txt`.
//!
//! Identity: no bench, no config (a four-letter-word answer names no benchmark); no
//! timestamp.

use crate::error::ParseError;
use crate::format::{Format, Head, ParseIter};
use crate::lines::LineReader;
use crate::model::{Block, Param, Parsed, Run, Series};
use crate::text::LabelTracker;
use crate::units::java_number;
use regex::Regex;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::io::BufRead;
use std::sync::LazyLock;

/// The `zookeeper` format.
pub const FORMAT: Format = Format::new("zookeeper", "1", sniff, parse).claims_at_most(95);

/// A `mntr` line: key, separator (TAB as printed, spaces when pasted), value.
/// Python sources keep the TAB as the two characters `\t`.
static MNTR_LINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(zk_[A-Za-z0-9_]+)(\t+| +|\\t)(.*)$").expect("valid regex"));

/// Confidence that `head` is a ZooKeeper `srvr`/`stat`/`mntr` output.
pub fn sniff(head: &Head) -> u8 {
    let mut version = false;
    let mut latency = false;
    let mut mntr_tab = 0;
    let mut mntr_space = 0;
    let mut mntr_anchor = false;
    for line in head.text.lines() {
        let t = line.trim();
        if version_line(t).is_some() {
            version = true;
        } else if t
            .strip_prefix("Latency min/avg/max:")
            .is_some_and(latency_shaped)
        {
            latency = true;
        } else if let Some(c) = MNTR_LINE.captures(t) {
            if c[2].starts_with('\t') {
                mntr_tab += 1;
            } else {
                mntr_space += 1;
            }
            if matches!(
                &c[1],
                "zk_version" | "zk_server_state" | "zk_avg_latency" | "zk_znode_count"
            ) {
                mntr_anchor = true;
            }
        }
    }
    if (latency && version) || (mntr_tab >= 3 && mntr_anchor) {
        95
    } else if latency || mntr_tab >= 3 {
        80
    } else if mntr_anchor && mntr_space >= 3 {
        60
    } else if version {
        30
    } else {
        0
    }
}

/// Parses every `srvr`/`stat`/`mntr` output in the input.
pub fn parse<'a>(r: Box<dyn BufRead + 'a>) -> ParseIter<'a> {
    Box::new(Parser {
        reader: LineReader::new(r),
        labels: LabelTracker::new(),
        state: State::Idle,
        out: VecDeque::new(),
        done: false,
    })
}

/// The block being read.
enum State {
    Idle,
    Srvr(Srvr),
    Mntr(Mntr),
}

/// A `srvr`/`stat` output in progress.
struct Srvr {
    label: Option<String>,
    first_line: u64,
    last_line: u64,
    params: BTreeMap<String, Param>,
    series: Vec<Series>,
    clients: Option<u64>,
    latency_seen: bool,
    node_count_seen: bool,
}

/// The fewest keys a `mntr` output has: every version prints its version and the
/// minimum, average and maximum latency first.
const MNTR_MIN_KEYS: usize = 3;

/// A `mntr` output in progress.
struct Mntr {
    label: Option<String>,
    first_line: u64,
    last_line: u64,
    keys: BTreeSet<String>,
    params: BTreeMap<String, Param>,
    series: Vec<Series>,
}

struct Parser<'a> {
    reader: LineReader<Box<dyn BufRead + 'a>>,
    labels: LabelTracker,
    state: State,
    out: VecDeque<Result<Parsed, ParseError>>,
    done: bool,
}

/// One block with one run, as both shapes of output produce.
fn one_run_block(
    label: Option<String>,
    first_line: u64,
    last_line: u64,
    params: BTreeMap<String, Param>,
    series: Vec<Series>,
) -> Block {
    Block {
        label,
        first_line,
        last_line,
        runs: vec![Run {
            index: 1,
            first_line,
            last_line,
            params,
            series,
            ..Default::default()
        }],
        printed: Vec::new(),
    }
}

impl Srvr {
    fn new(label: Option<String>, line: u64) -> Self {
        Srvr {
            label,
            first_line: line,
            last_line: line,
            params: BTreeMap::new(),
            series: Vec::new(),
            clients: None,
            latency_seen: false,
            node_count_seen: false,
        }
    }

    /// Takes one line of the output; `Ok(false)` when the line is not part of it.
    fn take(&mut self, t: &str, line: u64) -> Result<bool, ParseError> {
        if let Some(v) = version_line(t) {
            if !self.params.is_empty() || self.latency_seen {
                return Ok(false);
            }
            if t.starts_with("ClickHouse") {
                self.params
                    .insert("server".into(), "clickhouse-keeper".into());
            }
            self.params.insert("version".into(), v.trim().into());
        } else if t.starts_with("READ-ONLY mode") {
            self.params.insert("read_only".into(), true.into());
        } else if t == "Clients:" {
            self.clients = Some(0);
        } else if (t.contains("(queued=") || t.contains("(recved=")) && self.clients.is_some() {
            // ZooKeeper prints `/ip:port[1](queued=…)`, ClickHouse Keeper `ip:port(recved=…)`.
            self.clients = self.clients.map(|n| n + 1);
        } else if let Some(v) = t.strip_prefix("Latency min/avg/max:") {
            if self.latency_seen || !latency_shaped(v) {
                // A second output, or a field-description template (`Latency min/avg/max: 延时`).
                return Ok(false);
            }
            let [min, avg, max] = triple(v, line, "Latency min/avg/max", "<min>/<avg>/<max>")?;
            self.latency_seen = true;
            self.series.push(Series::value("latency_min", "ms", min));
            self.series.push(Series::value("latency_avg", "ms", avg));
            self.series.push(Series::value("latency_max", "ms", max));
        } else if let Some((key, v)) = t.split_once(':').filter(|_| self.latency_seen) {
            // ClickHouse Keeper prints `Sent : 2`.
            match key.trim_end() {
                "Received" | "Sent" | "Connections" | "Outstanding" | "Node count" => {
                    let key = key.trim_end();
                    let n = count(v, line, key)?;
                    self.series
                        .push(Series::new(crate::text::metric_name(key), key, "", n));
                    self.node_count_seen |= key == "Node count";
                }
                "Zxid" => {
                    self.params.insert("zxid".into(), v.trim().into());
                }
                "Mode" => {
                    self.params.insert("mode".into(), v.trim().into());
                }
                "Proposal sizes last/min/max" => {
                    let vals = triple(v, line, key, "<last>/<min>/<max>")?;
                    for (name, v) in ["last", "min", "max"].iter().zip(vals) {
                        // ZooKeeper prints -1 for a size it has not measured yet: no value.
                        if v != Some(-1.0) {
                            self.series.push(Series::value(
                                &format!("proposal_size_{name}"),
                                "",
                                v,
                            ));
                        }
                    }
                }
                _ => return Ok(false),
            }
        } else {
            return Ok(false);
        }
        self.last_line = line;
        Ok(true)
    }

    /// Whether a `Proposal sizes` line must follow `Node count`: a 3.4.10+ ZooKeeper
    /// leader prints one.
    fn proposal_sizes_follow(&self) -> bool {
        let version = match self.params.get("version") {
            Some(Param::Text(v)) if !self.params.contains_key("server") => zk_version(v),
            _ => None,
        };
        matches!(self.params.get("mode"), Some(Param::Text(m)) if m == "leader")
            && version.is_some_and(|v| v >= (3, 4, 10))
    }

    /// The finished block, or why the output is incomplete.
    fn finish(mut self, ended_by_eof: bool) -> Result<Parsed, ParseError> {
        if !self.latency_seen {
            let msg = "`Zookeeper version:` line is not followed by a `Latency min/avg/max:` line";
            return if ended_by_eof {
                Err(ParseError::new(
                    self.last_line,
                    format!("srvr/stat output cut off: {msg}"),
                ))
            } else {
                Ok(Parsed::Warning {
                    line: self.first_line,
                    message: format!("{msg}; ignored"),
                })
            };
        }
        if !self.node_count_seen {
            return Err(ParseError::new(
                self.last_line,
                format!(
                    "srvr/stat output starting at line {} ends before its `Node count:` line",
                    self.first_line
                ),
            ));
        }
        if let Some(n) = self.clients {
            self.series
                .push(Series::new("clients", "Clients", "", data_value(n as f64)));
        }
        Ok(Parsed::Block(one_run_block(
            self.label,
            self.first_line,
            self.last_line,
            self.params,
            self.series,
        )))
    }
}

fn data_value(v: f64) -> crate::model::Data {
    crate::model::Data::Value { value: Some(v) }
}

/// `a/b/c` as three numbers, or an error naming the line and the expected shape.
fn triple(v: &str, line: u64, what: &str, shape: &str) -> Result<[Option<f64>; 3], ParseError> {
    let bad = || {
        ParseError::new(
            line,
            format!(
                "`{what}:` expects three numbers {shape}, found `{}`",
                v.trim()
            ),
        )
    };
    let parts: Vec<&str> = v.trim().split('/').collect();
    if parts.len() != 3 {
        return Err(bad());
    }
    let mut out = [None; 3];
    for (o, p) in out.iter_mut().zip(&parts) {
        *o = java_number(p).map_err(|_| bad())?;
    }
    Ok(out)
}

/// A counter line's value as a `Value`.
fn count(v: &str, line: u64, key: &str) -> Result<crate::model::Data, ParseError> {
    let n = v.trim().parse::<i64>().map_err(|_| {
        ParseError::new(
            line,
            format!("`{key}:` expects a whole number, found `{}`", v.trim()),
        )
    })?;
    Ok(data_value(n as f64))
}

/// The version text of a `srvr`/`stat` first line: ZooKeeper's `Zookeeper version:` or
/// ClickHouse Keeper's `ClickHouse Keeper version:`.
fn version_line(t: &str) -> Option<&str> {
    t.strip_prefix("Zookeeper version:")
        .or_else(|| t.strip_prefix("ClickHouse Keeper version:"))
}

/// Whether a `Latency min/avg/max:` value looks like numbers (`0/1/2`, even garbled as
/// `x/y`), not a word of a field-description template (`延时`, latency).
fn latency_shaped(v: &str) -> bool {
    v.contains('/') || v.bytes().any(|b| b.is_ascii_digit())
}

/// A `mntr` value without an author's note pasted after it, separated by a TAB or two
/// or more spaces (`0.7561              - be account to four decimal places`, `2 ## Followers`).
fn mntr_value(v: &str) -> &str {
    let v = v.trim();
    let gap = v.find('\t').into_iter().chain(v.find("  ")).min();
    match gap {
        Some(i) if v[i..].trim_start().starts_with(['-', '#', '(']) => v[..i].trim_end(),
        _ => v,
    }
}

/// The unit of a `mntr` key (see the module doc).
fn mntr_unit(key: &str) -> &'static str {
    if (key.contains("latency") && !key.starts_with("zk_cnt_")) || key.ends_with("_ms") {
        "ms"
    } else {
        ""
    }
}

impl Mntr {
    /// Takes one `zk_` line; `false` when the key repeats (a second output starts).
    fn take(&mut self, key: &str, v: &str, line: u64) -> bool {
        if !self.keys.insert(key.to_string()) {
            return false;
        }
        let v = mntr_value(v);
        match java_number(v) {
            // 3.6+ prints -1 for "not available": no value.
            Ok(Some(-1.0)) => {}
            Ok(n) => self.series.push(Series::value(key, mntr_unit(key), n)),
            Err(_) => {
                self.params.insert(key.to_string(), v.into());
            }
        }
        self.last_line = line;
        true
    }

    /// The finished block; a fragment of fewer than [`MNTR_MIN_KEYS`] keys (a test's
    /// broken sample, a key quoted in prose) is no output and only warns.
    fn finish(self) -> Parsed {
        if self.keys.len() < MNTR_MIN_KEYS {
            return Parsed::Warning {
                line: self.first_line,
                message: format!(
                    "{} `zk_` line(s) (lines {}–{}) are too few for a mntr output: skipped",
                    self.keys.len(),
                    self.first_line,
                    self.last_line
                ),
            };
        }
        Parsed::Block(one_run_block(
            self.label,
            self.first_line,
            self.last_line,
            self.params,
            self.series,
        ))
    }
}

impl Parser<'_> {
    /// Closes the block in progress, queueing its result.
    fn close(&mut self, eof: bool) {
        match std::mem::replace(&mut self.state, State::Idle) {
            State::Idle => {}
            State::Srvr(s) => self.out.push_back(s.finish(eof)),
            State::Mntr(m) => self.out.push_back(Ok(m.finish())),
        }
    }

    /// Handles one trimmed line: continues, closes or starts a block, or feeds the labels.
    fn step(&mut self, t: &str, line: u64) {
        // The line continues the block in progress?
        match &mut self.state {
            State::Srvr(s) => match s.take(t, line) {
                Ok(true) => return,
                Ok(false) if t.is_empty() && !s.node_count_seen => return,
                Ok(false) => self.close(false),
                Err(e) => {
                    self.state = State::Idle;
                    self.out.push_back(Err(e));
                    self.done = true;
                    return;
                }
            },
            State::Mntr(m) => {
                if let Some(c) = MNTR_LINE.captures(t)
                    && m.take(&c[1], &c[3], line)
                {
                    return;
                }
                self.close(false);
            }
            State::Idle => {}
        }
        // Does a new block start here?
        if version_line(t).is_some() || t.starts_with("Latency min/avg/max:") {
            let mut s = Srvr::new(self.labels.take_for_block(), line);
            match s.take(t, line) {
                Ok(_) => self.state = State::Srvr(s),
                Err(e) => {
                    self.out.push_back(Err(e));
                    self.done = true;
                }
            }
        } else if let Some(c) = MNTR_LINE.captures(t) {
            let mut m = Mntr {
                label: self.labels.take_for_block(),
                first_line: line,
                last_line: line,
                keys: BTreeSet::new(),
                params: BTreeMap::new(),
                series: Vec::new(),
            };
            m.take(&c[1], &c[3], line);
            self.state = State::Mntr(m);
        } else if t == "This ZooKeeper instance is not currently serving requests"
            || t.ends_with("is not executed because it is not in the whitelist.")
        {
            self.out.push_back(Ok(Parsed::Warning {
                line,
                message: format!("ZooKeeper printed no statistics: {t}"),
            }));
        } else {
            self.labels.observe(t);
        }
    }

    /// Handles the input's last line, ended without a newline: a value lacking the form
    /// ZooKeeper prints it in is cut short and left out; a bare count where the output
    /// visibly goes on is stored with a warning (see the module doc).
    fn step_last(&mut self, t: &str, line: u64) {
        let cut = match &self.state {
            State::Srvr(_) => t
                .strip_prefix("Proposal sizes last/min/max:")
                .is_some_and(|v| !proposal_sizes_whole(v)),
            State::Mntr(m) => MNTR_LINE.captures(t).is_some_and(|c| {
                !m.keys.contains(&c[1])
                    && !mntr_whole(&c[1], mntr_value(&c[3]), mntr_version(&m.params))
            }),
            State::Idle => false,
        };
        if cut {
            self.out.push_back(Ok(Parsed::Warning {
                line,
                message: format!(
                    "the input ends inside this line, without its newline: `{t}` is cut \
                     short: left out"
                ),
            }));
            return;
        }
        self.step(t, line);
        let missing = match &self.state {
            State::Srvr(s) if s.last_line == line && t.starts_with("Node count:") => s
                .proposal_sizes_follow()
                .then_some("Proposal sizes last/min/max:"),
            State::Mntr(m)
                if m.last_line == line
                    && mntr_version(&m.params).is_some_and(|v| (v.0, v.1) == (3, 4)) =>
            {
                MNTR_LINE.captures(t).and_then(|c| {
                    MNTR_3_4_NEXT
                        .iter()
                        .find(|(k, _)| *k == &c[1])
                        .map(|(_, next)| *next)
                })
            }
            _ => None,
        };
        if let Some(next) = missing {
            self.out.push_back(Ok(Parsed::Warning {
                line,
                message: format!(
                    "the input ends on this line, without its newline, before the `{next}` \
                     line that always follows it: `{t}` is stored but its value may be cut short"
                ),
            }));
        }
    }
}

/// `mntr` keys a 3.4 server always prints right after the key (`MonitorCommand`): the
/// output cannot end there.
const MNTR_3_4_NEXT: &[(&str, &str)] = &[
    ("zk_version", "zk_avg_latency"),
    ("zk_avg_latency", "zk_max_latency"),
    ("zk_max_latency", "zk_min_latency"),
    ("zk_min_latency", "zk_packets_received"),
    ("zk_packets_received", "zk_packets_sent"),
    ("zk_packets_sent", "zk_num_alive_connections"),
    ("zk_num_alive_connections", "zk_outstanding_requests"),
    ("zk_outstanding_requests", "zk_server_state"),
    ("zk_server_state", "zk_znode_count"),
    ("zk_znode_count", "zk_watch_count"),
    ("zk_watch_count", "zk_ephemerals_count"),
    ("zk_ephemerals_count", "zk_approximate_data_size"),
    (
        "zk_open_file_descriptor_count",
        "zk_max_file_descriptor_count",
    ),
    ("zk_followers", "zk_synced_followers"),
    ("zk_synced_followers", "zk_pending_syncs"),
    ("zk_last_proposal_size", "zk_max_proposal_size"),
    ("zk_max_proposal_size", "zk_min_proposal_size"),
];

/// `major.minor.patch` of a ZooKeeper version text (`3.4.6-1569965, built on …`).
fn zk_version(text: &str) -> Option<(u32, u32, u32)> {
    let mut parts = text
        .trim()
        .split(|c: char| !c.is_ascii_digit())
        .map(|p| p.parse::<u32>().ok());
    Some((parts.next()??, parts.next()??, parts.next()??))
}

/// The version a `mntr` output printed as its `zk_version`.
fn mntr_version(params: &BTreeMap<String, Param>) -> Option<(u32, u32, u32)> {
    match params.get("zk_version") {
        Some(Param::Text(v)) => zk_version(v),
        _ => None,
    }
}

/// Whether `v` is three whole integers `a/b/c`, as `Proposal sizes` prints them.
fn proposal_sizes_whole(v: &str) -> bool {
    let parts: Vec<&str> = v.trim().split('/').collect();
    parts.len() == 3 && parts.iter().all(|p| whole_integer(p))
}

fn whole_integer(s: &str) -> bool {
    let d = s.strip_prefix('-').unwrap_or(s);
    !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())
}

/// Whether a `mntr` value is whole as printed: text, an integer, or a Java double with
/// digits after its point (`0.7561`, `1.0E-4`); a 3.6+ `zk_avg_` value is always a double.
fn mntr_whole(key: &str, v: &str, version: Option<(u32, u32, u32)>) -> bool {
    // A value of number characters only; anything else (`follower`, a version) is text.
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit() || b"-.E".contains(&b)) {
        return !v.is_empty();
    }
    let double = |s: &str| {
        let (m, e) = s.split_once('E').map_or((s, None), |(m, e)| (m, Some(e)));
        m.split_once('.').is_some_and(|(i, f)| {
            whole_integer(i) && !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit())
        }) && e.is_none_or(whole_integer)
    };
    let always_double = key.starts_with("zk_avg_") && version.is_some_and(|v| v >= (3, 6, 0));
    double(v) || (!always_double && whole_integer(v))
}

impl Iterator for Parser<'_> {
    type Item = Result<Parsed, ParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(item) = self.out.pop_front() {
                return Some(item);
            }
            if self.done {
                return None;
            }
            match self.reader.next_with_end() {
                Ok(Some((n, l, unterminated))) => {
                    let t = l.trim().to_string();
                    if unterminated {
                        self.step_last(&t, n);
                    } else {
                        self.step(&t, n);
                    }
                }
                Ok(None) => {
                    self.close(true);
                    self.done = true;
                }
                Err(e) => {
                    self.out.push_back(Err(e));
                    self.done = true;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::*;
    use crate::testutil::{parse_ok, shared};

    /// (file, min, avg, max, received, sent, connections, node count, zxid, mode, clients)
    type Expected = (
        &'static str,
        [f64; 3],
        [f64; 4],
        f64,
        &'static str,
        &'static str,
        Option<f64>,
    );

    const SAMPLES: &[Expected] = &[
        (
            "srvr-3.4.5-cdh-follower.txt",
            [0.0, 0.0, 0.0],
            [10.0, 10.0, 3.0, 0.0],
            203.0,
            "0x1e00000024",
            "follower",
            None,
        ),
        (
            "srvr-3.6.1-standalone.txt",
            [0.0, 0.0, 0.0],
            [1.0, 1.0, 1.0, 0.0],
            8.0,
            "0x5c",
            "standalone",
            None,
        ),
        (
            "srvr-3.9.2-standalone.txt",
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 1.0, 0.0],
            5.0,
            "0x0",
            "standalone",
            None,
        ),
        (
            "stat-3.4.13-follower.txt",
            [0.0, 1.0, 47.0],
            [443.0, 444.0, 2.0, 0.0],
            30.0,
            "0x100000022",
            "follower",
            Some(2.0),
        ),
        (
            "stat-3.4.5-cdh-follower.txt",
            [0.0, 0.0, 0.0],
            [22.0, 22.0, 3.0, 0.0],
            203.0,
            "0x1e00000024",
            "follower",
            Some(3.0),
        ),
        (
            "stat-3.4.6-standalone-4clients.txt",
            [0.0, 2.0, 2570.0],
            [23199.0, 23198.0, 4.0, 0.0],
            13.0,
            "0xa39",
            "standalone",
            Some(4.0),
        ),
        (
            "stat-3.4.6-standalone.txt",
            [0.0, 0.0, 52.0],
            [225.0, 227.0, 2.0, 0.0],
            24.0,
            "0x23",
            "standalone",
            Some(2.0),
        ),
        (
            "stat-3.6.1-standalone.txt",
            [0.0, 0.0, 0.0],
            [2.0, 2.0, 1.0, 0.0],
            8.0,
            "0x5c",
            "standalone",
            Some(1.0),
        ),
        (
            "stat-3.6.3-standalone.txt",
            [0.0, 0.0, 0.0],
            [91.0, 1.0, 1.0, 0.0],
            5.0,
            "0x0",
            "standalone",
            Some(1.0),
        ),
    ];

    #[test]
    fn srvr_and_stat_samples() {
        let Some(dir) = shared("samples/zookeeper") else {
            return;
        };
        for (file, lat, counts, nodes, zxid, mode, clients) in SAMPLES {
            let path = dir.join(file);
            assert_eq!(detect_file(&path), Some("zookeeper"), "{file}");
            let blocks = parse_ok(&FORMAT, &std::fs::read(&path).unwrap());
            assert_eq!(blocks.len(), 1, "{file}");
            assert_eq!(blocks[0].runs.len(), 1, "{file}");
            let run = &blocks[0].runs[0];
            let n_series = 8 + usize::from(clients.is_some());
            assert_eq!(run.series.len(), n_series, "{file}");
            for (m, v) in ["latency_min", "latency_avg", "latency_max"]
                .iter()
                .zip(lat)
            {
                assert_eq!(value(run, m), Some(Some(*v)), "{file} {m}");
                assert_eq!(unit(run, m), "ms");
            }
            for (m, v) in ["received", "sent", "connections", "outstanding"]
                .iter()
                .zip(counts)
            {
                assert_eq!(value(run, m), Some(Some(*v)), "{file} {m}");
                assert_eq!(unit(run, m), "");
            }
            assert_eq!(value(run, "node_count"), Some(Some(*nodes)), "{file}");
            assert_eq!(value(run, "clients"), clients.map(Some), "{file}");
            assert_eq!(text(run, "zxid"), *zxid);
            assert_eq!(text(run, "mode"), *mode);
            assert!(text(run, "version").starts_with(&file[5..10]), "{file}");
            assert_eq!(blocks[0].label, None);
        }
    }

    #[test]
    fn srvr_version_is_kept_as_printed() {
        let Some(dir) = shared("samples/zookeeper") else {
            return;
        };
        let blocks = parse_ok(
            &FORMAT,
            &std::fs::read(dir.join("srvr-3.4.5-cdh-follower.txt")).unwrap(),
        );
        let run = &blocks[0].runs[0];
        assert_eq!(
            text(run, "version"),
            "3.4.5-cdh5.5.0--1, built on 11/09/2015 20:27 GMT"
        );
        assert_eq!((run.first_line, run.last_line), (1, 9));
    }

    #[test]
    fn mntr_3_4_sample() {
        let Some(dir) = shared("samples/zookeeper") else {
            return;
        };
        let path = dir.join("mntr-3.4.6-standalone.txt");
        assert_eq!(detect_file(&path), Some("zookeeper"));
        let blocks = parse_ok(&FORMAT, &std::fs::read(&path).unwrap());
        assert_eq!(blocks.len(), 1);
        let run = &blocks[0].runs[0];
        assert_eq!(run.series.len(), 13);
        assert_eq!(run.params.len(), 2);
        assert_eq!(
            text(run, "zk_version"),
            "3.4.6-1569965, built on 02/20/2014 09:09 GMT"
        );
        assert_eq!(text(run, "zk_server_state"), "standalone");
        assert_eq!(value(run, "zk_avg_latency"), Some(Some(0.0)));
        assert_eq!(value(run, "zk_max_latency"), Some(Some(52.0)));
        assert_eq!(unit(run, "zk_max_latency"), "ms");
        assert_eq!(value(run, "zk_packets_received"), Some(Some(271.0)));
        assert_eq!(value(run, "zk_packets_sent"), Some(Some(273.0)));
        assert_eq!(unit(run, "zk_packets_sent"), "");
        assert_eq!(value(run, "zk_znode_count"), Some(Some(24.0)));
        assert_eq!(value(run, "zk_approximate_data_size"), Some(Some(713.0)));
        assert_eq!(
            value(run, "zk_max_file_descriptor_count"),
            Some(Some(1048576.0))
        );
        // File order is kept.
        assert_eq!(run.series[0].metric, "zk_avg_latency");
        assert_eq!(run.series[12].metric, "zk_max_file_descriptor_count");
    }

    #[test]
    fn mntr_3_6_sample() {
        let Some(dir) = shared("samples/zookeeper") else {
            return;
        };
        let path = dir.join("mntr-3.6.1-standalone.txt");
        assert_eq!(detect_file(&path), Some("zookeeper"));
        let blocks = parse_ok(&FORMAT, &std::fs::read(&path).unwrap());
        assert_eq!(blocks.len(), 1);
        let run = &blocks[0].runs[0];
        assert_eq!((run.first_line, run.last_line), (1, 441));
        // 441 lines: 2 text parameters and 439 numbers, 5 of them -1 (lines 7, 11, 15, 20, 23).
        assert_eq!(run.series.len(), 434);
        assert_eq!(run.params.len(), 2);
        assert_eq!(text(run, "zk_server_state"), "standalone");
        assert!(
            run.series
                .iter()
                .all(|s| s.data != crate::model::Data::Value { value: None })
        );
        assert_eq!(value(run, "zk_max_file_descriptor_count"), None);
        assert_eq!(value(run, "zk_min_client_response_size"), None);
        assert_eq!(value(run, "zk_uptime"), Some(Some(65612622.0)));
        assert_eq!(value(run, "zk_bytes_received_count"), Some(Some(24.0)));
        assert_eq!(value(run, "zk_avg_latency"), Some(Some(0.0)));
        assert_eq!(unit(run, "zk_avg_latency"), "ms");
        assert_eq!(unit(run, "zk_p999_readlatency"), "ms");
        assert_eq!(unit(run, "zk_cnt_readlatency"), "");
        assert_eq!(unit(run, "zk_avg_read_commitproc_time_ms"), "ms");
        assert_eq!(unit(run, "zk_avg_fsynctime"), "");
        let ms = run.series.iter().filter(|s| s.unit == "ms").count();
        assert_eq!(ms, 180);
    }

    #[test]
    fn srvr_3_9_fixture_with_proposal_sizes() {
        let blocks = parse_ok(&FORMAT, &fixture("zookeeper/srvr-3.9.txt"));
        assert_eq!(blocks.len(), 1);
        let run = &blocks[0].runs[0];
        assert_eq!(value(run, "latency_min"), Some(Some(0.0)));
        assert_eq!(value(run, "latency_avg"), Some(Some(0.5789)));
        assert_eq!(value(run, "latency_max"), Some(Some(412.0)));
        assert_eq!(value(run, "received"), Some(Some(1834.0)));
        assert_eq!(value(run, "sent"), Some(Some(1833.0)));
        assert_eq!(value(run, "connections"), Some(Some(3.0)));
        assert_eq!(value(run, "outstanding"), Some(Some(0.0)));
        assert_eq!(value(run, "node_count"), Some(Some(42.0)));
        assert_eq!(value(run, "proposal_size_last"), Some(Some(92.0)));
        assert_eq!(value(run, "proposal_size_min"), Some(Some(36.0)));
        assert_eq!(value(run, "proposal_size_max"), Some(Some(311.0)));
        assert_eq!(text(run, "mode"), "leader");
        assert_eq!(text(run, "zxid"), "0x20000015a");
        assert_eq!((blocks[0].first_line, blocks[0].last_line), (1, 10));
    }

    #[test]
    fn mntr_3_4_leader_fixture() {
        let blocks = parse_ok(&FORMAT, &fixture("zookeeper/mntr-3.4.txt"));
        assert_eq!(blocks.len(), 1);
        let run = &blocks[0].runs[0];
        assert_eq!(run.series.len(), 19);
        assert_eq!(text(run, "zk_server_state"), "leader");
        assert_eq!(value(run, "zk_avg_latency"), Some(Some(3.0)));
        assert_eq!(value(run, "zk_max_latency"), Some(Some(187.0)));
        assert_eq!(value(run, "zk_followers"), Some(Some(2.0)));
        // `zk_last_proposal_size\t-1` (line 20): none measured yet, so no series.
        assert_eq!(value(run, "zk_last_proposal_size"), None);
        assert_eq!(value(run, "zk_max_proposal_size"), Some(Some(512.0)));
        assert_eq!(unit(run, "zk_max_proposal_size"), "");
    }

    /// A 3.6 leader's `srvr` before any proposal prints `Proposal sizes last/min/max:
    /// -1/-1/-1`: no proposal size series at all, not series without a value.
    #[test]
    fn unset_proposal_sizes_store_nothing() {
        let text = "Zookeeper version: 3.6.1--104dcb3e3fb464b30c5186d229e00af9f332524b, built on 04/21/2020 15:01 GMT\n\
            Latency min/avg/max: 0/0.0/0\nReceived: 1\nSent: 0\nConnections: 1\nOutstanding: 0\n\
            Zxid: 0x100000000\nMode: leader\nNode count: 5\nProposal sizes last/min/max: -1/-1/-1\n";
        let blocks = parse_ok(&FORMAT, text.as_bytes());
        let run = &blocks[0].runs[0];
        assert_eq!(value(run, "node_count"), Some(Some(5.0)));
        assert!(
            !run.series
                .iter()
                .any(|s| s.metric.starts_with("proposal_size"))
        );
    }

    /// `fixtures/real/zookeeper/zookeeper-contrib-monitoring-test.py.txt`: the mntr answer
    /// opens on line 26 (`ZK_MNTR_OUTPUT = """zk_version\t3.4.0--1, …`), the stat answer on
    /// line 48 (`ZK_STAT_OUTPUT = """Zookeeper version: 3.3.0-943314, …`, one client on
    /// line 50); lines 42–46 are a broken two-key fragment, no output.
    #[test]
    fn python_strings_opened_on_the_assignment_line() {
        let path = "real/zookeeper/zookeeper-contrib-monitoring-test.py.txt";
        let blocks = parse_ok(&FORMAT, &fixture(path));
        assert_eq!(blocks.len(), 2);
        let mntr = &blocks[0].runs[0];
        assert_eq!(blocks[0].first_line, 26);
        assert_eq!(
            text(mntr, "zk_version"),
            "3.4.0--1, built on 06/19/2010 15:07 GMT"
        );
        assert_eq!(value(mntr, "zk_avg_latency"), Some(Some(1.0)));
        assert_eq!(
            value(mntr, "zk_max_file_descriptor_count"),
            Some(Some(1024.0))
        );
        let stat = &blocks[1].runs[0];
        assert_eq!(blocks[1].first_line, 48);
        assert_eq!(
            text(stat, "version"),
            "3.3.0-943314, built on 05/11/2010 22:20 GMT"
        );
        assert_eq!(value(stat, "clients"), Some(Some(1.0)));
        assert_eq!(value(stat, "latency_avg"), Some(Some(40.0)));
        assert_eq!(value(stat, "node_count"), Some(Some(4.0)));
        assert_eq!(
            crate::testutil::warnings(&FORMAT, &fixture(path)),
            [(
                42,
                "2 `zk_` line(s) (lines 42–43) are too few for a mntr output: skipped".to_string()
            )]
        );
    }

    #[test]
    fn two_labelled_stat_outputs_in_markdown() {
        let blocks = parse_ok(&FORMAT, &fixture("zookeeper/stat-before-after.md"));
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].label.as_deref(), Some("Before the change"));
        assert_eq!(blocks[1].label.as_deref(), Some("After the change"));
        let (a, b) = (&blocks[0].runs[0], &blocks[1].runs[0]);
        assert_eq!(value(a, "latency_avg"), Some(Some(7.0)));
        assert_eq!(value(a, "latency_max"), Some(Some(1890.0)));
        assert_eq!(value(a, "clients"), Some(Some(3.0)));
        assert_eq!(value(b, "latency_avg"), Some(Some(2.0)));
        assert_eq!(value(b, "outstanding"), Some(Some(1.0)));
        assert_eq!(value(b, "clients"), None);
        assert_eq!((blocks[0].first_line, blocks[0].last_line), (5, 18));
        assert_eq!((blocks[1].first_line, blocks[1].last_line), (22, 30));
    }

    #[test]
    fn latency_junk_is_an_error_at_its_line() {
        let e = parse_err(&FORMAT, &fixture("malformed/zookeeper-latency-junk.txt"));
        assert_eq!(e.line, 2);
        assert!(e.message.contains("`x/y`"), "{}", e.message);
    }

    #[test]
    fn bad_counter_and_cut_off_outputs_are_errors() {
        let e = parse_err(
            &FORMAT,
            b"Zookeeper version: 3.4.6\nLatency min/avg/max: 0/1/2\nReceived: 12a\n",
        );
        assert_eq!(e.line, 3);
        assert!(e.message.contains("`12a`"));
        let e = parse_err(
            &FORMAT,
            b"Zookeeper version: 3.4.6\nLatency min/avg/max: 0/1/2\nReceived: 12\n",
        );
        assert_eq!(e.line, 3);
        assert!(e.message.contains("Node count"));
        let e = parse_err(&FORMAT, b"Zookeeper version: 3.4.6\nClients:\n");
        assert_eq!(e.line, 2);
    }

    #[test]
    fn scientific_average_and_crlf() {
        let blocks = parse_ok(
            &FORMAT,
            b"Latency min/avg/max: 0/1.0E-4/3\r\nReceived: 5\r\nNode count: 4\r\n",
        );
        let run = &blocks[0].runs[0];
        assert_eq!(value(run, "latency_avg"), Some(Some(1.0e-4)));
        assert_eq!(value(run, "node_count"), Some(Some(4.0)));
    }

    #[test]
    fn version_in_prose_is_a_warning_not_a_block() {
        let input = b"Zookeeper version: 3.5 is what we ran.\nNothing else here.\n";
        assert!(parse_ok(&FORMAT, input).is_empty());
        assert_eq!(warnings(&FORMAT, input).len(), 1);
    }

    #[test]
    fn not_serving_is_a_warning() {
        let input = b"This ZooKeeper instance is not currently serving requests\n";
        assert!(parse_ok(&FORMAT, input).is_empty());
        assert_eq!(warnings(&FORMAT, input)[0].0, 1);
    }

    /// `text` cut after `upto`, a prefix of `line` (the cut falls inside that line).
    fn cut_at<'t>(text: &'t str, line: &str, upto: &str) -> &'t [u8] {
        assert!(line.starts_with(upto), "{upto} is not a prefix of {line}");
        &text.as_bytes()[..text.find(line).expect("the line") + upto.len()]
    }

    fn real(name: &str) -> String {
        String::from_utf8(fixture(&format!("real/zookeeper/{name}"))).unwrap()
    }

    /// zookeeper-in-docker-swarm-3-servers.md.txt cut inside the 3.4.13 leader's last line
    /// (line 108, `Proposal sizes last/min/max: -1/-1/-1` cut to `-1/-1/-`): the line is
    /// left out with a warning, the output before it is stored (`Received: 12`, `Node
    /// count: 4`).
    #[test]
    fn proposal_sizes_cut_short_are_left_out() {
        let text = real("zookeeper-in-docker-swarm-3-servers.md.txt");
        let line = "Proposal sizes last/min/max: -1/-1/-1";
        let cut = cut_at(&text, line, &line[..line.len() - 1]);
        let blocks = parse_ok(&FORMAT, cut);
        let run = &blocks[2].runs[0];
        assert_eq!(crate::testutil::text(run, "mode"), "leader");
        assert_eq!(value(run, "received"), Some(Some(12.0)));
        assert_eq!(value(run, "node_count"), Some(Some(4.0)));
        assert_eq!(blocks[2].last_line, 107);
        let w = warnings(&FORMAT, cut);
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].0, 108);
        assert!(
            w[0].1.contains("`Proposal sizes last/min/max: -1/-1/-`"),
            "{}",
            w[0].1
        );
    }

    /// srvr-3.9.txt (a leader) cut inside `Node count: 42` (line 10) and inside its last
    /// line `Proposal sizes last/min/max: 92/36/311`: the bare `4` is stored with a warning
    /// (a 3.9 leader prints `Proposal sizes` after it); `92/36/` is left out.
    #[test]
    fn a_leaders_node_count_the_input_ends_on_is_kept_with_a_warning() {
        let text = String::from_utf8(fixture("zookeeper/srvr-3.9.txt")).unwrap();
        let cut = cut_at(&text, "Node count: 42", "Node count: 4");
        let blocks = parse_ok(&FORMAT, cut);
        assert_eq!(value(&blocks[0].runs[0], "node_count"), Some(Some(4.0)));
        let w = warnings(&FORMAT, cut);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].1.contains("`Proposal sizes last/min/max:`"),
            "{}",
            w[0].1
        );

        let line = "Proposal sizes last/min/max: 92/36/311";
        let cut = cut_at(&text, line, "Proposal sizes last/min/max: 92/36/");
        let blocks = parse_ok(&FORMAT, cut);
        let run = &blocks[0].runs[0];
        assert_eq!(value(run, "node_count"), Some(Some(42.0)));
        assert_eq!(value(run, "proposal_size_last"), None);
        assert_eq!(warnings(&FORMAT, cut).len(), 1);
    }

    /// zookeeper-contrib-monitoring-README.txt (a 3.4.0 mntr) cut inside
    /// `zk_packets_received 385466` (line 27): `3854` is stored with a warning, since 3.4
    /// always prints `zk_packets_sent` next; the keys before it are whole.
    #[test]
    fn a_3_4_mntr_count_the_input_ends_on_is_kept_with_a_warning() {
        let text = real("zookeeper-contrib-monitoring-README.txt");
        let cut = cut_at(
            &text,
            "zk_packets_received 385466",
            "zk_packets_received 3854",
        );
        let blocks = parse_ok(&FORMAT, cut);
        let run = &blocks[0].runs[0];
        assert_eq!(value(run, "zk_max_latency"), Some(Some(1788.0)));
        assert_eq!(value(run, "zk_packets_received"), Some(Some(3854.0)));
        let w = warnings(&FORMAT, cut);
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].0, 27);
        assert!(w[0].1.contains("`zk_packets_sent`"), "{}", w[0].1);
    }

    /// The 3.6.1 mntr sample cut inside `zk_avg_latency\t0.0` (line 5) after its `0`: a 3.6
    /// `zk_avg_` value is a double, so `0` is cut short and left out; the four keys before it
    /// are stored.
    #[test]
    fn a_3_6_average_without_its_point_is_left_out() {
        let Some(dir) = shared("samples/zookeeper") else {
            return;
        };
        let text = std::fs::read_to_string(dir.join("mntr-3.6.1-standalone.txt")).unwrap();
        let cut = cut_at(&text, "zk_avg_latency\t0.0", "zk_avg_latency\t0");
        let blocks = parse_ok(&FORMAT, cut);
        let run = &blocks[0].runs[0];
        assert_eq!(value(run, "zk_min_latency"), Some(Some(0.0)));
        assert_eq!(value(run, "zk_avg_latency"), None);
        assert_eq!(blocks[0].last_line, 4);
        let w = warnings(&FORMAT, cut);
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].0, 5);
    }

    #[test]
    fn a_whole_file_without_its_final_newline_reads_the_same() {
        let n =
            crate::testutil::final_newline_changes_nothing(&FORMAT, "zookeeper", "zookeeper", "");
        assert!(n >= 10, "{n}");
    }

    #[test]
    fn printed_forms() {
        let v36 = Some((3, 6, 1));
        assert!(mntr_whole("zk_avg_latency", "0.7561", v36));
        assert!(mntr_whole("zk_avg_latency", "1.0E-4", v36));
        assert!(mntr_whole("zk_avg_latency", "7", Some((3, 4, 6))));
        assert!(mntr_whole("zk_server_state", "follower", v36));
        assert!(!mntr_whole("zk_avg_latency", "7", v36));
        assert!(!mntr_whole("zk_avg_latency", "0.", v36));
        assert!(!mntr_whole("zk_avg_latency", "1.0E-", v36));
        assert!(!mntr_whole("zk_packets_sent", "-", v36));
        assert!(proposal_sizes_whole(" -1/-1/-1"));
        assert!(!proposal_sizes_whole(" 92/36/"));
        assert_eq!(
            zk_version("3.4.6-1569965, built on 02/20/2014"),
            Some((3, 4, 6))
        );
        assert_eq!(zk_version("v21.11.1.1-prestable"), None);
    }

    #[test]
    fn fixtures_snapshot() {
        insta::glob!("../../../fixtures/zookeeper", "*.*", |path| {
            let blocks = parse_ok(&FORMAT, &std::fs::read(path).unwrap());
            insta::assert_json_snapshot!(blocks);
        });
    }

    #[test]
    fn junk_and_empty_input_yield_nothing() {
        assert!(parse_ok(&FORMAT, b"").is_empty());
        let junk: Vec<u8> = (0..20_000u32).map(|i| (i * 7919 % 251) as u8).collect();
        assert!((FORMAT.parse)(Box::new(&junk[..])).all(|r| r.is_ok()));
    }

    const FAMILY: [&Format; 3] = [
        &FORMAT,
        &crate::formats::zk_benchmark::FORMAT,
        &crate::formats::arthas::FORMAT,
    ];

    /// Forced onto any other format's file, each parser yields blocks or an error, and
    /// stops after an error.
    #[test]
    fn parsers_never_panic_on_shared_files() {
        let Some(paths) = crate::testutil::shared_files() else {
            return;
        };
        for p in paths {
            let bytes = std::fs::read(&p).unwrap();
            for f in FAMILY {
                let results: Vec<_> = (f.parse)(Box::new(&bytes[..])).collect();
                if let Some(i) = results.iter().position(Result::is_err) {
                    assert_eq!(i + 1, results.len(), "{} on {}", f.name, p.display());
                }
            }
        }
    }

    /// Every seed and sample: the three ZooKeeper-family sniffers claim exactly their own.
    #[test]
    fn sniffers_claim_only_their_files() {
        let formats = FAMILY;
        let Some(paths) = crate::testutil::shared_files() else {
            return;
        };
        assert!(paths.len() > 40);
        for p in paths {
            let s = p.to_string_lossy();
            let name = p.file_name().unwrap().to_string_lossy();
            let expected = if s.contains("/samples/arthas/") || name.starts_with("004_") {
                Some("arthas")
            } else if name.starts_with("zk-benchmark-") {
                Some("zk-benchmark")
            } else if s.contains("/samples/zookeeper/") {
                Some("zookeeper")
            } else {
                None
            };
            for (format, confidence) in sniff_files(&p, &formats) {
                assert_eq!(
                    confidence > 0,
                    Some(format) == expected,
                    "{format} sniffs {s} at {confidence}"
                );
            }
            if expected.is_some() {
                assert_eq!(detect_file(&p), expected, "{s}");
            }
        }
    }
}
