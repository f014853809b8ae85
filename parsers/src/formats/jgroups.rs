//! JGroups performance-test output: the 2006 result tables, MPerf, UPerf and the old
//! perf.Test, as described in `FORMATS.md` §3. Lines of other shapes are ignored.
//!
//! Input shapes (one block each; fixtures in `fixtures/jgroups/`, e.g. `table-2006.txt`):
//! - the 2006 web-report table: `Test Run #` and `Number of messages read per second`, either
//!   one cell per line (blank lines between) or as a tab/`|`-separated header and rows
//!   (`1\t13402`). One run per row, index = the printed run number; metric `msgs_per_sec`.
//! - MPerf `Results:`: one `<addr>: <n> msgs, <size> received, [time=<t> ms, ]msgs/sec=<x>,
//!   throughput=<size>` line per member (one run each, parameter `member`), then the
//!   `Average/node:` / `Average/cluster:` lines (`Avg/…` in 2013) between lines of `=`,
//!   kept as printed block statistics `avg_node` / `avg_cluster`. The time-based MPerf's
//!   view and parameter lines after `Results:` are read too; its optional per-sender list
//!   after a member's throughput is not kept (the member totals cover it).
//! - UPerf `==== Results: ====`: one `<addr>: <x> reqs/sec (…)` line per member (metric
//!   `reqs_per_sec`, counts `gets`/`puts`, round trips `get_rtt`/`put_rtt` in `us`), then the
//!   `Throughput:` and `Roundtrip:` lines (or the 2011 `Average of …` line) as block
//!   statistics (`per_node`, `per_cluster`, `min`/`avg`/`max`). A member that answered `null`
//!   or an exception is a warning, not a run.
//! - perf.Test (2004–2011): the final `-- results:` (`<addr>[ (myself)]:` then a `MemberInfo`
//!   line per member, closed by `combined: …`), and a receiver's own view of its senders
//!   (`sender: <addr>: <MemberInfo>` lines, after `-- local results:`, `-- results from
//!   <addr>:` (parameter `receiver`) or no heading at all, optionally closed by
//!   `combined: <MemberInfo>`). The `combined:` line is kept as printed block statistics
//!   and as a run of its own (member `combined`, series `combined_msgs_per_sec`,
//!   `combined_throughput`, and `combined_time` … when a `MemberInfo`), beside the
//!   members'. Its separate gnuplot output file is not this format.
//!
//! Results that the input ends inside keep the member lines printed in full, with a warning;
//! results cut before any member line are an error.
//!
//! Sizes are decimal (`137.61MB` = 137 610 000 bytes), grouping commas are dropped and
//! `Util.printTime` durations are converted to microseconds (module `values`). ANSI colours
//! are stripped by the line reader.
//!
//! Configuration: a line made only of `key=value` pairs (`num_msgs=1000000 msg_size=1000
//! num_members=4 num_senders=4`, MPerf's `time=60` parameter lines, the `sync=true, …` pairs of
//! UPerf's `invoking …` line), MPerf's `-- sending <n> msgs`, and the `key: value` lines after
//! `Configuration is:` or under a `---- TEST ----` / `---- MPerf ----` banner set run
//! parameters (numbers as numbers, `true`/`false` as flags, versions as text). A setting
//! applies to every block after it (later values replace earlier ones). Blocks printed before
//! any configuration (seed 002 prints its `config.txt` after the tables) take the
//! configuration the file prints after them: such blocks are held until the next block
//! starts or the input ends, which costs little since a block holds one short record per run.
//! A run's own parameters (`member`, `receiver`) win over the file's.
//!
//! Identity: `bench` is the test: `MPerf`, `UPerf`, or `perf.Test` (its results, and the
//! 2006 report tables of its runs). `config` is the file's configuration above (`num_msgs`,
//! `msg_size`, `num_members`, …) but the banner's `Date:` and `Run by:`, which describe the
//! run (plain params `date`, `run_by`); a run's `member` or `receiver` is a plain param, as
//! the members of one test are its replicates. One block is one test's result output; no
//! timestamp is printed.
//!
//! Per-interval progress lines (`-- received …`, `++ sent …`, `1: … msgs/sec`) are not kept:
//! the result block summarises them. They, the interactive menus and the configuration lines
//! are also not label candidates, so a block's label comes from the prose around the output.

mod records;
mod values;

use crate::error::ParseError;
use crate::format::{Format, Head, ParseIter};
use crate::lines::{LineMachine, Queue, drive};
use crate::model::{Block, Param, Run, Series};
use crate::text::{LabelTracker, metric_name};
use records::Field;
use regex::{Regex, RegexSet};
use std::collections::BTreeMap;
use std::io::BufRead;
use std::sync::LazyLock;

/// Banner entries that describe one run of a test, not its settings (`Date:`, `Run by:`):
/// kept as parameters, left out of the configuration so that two runs of one test on
/// different days are replicates.
const RUN_METADATA: &[&str] = &["date", "run_by"];

/// The bench of perf.Test results, and of the 2006 report tables of its runs.
const PERF_TEST: &str = "perf.Test";

/// The format entry for the registry.
pub const FORMAT: Format = Format::new("jgroups", "1", sniff, parse).claims_at_most(95);

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("valid pattern")
}

/// Optional ANSI colour codes and spaces that may start a line in raw terminal output.
const LEAD: &str = r"(?:\x1b\[[0-9;]*m|[ \t])*";

/// Distinctive JGroups lines and how sure each makes us: one set, so that a head is read
/// once for all of them (one pass each took 2 ms of a 256 KiB head).
static SNIFFERS: LazyLock<(RegexSet, Vec<u8>)> = LazyLock::new(|| {
    let patterns = [
        // The 2006 table, one cell per line or header cells on one line.
        (
            r"(?mi)^[ \t]*test run #[ \t]*\r?\n(?:[ \t]*\r?\n)*[ \t]*number of messages read per second[ \t]*\r?$".to_string(),
            90,
        ),
        (
            r"(?mi)^[ \t|]*test run #[ \t]*(?:\t|\||[ ]{2,})[ \t]*number of messages read per second".to_string(),
            90,
        ),
        // MPerf.
        (
            format!(r"(?m)^{LEAD}(?:Average|Avg)/(?:node|cluster):[ \t]+\S+ msgs, \S+ received, "),
            95,
        ),
        (
            r"(?m)^\S[^\n]*?: \S+ msgs, \S+ received, (?:time=\S+ ?ms, )?msgs/sec=\S+, throughput=".to_string(),
            85,
        ),
        (
            r"(?m)^-- received \S+ msgs \(\S+ ms, \S+ msgs/sec, ".to_string(),
            70,
        ),
        // UPerf.
        (format!(r"(?m)^{LEAD}Throughput: \S+ reqs/sec/node \("), 95),
        (
            r"(?m)^\S[^\n]*?: \S+ reqs/sec \(\S+ (?:gets, \S+ puts, get RTT|GETs, \S+ PUTs total)".to_string(),
            90,
        ),
        (
            format!(r"(?m)^{LEAD}Average of \S+ requests / sec \(\S+ ?/ sec\), \S+ ms /request"),
            90,
        ),
        // perf.Test.
        (
            r"(?m)^combined: \S+ msgs/sec averaged over all receivers".to_string(),
            95,
        ),
        (
            r"(?m)^(?:sender: [^\n]*?: )?num_msgs_expected=\S+, num_msgs_received=".to_string(),
            90,
        ),
    ];
    let set = RegexSet::new(patterns.iter().map(|(p, _)| p)).expect("valid patterns");
    (set, patterns.iter().map(|&(_, c)| c).collect())
});

/// Confidence that `head` is JGroups output: only its distinctive result lines count.
pub fn sniff(head: &Head) -> u8 {
    let (set, confidence) = &*SNIFFERS;
    set.matches(head.text)
        .iter()
        .map(|i| confidence[i])
        .max()
        .unwrap_or(0)
}

/// Parses JGroups output, yielding blocks as they complete (see the module doc for when
/// blocks printed before their configuration are held back).
pub fn parse<'a>(r: Box<dyn BufRead + 'a>) -> ParseIter<'a> {
    drive(r, Machine::default())
}

impl LineMachine for Machine {
    fn feed(&mut self, line: &str, n: u64) -> Result<(), ParseError> {
        Machine::feed(self, line, n)
    }

    fn finish(&mut self, last: u64) -> Result<(), ParseError> {
        self.end(last)
    }

    fn queue(&mut self) -> &mut Queue {
        &mut self.out
    }
}

/// Line shapes that decide what the machine does (matched on the trimmed line).
mod shape {
    use super::{LazyLock, Regex, re};

    pub static TABLE_RUN_HEAD: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)^test run\s*#$"));
    pub static TABLE_VALUE_HEAD: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?i)^number of messages read per second$"));
    pub static TABLE_INLINE_HEAD: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)^\|?\s*test run\s*#\s*(?:\t|\||\s{2,})\s*number of messages read per second\s*\|?$",
        )
    });
    pub static TABLE_ROW: LazyLock<Regex> =
        LazyLock::new(|| re(r"^\|?\s*(\d+)\s*(?:\t|\||\s+)\s*([^\s|]+)\s*\|?$"));
    pub static TABLE_ROW_NO_VALUE: LazyLock<Regex> = LazyLock::new(|| re(r"^\|?\s*(\d+)\s*\|?$"));
    pub static MARKDOWN_RULE: LazyLock<Regex> =
        LazyLock::new(|| re(r"^\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?$"));
    pub static MPERF_HEAD: LazyLock<Regex> = LazyLock::new(|| re(r"^Results:$"));
    pub static MPERF_MEMBER: LazyLock<Regex> = LazyLock::new(|| re(r"^(\S.*?): (\S+ msgs, .*)$"));
    pub static MPERF_AVERAGE: LazyLock<Regex> =
        LazyLock::new(|| re(r"^(?:Average|Avg)/(node|cluster):\s+(.*)$"));
    pub static RULE: LazyLock<Regex> = LazyLock::new(|| re(r"^={10,}$"));
    pub static UPERF_HEAD: LazyLock<Regex> = LazyLock::new(|| re(r"^=+\s*Results:\s*=+$"));
    pub static UPERF_MEMBER: LazyLock<Regex> =
        LazyLock::new(|| re(r"^(\S.*?): (\S+ reqs/sec .*)$"));
    pub static ADDRESSED: LazyLock<Regex> = LazyLock::new(|| re(r"^(\S.*?): (.*)$"));
    pub static PERF_HEAD: LazyLock<Regex> = LazyLock::new(|| re(r"^-- results:$"));
    pub static PERF_FROM: LazyLock<Regex> = LazyLock::new(|| re(r"^-- results from (\S.*?):$"));
    pub static PERF_LOCAL_HEAD: LazyLock<Regex> = LazyLock::new(|| re(r"^-- local results:$"));
    pub static PERF_MEMBER: LazyLock<Regex> = LazyLock::new(|| re(r"^(\S.*?)( \(myself\))?:$"));
    pub static PERF_SENDER: LazyLock<Regex> =
        LazyLock::new(|| re(r"^sender: (\S.*?): (num_msgs_expected=.*)$"));
    pub static BANNER: LazyLock<Regex> =
        LazyLock::new(|| re(r"^-{5,}\s*(?:TEST|MPerf|UPerf)\s*-{5,}$"));
    pub static BANNER_ENTRY: LazyLock<Regex> =
        LazyLock::new(|| re(r"^([A-Za-z][\w .]*?):\s+(\S.*)$"));
    pub static CONFIG_PAIR: LazyLock<Regex> =
        LazyLock::new(|| re(r#"^([A-Za-z_][\w.-]*)=([^\s=,"'<>]+)$"#));
    pub static UPERF_INVOKING: LazyLock<Regex> =
        LazyLock::new(|| re(r"^invoking (\d+) RPCs of (\S+?),\s*(.*)$"));
    pub static MPERF_SENDING: LazyLock<Regex> = LazyLock::new(|| re(r"^-- sending (\d+) msgs$"));
    /// Progress and status lines of the tools: never labels, never results.
    pub static TOOL_LINE: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"^(?:-- |\+\+ |\*\* |\d+: \S+ (?:msgs|reqs)/sec|done \(in |invoking \d+ RPCs|running (?:test )?for |view: |invoker \S+: gets |avg over all invokers: |\[\w\] |\.+$)",
        )
    });
}

/// The configuration pairs of a line made only of `key=value` pairs (space- or
/// comma-separated), or `None` when the line is anything else.
fn config_pairs(line: &str) -> Option<Vec<(String, Param)>> {
    let mut pairs = Vec::new();
    for token in line.split([' ', '\t', ',']).filter(|t| !t.is_empty()) {
        let c = shape::CONFIG_PAIR.captures(token)?;
        pairs.push((c[1].to_string(), values::param(&c[2])));
    }
    (!pairs.is_empty()).then_some(pairs)
}

/// The block being read and where in it we are.
#[derive(Default)]
enum State {
    #[default]
    Idle,
    /// A lone `Test Run #` line: a table if the column heading follows.
    TableHead {
        text: String,
        line: u64,
        /// Blank lines came after it (they matter to the label if it is prose).
        blank_after: bool,
    },
    Table(Table),
    MPerf(MPerf),
    UPerf(UPerf),
    PerfTest(PerfTest),
    /// `key: value` lines under a `---- TEST ----` banner.
    Banner,
}

struct Table {
    block: Block,
    /// `Test Run #` and the value on lines of their own, rather than cells of one row.
    vertical: bool,
    /// Vertical layout: the run number (and its line) still waiting for its value.
    open_run: Option<(u32, u64)>,
}

struct MPerf {
    block: Block,
    phase: MPhase,
}

#[derive(PartialEq)]
enum MPhase {
    /// After `Results:`: only a member line or a rule makes this a real block.
    Opening,
    Members,
    Averages,
}

struct UPerf {
    block: Block,
    phase: UPhase,
}

#[derive(PartialEq)]
enum UPhase {
    Members,
    Roundtrip,
    RoundtripPuts,
}

struct PerfTest {
    block: Block,
    /// The final `-- results:` of 2006, which only `combined:` closes; a receiver's own
    /// results (`-- local results:`, `-- results from <addr>:`) may simply stop.
    strict: bool,
    /// The `<addr>:` line announcing the next `MemberInfo` line.
    member: Option<String>,
    /// The receiver of `-- results from <addr>:`, a parameter of its runs.
    receiver: Option<String>,
}

/// What a state handler decided about the line it saw.
enum Flow {
    /// Line consumed; continue in this state.
    Stay(State),
    /// Line not consumed: handle it again in this state.
    Again(State),
}

#[derive(Default)]
struct Machine {
    state: State,
    labels: LabelTracker,
    config: BTreeMap<String, Param>,
    held: Vec<Block>,
    out: Queue,
}

impl Machine {
    fn feed(&mut self, line: &str, n: u64) -> Result<(), ParseError> {
        let mut state = std::mem::take(&mut self.state);
        loop {
            let flow = match state {
                State::Idle => self.idle(line, n),
                State::TableHead {
                    text,
                    line: at,
                    blank_after,
                } => self.table_head(text, at, blank_after, line, n),
                State::Table(t) => self.table(t, line, n)?,
                State::MPerf(m) => self.mperf(m, line, n)?,
                State::UPerf(u) => self.uperf(u, line, n)?,
                State::PerfTest(p) => self.perf_test(p, line, n)?,
                State::Banner => self.banner(line),
            };
            match flow {
                Flow::Stay(s) => {
                    self.state = s;
                    return Ok(());
                }
                Flow::Again(s) => state = s,
            }
        }
    }

    /// Starts a block at line `n`: its label, and the held blocks' turn to be released
    /// once the file has printed a configuration for them.
    fn open(&mut self, n: u64) -> Block {
        if !self.config.is_empty() {
            self.release_held();
        }
        // The block's first line closes a short lead line just as a blank line would.
        self.labels.observe("");
        Block {
            label: self.labels.label(),
            first_line: n,
            last_line: n,
            ..Block::default()
        }
    }

    /// Files a finished block of the test `bench` (`MPerf`, `UPerf`, `perf.Test`).
    fn finish(&mut self, mut block: Block, bench: &str) {
        if block.runs.is_empty() && block.printed.is_empty() {
            return;
        }
        for run in &mut block.runs {
            run.bench = Some(bench.to_string());
        }
        if self.config.is_empty() {
            self.held.push(block);
        } else {
            self.release_held();
            self.emit(block);
        }
    }

    fn release_held(&mut self) {
        for block in std::mem::take(&mut self.held) {
            self.emit(block);
        }
    }

    fn emit(&mut self, mut block: Block) {
        for run in &mut block.runs {
            for (k, v) in &self.config {
                if run.params.contains_key(k) {
                    continue;
                }
                if RUN_METADATA.contains(&k.as_str()) {
                    run.params.insert(k.clone(), v.clone());
                } else {
                    run.set_config(k.clone(), v.clone());
                }
            }
        }
        self.out.block(block);
    }

    fn warn(&mut self, line: u64, message: String) {
        self.out.warning(line, message);
    }

    fn set_config(&mut self, pairs: Vec<(String, Param)>) {
        self.config.extend(pairs);
    }

    fn idle(&mut self, line: &str, n: u64) -> Flow {
        let t = line.trim();
        if shape::TABLE_RUN_HEAD.is_match(t) {
            return Flow::Stay(State::TableHead {
                text: t.to_string(),
                line: n,
                blank_after: false,
            });
        }
        if shape::TABLE_INLINE_HEAD.is_match(t) {
            return Flow::Stay(State::Table(Table {
                block: self.open(n),
                vertical: false,
                open_run: None,
            }));
        }
        if shape::MPERF_HEAD.is_match(t) {
            return Flow::Stay(State::MPerf(MPerf {
                block: self.open(n),
                phase: MPhase::Opening,
            }));
        }
        if shape::UPERF_HEAD.is_match(t) {
            return Flow::Stay(State::UPerf(UPerf {
                block: self.open(n),
                phase: UPhase::Members,
            }));
        }
        let from = shape::PERF_FROM.captures(t).map(|c| c[1].to_string());
        let strict = shape::PERF_HEAD.is_match(t);
        if strict || from.is_some() || shape::PERF_LOCAL_HEAD.is_match(t) {
            return Flow::Stay(State::PerfTest(PerfTest {
                block: self.open(n),
                strict,
                member: None,
                receiver: from,
            }));
        }
        if shape::PERF_SENDER.is_match(t) {
            // A pure receiver prints its senders with no heading (2004–2005).
            return Flow::Again(State::PerfTest(PerfTest {
                block: self.open(n),
                strict: false,
                member: None,
                receiver: None,
            }));
        }
        if let Some(rest) = t.strip_prefix("Configuration is:") {
            // 2004–2005 print the first `key:<tab>value` entry on this line.
            self.banner_entry(rest);
            return Flow::Stay(State::Banner);
        }
        if shape::BANNER.is_match(t) {
            return Flow::Stay(State::Banner);
        }
        if let Some(c) = shape::UPERF_INVOKING.captures(t) {
            let mut pairs = vec![("num_msgs".to_string(), values::param(&c[1]))];
            if let Some(size) = values::bytes(&c[2]) {
                pairs.push(("msg_size".to_string(), Param::Num(size)));
            }
            pairs.extend(config_pairs(&c[3]).unwrap_or_default());
            self.set_config(pairs);
            return Flow::Stay(State::Idle);
        }
        if let Some(c) = shape::MPERF_SENDING.captures(t) {
            self.set_config(vec![("num_msgs".to_string(), values::param(&c[1]))]);
            return Flow::Stay(State::Idle);
        }
        if let Some(pairs) = config_pairs(t) {
            self.set_config(pairs);
            return Flow::Stay(State::Idle);
        }
        if !shape::TOOL_LINE.is_match(t) {
            self.labels.observe(line);
        }
        Flow::Stay(State::Idle)
    }

    fn table_head(&mut self, text: String, at: u64, blank_after: bool, line: &str, n: u64) -> Flow {
        let t = line.trim();
        if t.is_empty() {
            return Flow::Stay(State::TableHead {
                text,
                line: at,
                blank_after: true,
            });
        }
        if shape::TABLE_VALUE_HEAD.is_match(t) {
            return Flow::Stay(State::Table(Table {
                block: Block {
                    last_line: n,
                    ..self.open(at)
                },
                vertical: true,
                open_run: None,
            }));
        }
        // Not a table after all: the heading was prose.
        self.labels.observe(&text);
        if blank_after {
            self.labels.observe("");
        }
        Flow::Again(State::Idle)
    }

    fn table(&mut self, mut tb: Table, line: &str, n: u64) -> Result<Flow, ParseError> {
        let t = line.trim();
        if t.is_empty() && (tb.vertical || tb.block.runs.is_empty()) {
            return Ok(Flow::Stay(State::Table(tb)));
        }
        let starts_numeric = t.starts_with(|c: char| c.is_ascii_digit() || "+-.".contains(c));
        if let Some((run, run_line)) = tb.open_run.take() {
            if !starts_numeric {
                return Err(ParseError::new(
                    n,
                    format!("table cut off: test run {run} (line {run_line}) has no value"),
                ));
            }
            let value = table_value(run, t, n)?;
            push_table_run(&mut tb.block, run, run_line, n, value);
            return Ok(Flow::Stay(State::Table(tb)));
        }
        // A whole row on one line, also accepted under a heading printed one cell per line.
        if let Some(c) = shape::TABLE_ROW.captures(t) {
            let run = run_number(&c[1], n)?;
            let value = table_value(run, &c[2], n)?;
            push_table_run(&mut tb.block, run, n, n, value);
            return Ok(Flow::Stay(State::Table(tb)));
        }
        if let Some(c) = shape::TABLE_ROW_NO_VALUE.captures(t) {
            let run = run_number(&c[1], n)?;
            if !tb.vertical {
                return Err(ParseError::new(
                    n,
                    format!("test run {run} has no number of messages per second"),
                ));
            }
            tb.open_run = Some((run, n));
            return Ok(Flow::Stay(State::Table(tb)));
        }
        if !tb.vertical && shape::MARKDOWN_RULE.is_match(t) {
            return Ok(Flow::Stay(State::Table(tb)));
        }
        if tb.vertical && starts_numeric {
            return Err(ParseError::new(
                n,
                format!("'{t}' is not a test run number (a whole number such as 1)"),
            ));
        }
        if tb.block.runs.is_empty() {
            return Err(ParseError::new(
                n,
                format!(
                    "the 'Test Run #' table that starts at line {} has no rows",
                    tb.block.first_line
                ),
            ));
        }
        self.finish(tb.block, PERF_TEST);
        Ok(Flow::Again(State::Idle))
    }

    fn mperf(&mut self, mut m: MPerf, line: &str, n: u64) -> Result<Flow, ParseError> {
        let t = line.trim();
        if t.is_empty() {
            return Ok(Flow::Stay(State::MPerf(m)));
        }
        if m.phase != MPhase::Averages
            && let Some(c) = shape::MPERF_MEMBER.captures(t)
        {
            let fields = records::mperf_stats(&c[2]).map_err(|e| ParseError::new(n, e))?;
            let index = m.block.runs.len() as u32 + 1;
            m.block.runs.push(member_run(index, n, &c[1], &fields));
            m.block.last_line = n;
            m.phase = MPhase::Members;
            return Ok(Flow::Stay(State::MPerf(m)));
        }
        if shape::RULE.is_match(t) {
            m.block.last_line = n;
            if m.phase == MPhase::Averages {
                if m.block.runs.is_empty() && m.block.printed.is_empty() {
                    self.warn(n, "MPerf received no results".to_string());
                }
                self.finish(m.block, "MPerf");
                return Ok(Flow::Stay(State::Idle));
            }
            m.phase = MPhase::Averages;
            return Ok(Flow::Stay(State::MPerf(m)));
        }
        match m.phase {
            MPhase::Opening => {
                // MPerf 2020+ prints the view and its parameters before the members.
                if t.starts_with("view: ") || t.starts_with("Date: ") {
                    return Ok(Flow::Stay(State::MPerf(m)));
                }
                if let Some(pairs) = config_pairs(t) {
                    self.set_config(pairs);
                    return Ok(Flow::Stay(State::MPerf(m)));
                }
                // A prose "Results:" heading, not MPerf output.
                self.labels.observe("Results:");
                Ok(Flow::Again(State::Idle))
            }
            MPhase::Members => Err(ParseError::new(
                n,
                format!(
                    "MPerf results cut off: expected '<addr>: <n> msgs, …' or a line of '=', found '{t}'"
                ),
            )),
            MPhase::Averages => {
                if let Some(c) = shape::MPERF_AVERAGE.captures(t) {
                    let fields = records::mperf_stats(&c[2]).map_err(|e| ParseError::new(n, e))?;
                    let name = format!("avg_{}", &c[1]);
                    m.block
                        .printed
                        .extend(fields.iter().map(|f| f.printed(&name)));
                    m.block.last_line = n;
                    return Ok(Flow::Stay(State::MPerf(m)));
                }
                if t == "Received no results" {
                    return Ok(Flow::Stay(State::MPerf(m)));
                }
                if m.block.runs.is_empty() && m.block.printed.is_empty() {
                    // A prose "Results:" heading underlined with '=', not MPerf output.
                    self.labels.observe("Results:");
                    return Ok(Flow::Again(State::Idle));
                }
                Err(ParseError::new(
                    n,
                    format!(
                        "MPerf results cut off: expected ' Average/node:', ' Average/cluster:' or a closing line of '=', found '{t}'"
                    ),
                ))
            }
        }
    }

    fn uperf(&mut self, mut u: UPerf, line: &str, n: u64) -> Result<Flow, ParseError> {
        let t = line.trim();
        if t.is_empty() {
            return Ok(Flow::Stay(State::UPerf(u)));
        }
        let err = |e: String| ParseError::new(n, e);
        match u.phase {
            UPhase::Members => {
                if t.starts_with("Throughput:") {
                    let fields = records::uperf_throughput(t).map_err(err)?;
                    u.block.printed.extend(fields.iter().map(|f| f.printed("")));
                    u.block.last_line = n;
                    u.phase = UPhase::Roundtrip;
                    return Ok(Flow::Stay(State::UPerf(u)));
                }
                if t.starts_with("Average of ") {
                    let (fields, prot) = records::uperf_average(t).map_err(err)?;
                    u.block.printed.extend(fields.iter().map(|f| f.printed("")));
                    if let Some(p) = prot {
                        for run in &mut u.block.runs {
                            run.params
                                .insert("prot".to_string(), Param::Text(p.clone()));
                        }
                    }
                    u.block.last_line = n;
                    self.finish(u.block, "UPerf");
                    return Ok(Flow::Stay(State::Idle));
                }
                if let Some(c) = shape::UPERF_MEMBER.captures(t) {
                    let fields = records::uperf_member(&c[2]).map_err(err)?;
                    let index = u.block.runs.len() as u32 + 1;
                    u.block.runs.push(member_run(index, n, &c[1], &fields));
                    u.block.last_line = n;
                    return Ok(Flow::Stay(State::UPerf(u)));
                }
                if let Some(c) = shape::ADDRESSED.captures(t) {
                    // `null` or an exception: that member sent no results.
                    self.warn(
                        n,
                        format!("UPerf member {} gave no results: {}", &c[1], &c[2]),
                    );
                    return Ok(Flow::Stay(State::UPerf(u)));
                }
                Err(ParseError::new(
                    n,
                    format!(
                        "UPerf results cut off: expected '<addr>: <x> reqs/sec (…)' or 'Throughput: …', found '{t}'"
                    ),
                ))
            }
            UPhase::Roundtrip => {
                let r = records::uperf_roundtrip(t).map_err(err)?;
                u.block
                    .printed
                    .extend(r.fields.iter().map(|f| f.printed("")));
                u.block.last_line = n;
                if r.puts_pending {
                    u.phase = UPhase::RoundtripPuts;
                    return Ok(Flow::Stay(State::UPerf(u)));
                }
                self.finish(u.block, "UPerf");
                Ok(Flow::Stay(State::Idle))
            }
            UPhase::RoundtripPuts => {
                let fields = records::uperf_roundtrip_puts(t).map_err(err)?;
                u.block.printed.extend(fields.iter().map(|f| f.printed("")));
                u.block.last_line = n;
                self.finish(u.block, "UPerf");
                Ok(Flow::Stay(State::Idle))
            }
        }
    }

    fn perf_test(&mut self, mut p: PerfTest, line: &str, n: u64) -> Result<Flow, ParseError> {
        let t = line.trim();
        let err = |e: String| ParseError::new(n, e);
        if t.is_empty() {
            return Ok(Flow::Stay(State::PerfTest(p)));
        }
        if let Some(c) = shape::PERF_FROM.captures(t) {
            if p.block.runs.is_empty() {
                // 2004: `-- results:` introduces one `-- results from <addr>:` block per receiver.
                p.receiver = Some(c[1].to_string());
                p.strict = false;
                return Ok(Flow::Stay(State::PerfTest(p)));
            }
            self.finish(p.block, PERF_TEST);
            return Ok(Flow::Again(State::Idle));
        }
        let sender = shape::PERF_SENDER.captures(t);
        if sender.is_some() || t.starts_with("num_msgs_expected=") {
            let (member, info) = match &sender {
                Some(c) => (c[1].to_string(), c.get(2).map_or("", |m| m.as_str())),
                None => (p.member.take().unwrap_or_default(), t),
            };
            let fields = records::member_info(info).map_err(err)?;
            let index = p.block.runs.len() as u32 + 1;
            let mut run = member_run(index, n, &member, &fields);
            if let Some(r) = &p.receiver {
                run.params
                    .insert("receiver".to_string(), Param::Text(r.clone()));
            }
            p.block.runs.push(run);
            p.block.last_line = n;
            return Ok(Flow::Stay(State::PerfTest(p)));
        }
        if t.starts_with("combined:") {
            let fields = records::combined(t).map_err(err)?;
            p.block
                .printed
                .extend(fields.iter().map(|f| f.printed("combined")));
            let index = p.block.runs.len() as u32 + 1;
            let mut run = combined_run(index, n, &fields);
            if let Some(r) = &p.receiver {
                run.params
                    .insert("receiver".to_string(), Param::Text(r.clone()));
            }
            p.block.runs.push(run);
            p.block.last_line = n;
            self.finish(p.block, PERF_TEST);
            return Ok(Flow::Stay(State::Idle));
        }
        if p.strict {
            if let Some(c) = shape::PERF_MEMBER.captures(t) {
                p.member = Some(c[1].to_string());
                return Ok(Flow::Stay(State::PerfTest(p)));
            }
            if p.block.runs.is_empty() && p.member.is_none() {
                // Nothing of perf.Test's shape followed: not its results after all.
                return Ok(Flow::Again(State::Idle));
            }
            return Err(ParseError::new(
                n,
                format!(
                    "perf.Test results cut off: expected '<addr>:', 'num_msgs_expected=…' or 'combined: …', found '{t}'"
                ),
            ));
        }
        // A receiver's own results have no closing line: the first other line ends them.
        self.finish(p.block, PERF_TEST);
        Ok(Flow::Again(State::Idle))
    }

    fn banner(&mut self, line: &str) -> Flow {
        if self.banner_entry(line) {
            Flow::Stay(State::Banner)
        } else {
            Flow::Again(State::Idle)
        }
    }

    /// Takes a `key: value` configuration entry; false when `line` is not one.
    fn banner_entry(&mut self, line: &str) -> bool {
        let Some(c) = shape::BANNER_ENTRY.captures(line.trim()) else {
            return false;
        };
        let key = metric_name(&c[1]);
        // Versions stay text: `2.10` is not the number 2.1.
        let value = if key.contains("version") {
            Param::Text(c[2].to_string())
        } else {
            values::param(&c[2])
        };
        self.set_config(vec![(key, value)]);
        true
    }

    /// End of input: a block still open is complete or cut short. A cut result block keeps
    /// the members it printed in full, with a warning; one cut before any is an error.
    fn end(&mut self, last: u64) -> Result<(), ParseError> {
        let cut = |what: &str, first: u64| {
            Err(ParseError::new(
                last,
                format!("input ends inside the {what} that starts at line {first}"),
            ))
        };
        match std::mem::take(&mut self.state) {
            State::Idle | State::Banner | State::TableHead { .. } => {}
            State::Table(tb) => {
                if let Some((run, run_line)) = tb.open_run {
                    return Err(ParseError::new(
                        last,
                        format!("table cut off: test run {run} (line {run_line}) has no value"),
                    ));
                }
                if tb.block.runs.is_empty() {
                    return cut("'Test Run #' table", tb.block.first_line);
                }
                self.finish(tb.block, PERF_TEST);
            }
            State::MPerf(m) => {
                if !(m.block.runs.is_empty() && m.block.printed.is_empty()) {
                    self.finish_cut(m.block, "MPerf", "MPerf results", last);
                }
            }
            State::UPerf(u) => {
                if u.block.runs.is_empty() {
                    return cut("UPerf results", u.block.first_line);
                }
                self.finish_cut(u.block, "UPerf", "UPerf results", last);
            }
            State::PerfTest(p) => {
                if p.strict && p.block.runs.is_empty() && p.member.is_some() {
                    return cut("perf.Test results", p.block.first_line);
                }
                if p.strict && !p.block.runs.is_empty() {
                    self.finish_cut(p.block, PERF_TEST, "perf.Test results", last);
                } else {
                    self.finish(p.block, PERF_TEST);
                }
            }
        }
        self.release_held();
        Ok(())
    }

    /// Files `block`, cut short by the end of input at line `last`, with a warning saying
    /// what of it is kept.
    fn finish_cut(&mut self, block: Block, bench: &str, what: &str, last: u64) {
        let members = block.runs.len();
        self.warn(
            last,
            format!(
                "input ends inside the {what} that starts at line {}: \
                 stored the {members} member line(s) printed in full",
                block.first_line
            ),
        );
        self.finish(block, bench);
    }
}

fn run_number(text: &str, n: u64) -> Result<u32, ParseError> {
    text.parse()
        .map_err(|_| ParseError::new(n, format!("test run number '{text}' is too large")))
}

/// The messages-per-second cell of test run `run`.
fn table_value(run: u32, text: &str, n: u64) -> Result<f64, ParseError> {
    values::count(text).ok_or_else(|| {
        ParseError::new(
            n,
            format!("test run {run}: '{text}' is not a number of messages per second"),
        )
    })
}

fn push_table_run(block: &mut Block, index: u32, first: u64, last: u64, value: f64) {
    let mut run = Run {
        index,
        first_line: first,
        last_line: last,
        ..Run::default()
    };
    run.series.push(Series::new(
        "msgs_per_sec",
        "Number of messages read per second",
        "msgs/s",
        crate::model::Data::Value { value: Some(value) },
    ));
    block.runs.push(run);
    block.last_line = last;
}

fn member_run(index: u32, line: u64, member: &str, fields: &[Field]) -> Run {
    let mut run = Run {
        index,
        first_line: line,
        last_line: line,
        ..Run::default()
    };
    run.params
        .insert("member".to_string(), Param::Text(member.to_string()));
    run.series = fields.iter().map(Field::series).collect();
    run
}

/// perf.Test's `combined:` line as a run of its own beside the members' (member
/// `combined`), its numbers as `combined_<metric>` series (`combined_msgs_per_sec`,
/// `combined_throughput`, and `combined_time` with the rest of a 2004 `MemberInfo`): the
/// whole test's figure is not one more replicate of a member's, so it never shares a
/// member metric's cell.
fn combined_run(index: u32, line: u64, fields: &[Field]) -> Run {
    let mut run = member_run(index, line, COMBINED, &[]);
    run.series = fields
        .iter()
        .map(|f| {
            let mut s = f.series();
            s.metric = format!("{COMBINED}_{}", f.metric);
            s.display = format!("{COMBINED} {}", f.display);
            s
        })
        .collect();
    run
}

/// The `member` of the run that holds perf.Test's `combined:` line.
const COMBINED: &str = "combined";

#[cfg(test)]
mod tests;
