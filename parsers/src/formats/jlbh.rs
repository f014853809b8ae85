//! JLBH (Java Latency Benchmark Harness, OpenHFT) text output, every layout from 2016
//! (V1: `var(log)` column, 6-character row labels) to today (V10: `us` headers,
//! `PercentileSummary` with `Infinity` cells). See FORMATS.md §1.
//!
//! Input: one or more JLBH outputs, each a warm-up line, `BENCHMARK RESULTS (RUN n)`
//! blocks of probe lines (`End to End`, user probes, `OS Jitter`) and one `SUMMARY (probe)`
//! table per probe; or bare summary tables (`Percentile run1 … % Variation`). Lines may be
//! CRLF, ANSI-coloured, indented, interleaved with foreign log lines, printed under any
//! JVM locale, or pasted onto one physical line. Each output becomes one [`Block`],
//! yielded as soon as its last table ends. Fixtures: `fixtures/jlbh/v10-current.txt`,
//! `fixtures/jlbh/v1-varlog.txt`, `fixtures/malformed/jlbh-truncated.txt`.
//!
//! Per run, each probe is a percentile ladder in `us`: the summary table's value (two
//! decimals) is `value`, the probe line's rounder printing is `line_value`. The tables'
//! `% Variation` and `var(log)` columns become [`PrintedStat`]s, kept as printed.
//!
//! What is cut short is kept with a warning naming the line where it stops: a run without
//! its closing dash line (its probe lines; a run with none is left out), a summary table
//! without its `worst` row (its closing dash line is optional: published tables omit it),
//! an output whose runs lack the table of a probe (every probe but OS Jitter has one),
//! whether the input ends there or the next output begins. An output with no probe line
//! or table row to keep (one that ends after its warm-up line) is a [`ParseError`], as is
//! a JLBH-shaped line with unreadable numbers inside an output (outside one it is prose)
//! and a table whose run columns contradict the runs.
//!
//! This module only drives the state machine; line shapes live in `lines`, locale-aware
//! numbers in `numbers`, buffer-at-a-time line reading in `reader`, the lead lines that
//! label an output (with the headings enclosing a nested one) in `leads`.
//!
//! Identity: no bench (JLBH names no benchmark). `config` is the load the user chose:
//! `target_throughput`, `interval_us`, `distribution`, `co_correction` (JLBH prints no
//! thread count; an output that prints no rate takes the `-Dthroughput=N` its own lead
//! line states, the property JLBH's demos read it from); `run_time_s` and the warm-up are plain params. One block is one JLBH
//! output; its runs are the replicates. No timestamp is printed.

mod leads;
mod lines;
mod numbers;
mod reader;
#[cfg(feature = "test-support")]
pub mod synthetic;
#[cfg(test)]
mod tests;

use crate::error::ParseError;
use crate::format::{Format, Head, ParseIter};
use crate::model::{Block, Data, LadderPoint, Param, Parsed, PrintedStat, Run, Series};
use crate::text::metric_name;
use leads::Leads;
use lines::{Line, ProbeLine, Row};
use numbers::Decimal;
use reader::Lines;
use std::collections::VecDeque;
use std::io::BufRead;

/// The params that are the benchmark's configuration: what the user chose. The run time
/// and warm-up are measured per run, so they stay plain params.
const CONFIG: &[&str] = &[
    "target_throughput",
    "interval_us",
    "distribution",
    "co_correction",
];

/// The JLBH format.
pub const FORMAT: Format = Format::new("jlbh", "1", sniff, parse)
    .with_first_run_warmup()
    .claims_at_most(95);

/// Room in a ladder for every row JLBH prints (up to 99.9999997 and worst).
const LADDER_CAPACITY: usize = 16;

/// The unit of every JLBH value (microseconds; headers print `us` since 2022).
const UNIT: &str = "us";

/// Confidence that `head` is JLBH output, from the format's distinctive lines.
pub fn sniff(head: &Head) -> u8 {
    let t = head.text;
    let runs = t.contains("BENCHMARK RESULTS (RUN");
    let probe = t.contains(" - worst was ") || t.contains("/worst was ");
    let table = has_percentile_header(t);
    let summary = t.contains("SUMMARY (");
    match (runs, probe, table, summary) {
        (true, true, _, _) | (true, _, true, _) => 95,
        (_, _, true, true) => 90,
        (true, _, _, _) => 80,
        (_, _, true, _) => 75,
        (_, true, _, _) if t.contains("50/90 ") => 50,
        _ => 0,
    }
}

/// Whether some line holds a `Percentile run1 … Variation` summary header.
fn has_percentile_header(t: &str) -> bool {
    t.match_indices("Percentile").any(|(i, _)| {
        let after = &t[i + "Percentile".len()..];
        let line = &after[..after.find('\n').unwrap_or(after.len())];
        line.trim_start().starts_with("run1") && line.contains("Variation")
    })
}

/// Parses JLBH output, yielding one block per output as it completes.
pub fn parse<'a>(r: Box<dyn BufRead + 'a>) -> ParseIter<'a> {
    Box::new(Parser {
        reader: Lines::new(r),
        machine: Machine::default(),
        done: false,
        held: None,
    })
}

/// Reads lines and feeds the state machine; stops at the first error.
struct Parser<R> {
    reader: Lines<R>,
    machine: Machine,
    done: bool,
    /// A summary row with fewer values than its header, held until the next line: where
    /// the input ends there (a log cut mid-write, `99.0:     2.17  2.1`) the row is the
    /// cut, left out with a warning and the table's rows before it kept; any other line
    /// makes it the error.
    held: Option<ParseError>,
}

impl<R: BufRead> Iterator for Parser<R> {
    type Item = Result<Parsed, ParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(item) = self.machine.out.pop_front() {
                return Some(item);
            }
            if self.done {
                return None;
            }
            let step = match self.reader.next_numbered() {
                Err(e) => Err(e),
                Ok(Some((_, line))) if self.held.is_some() && line.trim().is_empty() => Ok(()),
                Ok(Some(_)) if self.held.is_some() => Err(self.held.take().expect("held")),
                Ok(Some((n, line))) => {
                    self.machine.number = n;
                    match self.machine.line(line) {
                        Err(e) if std::mem::take(&mut self.machine.short_row) => {
                            self.held = Some(e);
                            Ok(())
                        }
                        step => step,
                    }
                }
                Ok(None) => {
                    self.done = true;
                    if let Some(e) = self.held.take() {
                        self.machine.out.push_back(Ok(Parsed::Warning {
                            line: e.line,
                            message: format!(
                                "the input ends inside this summary row ({}): left out",
                                e.message
                            ),
                        }));
                    }
                    self.machine.eof()
                }
            };
            if let Err(e) = step {
                self.done = true;
                self.machine.out.push_back(Err(e));
            }
        }
    }
}

/// Where the machine is in the text.
#[derive(Debug, Default)]
enum State {
    /// Not in a JLBH output: lines go to the lead-line tracker.
    #[default]
    Outside,
    /// In an output, between runs (after the warm-up line or a run's closing dashes).
    BetweenRuns,
    /// Inside `BENCHMARK RESULTS (RUN n)`, before its closing dashes.
    InRun,
    /// After `SUMMARY (label)`, waiting for its `Percentile run1 …` header. `tentative`:
    /// the header opened the block, so without a table it was prose and is dropped.
    SummaryHeader {
        label: String,
        line: u64,
        tentative: bool,
    },
    /// Inside a summary table, before its `worst` row.
    Table(Table),
    /// After a complete summary table: more tables may follow.
    AfterTables,
}

/// A summary table being read.
#[derive(Debug)]
struct Table {
    /// The label as printed (`end to end`, `client2server`).
    display: String,
    /// Line of the `SUMMARY` (or bare `Percentile`) header.
    first_line: u64,
    runs: usize,
    variation: bool,
    var_log: bool,
    /// Row percentiles, in order, and whether the row printed its `var(log)` cell
    /// (hand-edited tables leave it blank).
    rows: Vec<(f64, bool)>,
    /// `rows.len() × (runs + 2)` cells: the runs, `% Variation`, `var(log)`.
    cells: Vec<Option<f64>>,
    /// Line of the last row read.
    last_row: u64,
    /// Lines after the last row while the table is still open (blank or prose): when
    /// the table turns out cut short, they are read again as lead lines.
    tail: Vec<String>,
}

impl Table {
    fn width(&self) -> usize {
        self.runs + 2
    }
}

/// Printed probe or table name → metric name, remembered for the whole input: the same
/// few names recur in every run of every output.
#[derive(Debug, Default)]
struct Names(Vec<(String, String)>);

impl Names {
    /// The metric name of a printed probe or table name.
    fn metric(&mut self, display: &str) -> String {
        if let Some((_, m)) = self.0.iter().find(|(d, _)| d == display) {
            return m.clone();
        }
        let m = metric_name(display);
        // Bounded so that an input with endless distinct names cannot grow it.
        if self.0.len() < 64 {
            self.0.push((display.to_string(), m.clone()));
        }
        m
    }
}

/// The output being assembled.
#[derive(Debug, Default)]
struct Builder {
    /// A run block printed without its `BENCHMARK RESULTS (RUN n)` header, starting at
    /// `Run time:`: it ends where its probe lines end, a block of its own.
    headerless: bool,
    label: Option<String>,
    first_line: u64,
    last_line: u64,
    runs: Vec<Run>,
    printed: Vec<PrintedStat>,
    warm_up_iterations: Option<f64>,
    warm_up_secs: Option<f64>,
    /// The locale convention learned from grouped counts.
    dec: Decimal,
    /// Metrics whose summary table has been read.
    summarised: Vec<String>,
    /// The runs come from table columns (no `BENCHMARK RESULTS` in this output).
    from_tables: bool,
}

impl Builder {
    /// All runs' probes (but OS Jitter, which JLBH never summarises) have their table.
    fn complete(&self) -> bool {
        !self.summarised.is_empty()
            && self
                .runs
                .iter()
                .flat_map(|r| &r.series)
                .all(|s| s.metric == "os_jitter" || self.summarised.contains(&s.metric))
    }

    /// Whether the output may end here: its tables are all read, or it only has tables.
    fn may_end(&self) -> bool {
        (self.from_tables && !self.summarised.is_empty()) || self.complete()
    }

    /// The first probe still waiting for its summary table.
    fn missing(&self) -> Option<&str> {
        self.runs
            .iter()
            .flat_map(|r| &r.series)
            .find(|s| s.metric != "os_jitter" && !self.summarised.contains(&s.metric))
            .map(|s| s.display.as_str())
    }
}

/// The line-driven state machine.
#[derive(Debug, Default)]
struct Machine {
    /// 1-based number of the current physical line.
    number: u64,
    state: State,
    block: Option<Builder>,
    labels: Leads,
    out: VecDeque<Result<Parsed, ParseError>>,
    /// Scratch cells of the summary row being read (reused: no allocation per row).
    cells: Vec<Option<f64>>,
    /// The row and cell buffers of the last closed table, for the next one.
    spare: (Vec<(f64, bool)>, Vec<Option<f64>>),
    /// Runs of the last output: the next one likely has as many, so its vector starts at
    /// that size instead of growing.
    last_runs: usize,
    names: Names,
    /// The error just returned is a summary row with fewer values than its header.
    short_row: bool,
}

impl Machine {
    /// Feeds one physical line: a JLBH line, a foreign line, or a whole output pasted
    /// onto one line, read logical line after logical line.
    fn line(&mut self, line: &str) -> Result<(), ParseError> {
        let mut rest = trim(line);
        if rest.is_empty() {
            self.blank();
            return Ok(());
        }
        if self.loose_probe(rest)? {
            return Ok(());
        }
        while !rest.is_empty() {
            rest = self.step(rest)?.trim_start();
        }
        Ok(())
    }

    fn blank(&mut self) {
        if matches!(self.state, State::InRun) && self.block.as_ref().is_some_and(|b| b.headerless) {
            self.finish();
            self.labels.observe("");
            return;
        }
        match &mut self.state {
            State::Outside => self.labels.observe(""),
            State::AfterTables => self.labels.observe(""),
            State::Table(t) if !t.rows.is_empty() => t.tail.push(String::new()),
            _ => {}
        }
    }

    /// A Chronicle `Histogram` probe line printed on its own, outside any JLBH run
    /// (`write histogram: 50/90 … worst was …`, an unnamed `50/90 … worst was …`, any
    /// ladder such as `50/90 97/99 99.7/99.9 … - worst`): the lines of one group form a
    /// block with one run, a repeated name starts the next run. `Ok(false)` when the line
    /// is not such a line, or a JLBH output is being read.
    fn loose_probe(&mut self, s: &str) -> Result<bool, ParseError> {
        let probe_block = self.block.as_ref().is_some_and(|b| b.headerless);
        let outside = matches!(self.state, State::Outside);
        if !(outside || (probe_block && matches!(self.state, State::InRun))) {
            return Ok(false);
        }
        let Some((name, count, points)) = loose_probe_line(s) else {
            return Ok(false);
        };
        if outside {
            self.start();
            self.open_run(1);
            self.block().headerless = true;
        }
        let n = self.number;
        let metric = if name.is_empty() {
            "latency".to_string()
        } else {
            self.names.metric(name)
        };
        let b = self.block();
        let repeats = b
            .runs
            .last()
            .is_some_and(|r| r.series.iter().any(|s| s.metric == metric));
        if repeats {
            let index = b.runs.len() as u32 + 1;
            b.runs.push(Run {
                index,
                first_line: n,
                last_line: n,
                ..Run::default()
            });
        }
        let run = b.runs.last_mut().expect("a run is open");
        run.last_line = n;
        run.series.push(Series::new(
            metric,
            if name.is_empty() { "latency" } else { name },
            UNIT,
            Data::Ladder {
                count,
                points: points
                    .into_iter()
                    .map(|(percentile, value)| LadderPoint {
                        percentile,
                        value: Some(value),
                        line_value: None,
                    })
                    .collect(),
            },
        ));
        b.last_line = n;
        Ok(true)
    }

    /// Whether a table named `label` was already read for the current output, which
    /// comes from tables only: then it starts the next output.
    fn repeats(&mut self, label: &str) -> bool {
        let m = self.names.metric(label);
        self.block
            .as_ref()
            .is_some_and(|b| b.from_tables && b.summarised.contains(&m))
    }

    /// Closes a table that stopped before its `worst` row: its rows are kept, with a
    /// warning, and the lines read after its last row are read again outside it.
    fn cut_table(&mut self, mut t: Table) -> Result<(), ParseError> {
        self.warn_cut(&t);
        let tail = std::mem::take(&mut t.tail);
        let number = self.number;
        self.close_table(t, false)?;
        for l in &tail {
            self.line(l)?;
        }
        self.number = number;
        Ok(())
    }

    /// Warns that a table's rows stop before its `worst` row, whatever ends it (dashes,
    /// other text, the end of input).
    fn warn_cut(&mut self, t: &Table) {
        let last = t.rows.last().map_or(0.0, |r| r.0);
        self.out.push_back(Ok(Parsed::Warning {
            line: t.last_row,
            message: format!(
                "SUMMARY ({}) table from line {} ends at {last} (no worst row)",
                t.display, t.first_line
            ),
        }));
    }

    fn err(&self, message: impl Into<String>) -> ParseError {
        ParseError::new(self.number, message)
    }

    fn block(&mut self) -> &mut Builder {
        self.block.get_or_insert_with(Builder::default)
    }

    /// Reads the logical line at the start of `s`; returns the text after it (`s` itself
    /// when the line must be read again in the new state).
    fn step<'s>(&mut self, s: &'s str) -> Result<&'s str, ParseError> {
        let dec = self.block.as_ref().map_or(Decimal::Unknown, |b| b.dec);
        if let State::Table(t) = &self.state {
            let min = t.runs + usize::from(t.variation);
            let max = min + usize::from(t.var_log);
            match lines::row(s, dec, min, max, &mut self.cells) {
                Err(lines::RowError::TooFewValues(m)) => {
                    self.short_row = true;
                    return Err(self.err(m));
                }
                Err(e) => return Err(self.err(e.message())),
                Ok(Some((row, rest))) => {
                    self.push_row(&row)?;
                    return Ok(rest);
                }
                Ok(None) => {}
            }
        }
        let inside = !matches!(self.state, State::Outside);
        match lines::read(s, dec, inside) {
            Ok((line, rest)) => self.apply(line, s, rest),
            Err(_) if !inside => {
                self.labels.observe(s);
                Ok("")
            }
            Err(_) if matches!(self.state, State::AfterTables) && self.block().may_end() => {
                self.finish();
                Ok(s)
            }
            Err(_) if matches!(self.state, State::InRun) && self.block().headerless => {
                self.finish();
                Ok(s)
            }
            Err(_) if self.tentative() => {
                // The lone header before this line was prose.
                self.state = State::Outside;
                self.block = None;
                Ok(s)
            }
            Err(m) => Err(self.err(m)),
        }
    }

    fn apply<'s>(
        &mut self,
        line: Line<'_>,
        s: &'s str,
        rest: &'s str,
    ) -> Result<&'s str, ParseError> {
        let n = self.number;
        match std::mem::take(&mut self.state) {
            State::Outside => match line {
                Line::WarmUp { iterations, secs } => {
                    self.start();
                    self.warm_up(iterations, secs);
                    self.state = State::BetweenRuns;
                }
                Line::RunHeader { run } => {
                    self.start();
                    self.open_run(run);
                }
                Line::SummaryHeader { label } => {
                    self.start();
                    self.state = State::SummaryHeader {
                        label: label.to_string(),
                        line: n,
                        tentative: true,
                    };
                }
                Line::PercentileHeader {
                    runs,
                    variation,
                    var_log,
                } => {
                    self.start();
                    self.open_table("end to end".to_string(), n, runs, variation, var_log);
                }
                Line::RunTime { .. } => {
                    self.start();
                    self.open_run(1);
                    self.block().headerless = true;
                    self.in_run(line)?;
                }
                _ => {
                    // JLBH's warm-up progress (`Complete: 50000`) is no lead line.
                    if !is_progress(s) {
                        self.labels.observe(s);
                    }
                    return Ok("");
                }
            },
            State::BetweenRuns => match line {
                Line::WarmUp { iterations, secs } => {
                    if !self.block().runs.is_empty() {
                        // The next output begins: this one was cut short.
                        self.cut_output()?;
                        return Ok(s);
                    }
                    self.warm_up(iterations, secs);
                    self.state = State::BetweenRuns;
                }
                Line::RunHeader { run } => {
                    if run == 1 && !self.block().runs.is_empty() {
                        self.cut_output()?;
                        return Ok(s);
                    }
                    self.open_run(run);
                }
                Line::SummaryHeader { label } => {
                    self.block().last_line = n;
                    self.state = State::SummaryHeader {
                        label: label.to_string(),
                        line: n,
                        tentative: false,
                    };
                }
                Line::PercentileHeader {
                    runs,
                    variation,
                    var_log,
                } => {
                    self.block().last_line = n;
                    self.open_table("end to end".to_string(), n, runs, variation, var_log)
                }
                Line::Separator | Line::Other => {
                    self.state = State::BetweenRuns;
                    return Ok("");
                }
                _ => {
                    return Err(self.err(format!(
                        "'{}' is outside a BENCHMARK RESULTS run",
                        shorten(s)
                    )));
                }
            },
            State::InRun
                if self.block().headerless
                    && !matches!(
                        line,
                        Line::RunTime { .. }
                            | Line::CoCorrection(_)
                            | Line::Throughput { .. }
                            | Line::Probe(_)
                            | Line::Masked
                    ) =>
            {
                // The probe lines of a headerless run ended: it is complete.
                self.finish();
                if matches!(line, Line::Separator) {
                    return Ok(rest);
                }
                return Ok(s);
            }
            State::InRun
                if matches!(
                    line,
                    Line::WarmUp { .. }
                        | Line::RunHeader { .. }
                        | Line::SummaryHeader { .. }
                        | Line::PercentileHeader { .. }
                ) =>
            {
                // The run has no closing dash line: it ends before this line.
                let (index, first) = self.open_run_at();
                self.cut_run(format!(
                    "RUN {index} from line {first} is cut off: no closing dash line before \
                     line {n}"
                ));
                return Ok(s);
            }
            State::InRun => {
                self.state = State::InRun;
                self.in_run(line)?;
            }
            State::SummaryHeader {
                label,
                line: at,
                tentative,
            } => match line {
                Line::PercentileHeader {
                    runs,
                    variation,
                    var_log,
                } => self.open_table(label, at, runs, variation, var_log),
                _ if tentative => {
                    // A lone SUMMARY header was prose: forget it and read the line afresh.
                    self.block = None;
                    return Ok(s);
                }
                Line::Other => {
                    self.state = State::SummaryHeader {
                        label,
                        line: at,
                        tentative,
                    };
                    return Ok("");
                }
                _ => {
                    return Err(self.err(format!(
                        "SUMMARY ({label}) header at line {at} is not followed by its \
                         'Percentile run1 …' header"
                    )));
                }
            },
            State::Table(t) if t.rows.is_empty() && self.block().runs.is_empty() => {
                // A header that opened the output but no row follows: it was prose.
                drop(t);
                self.block = None;
                return Ok(s);
            }
            State::Table(t) => match line {
                Line::Separator if !t.rows.is_empty() => {
                    // The `worst` row closes a table itself: dashes after other rows
                    // close one that was cut.
                    self.warn_cut(&t);
                    self.close_table(t, true)?;
                }
                Line::Other => {
                    let mut t = t;
                    if !t.rows.is_empty() {
                        t.tail.push(s.to_string());
                    }
                    self.state = State::Table(t);
                    return Ok("");
                }
                _ if !t.rows.is_empty() => {
                    self.cut_table(t)?;
                    return Ok(s);
                }
                _ => {
                    return Err(self.err(format!(
                        "SUMMARY ({}) table from line {} is cut off before its 'worst' row",
                        t.display, t.first_line
                    )));
                }
            },
            State::AfterTables => match line {
                Line::Separator => {
                    let b = self.block();
                    b.last_line = n;
                    if b.complete() && !b.from_tables {
                        self.finish();
                    } else {
                        self.state = State::AfterTables;
                    }
                }
                Line::SummaryHeader { label } if self.repeats(label) => {
                    // The same table again: the next output, printed with no lead line.
                    self.finish();
                    return Ok(s);
                }
                Line::SummaryHeader { label } => {
                    self.state = State::SummaryHeader {
                        label: label.to_string(),
                        line: n,
                        tentative: false,
                    };
                }
                _ if self.block().may_end() => {
                    self.finish();
                    return Ok(s);
                }
                Line::Other => {
                    self.state = State::AfterTables;
                    return Ok("");
                }
                _ => {
                    // The next output begins before this one's tables are all read.
                    self.cut_output()?;
                    return Ok(s);
                }
            },
        }
        Ok(rest)
    }

    /// A line inside `BENCHMARK RESULTS (RUN n)`.
    fn in_run(&mut self, line: Line<'_>) -> Result<(), ParseError> {
        let n = self.number;
        let b = self.block.get_or_insert_with(Builder::default);
        if b.runs.is_empty() {
            return Err(ParseError::new(n, "run line without a run"));
        }
        let run = b.runs.last_mut().expect("checked above");
        // The run's lines so far: where it ends if it is cut short.
        run.last_line = n;
        b.last_line = n;
        match line {
            Line::RunTime { secs, distribution } => {
                if let Some(secs) = secs {
                    run.params.insert("run_time_s".into(), Param::Num(secs));
                }
                if let Some(d) = distribution {
                    run.params.insert("distribution".into(), Param::from(d));
                }
            }
            Line::CoCorrection(v) => {
                run.params.insert("co_correction".into(), Param::Bool(v));
            }
            Line::Throughput {
                per_second,
                interval_us,
            } => {
                run.params
                    .insert("target_throughput".into(), Param::Num(per_second));
                if let Some(i) = interval_us {
                    run.params.insert("interval_us".into(), Param::Num(i));
                }
            }
            Line::Probe(p) => {
                if let (Decimal::Unknown, Some(d)) = (b.dec, p.locale) {
                    b.dec = d;
                }
                let metric = self.names.metric(p.name);
                let run = b.runs.last_mut().expect("checked above");
                run.series.push(probe_series(metric, &p));
            }
            Line::Separator => self.state = State::BetweenRuns,
            Line::Masked | Line::Other => {}
            Line::WarmUp { .. }
            | Line::RunHeader { .. }
            | Line::SummaryHeader { .. }
            | Line::PercentileHeader { .. } => {
                return Err(ParseError::new(n, "a header line inside a run"));
            }
        }
        Ok(())
    }

    /// The index and first line of the run being read.
    fn open_run_at(&mut self) -> (u32, u64) {
        self.block()
            .runs
            .last()
            .map_or((0, 0), |r| (r.index, r.first_line))
    }

    /// Closes the open run, cut short before its closing dash line (`message` says
    /// where): its probe lines are kept, with a warning at its last line; a run without
    /// any is left out.
    fn cut_run(&mut self, message: String) {
        self.state = State::BetweenRuns;
        let b = self.block();
        let Some(run) = b.runs.last() else {
            return;
        };
        let line = run.last_line;
        let message = if run.series.is_empty() {
            b.runs.pop();
            format!("{message}; it has no probe line and is left out")
        } else {
            message
        };
        self.out.push_back(Ok(Parsed::Warning { line, message }));
    }

    /// Ends an output cut short before its summary tables were all read (the input ends,
    /// or the next output begins): its runs are yielded, with a warning at its last line
    /// naming the first probe without its table. An error when no run has a probe line.
    fn cut_output(&mut self) -> Result<(), ParseError> {
        let e = self.cut_off();
        let b = self.block();
        if b.runs.iter().all(|r| r.series.is_empty()) {
            return Err(e);
        }
        let line = b.last_line;
        self.out.push_back(Ok(Parsed::Warning {
            line,
            message: e.message,
        }));
        self.finish();
        Ok(())
    }

    /// Whether the output so far is only a header that may turn out to be prose.
    fn tentative(&self) -> bool {
        let no_runs = self.block.as_ref().is_none_or(|b| b.runs.is_empty());
        match &self.state {
            State::SummaryHeader { tentative, .. } => *tentative,
            State::Table(t) => t.rows.is_empty() && no_runs,
            _ => false,
        }
    }

    /// Starts an output at the current line, labelled by the nearest lead line.
    fn start(&mut self) {
        let label = self.labels.take_for_output();
        self.labels.observe("");
        self.block = Some(Builder {
            label,
            first_line: self.number,
            last_line: self.number,
            runs: Vec::with_capacity(self.last_runs),
            ..Builder::default()
        });
    }

    fn warm_up(&mut self, iterations: Option<f64>, secs: Option<f64>) {
        let n = self.number;
        let b = self.block();
        b.warm_up_iterations = iterations;
        b.warm_up_secs = secs;
        b.last_line = n;
    }

    fn open_run(&mut self, index: u32) {
        let n = self.number;
        let b = self.block();
        let mut run = Run {
            index,
            first_line: n,
            last_line: n,
            ..Run::default()
        };
        if let Some(v) = b.warm_up_iterations {
            run.params.insert("warmup_iterations".into(), Param::Num(v));
        }
        if let Some(v) = b.warm_up_secs {
            run.params.insert("warmup_time_s".into(), Param::Num(v));
        }
        b.runs.push(run);
        b.last_line = n;
        self.state = State::InRun;
    }

    fn open_table(&mut self, label: String, at: u64, runs: usize, variation: bool, var_log: bool) {
        // The buffers of the last table, cleared: no allocation per table.
        let (mut rows, mut cells) = std::mem::take(&mut self.spare);
        rows.clear();
        cells.clear();
        self.state = State::Table(Table {
            display: label,
            first_line: at,
            runs,
            variation,
            var_log,
            rows,
            cells,
            last_row: at,
            tail: Vec::new(),
        });
    }

    /// Stores a row read into `self.cells`; the `worst` row ends the table.
    fn push_row(&mut self, row: &Row<'_>) -> Result<(), ParseError> {
        let State::Table(t) = &mut self.state else {
            return Ok(());
        };
        let mut p = row.percentile;
        if row.label != "worst" && p >= 100.0 {
            // V8+ prints 99.99997 and finer as `100.0`: the ladder alternates 1−1/x, 1−0.3/x.
            p = next_rung(t.rows.last().map_or(99.9999, |r| r.0));
        }
        let has_var_log = t.var_log && row.cells == t.runs + usize::from(t.variation) + 1;
        t.rows.push((p, has_var_log));
        // Lay the row out as runs, `% Variation`, `var(log)`, whichever the header has.
        let (runs, derived) = self.cells.split_at(t.runs.min(self.cells.len()));
        t.cells.extend_from_slice(runs);
        t.cells.resize(t.rows.len() * t.width() - 2, None);
        let (variation, var_log) = match (t.variation, derived) {
            (true, [v, l, ..]) => (*v, *l),
            (true, [v]) => (*v, None),
            (false, [l, ..]) => (None, *l),
            _ => (None, None),
        };
        t.cells.push(variation);
        t.cells.push(var_log);
        t.last_row = self.number;
        t.tail.clear();
        if row.label == "worst" {
            let State::Table(t) = std::mem::take(&mut self.state) else {
                unreachable!("state checked above")
            };
            self.close_table(t, false)?;
        }
        Ok(())
    }

    /// Merges a finished table into the output's runs.
    fn close_table(&mut self, t: Table, by_dashes: bool) -> Result<(), ParseError> {
        let n = self.number;
        let b = self.block.get_or_insert_with(Builder::default);
        if b.runs.is_empty() {
            b.from_tables = true;
            b.runs = (1..=t.runs)
                .map(|i| Run {
                    index: i as u32,
                    first_line: t.first_line,
                    last_line: n,
                    ..Run::default()
                })
                .collect();
        } else if b.runs.len() != t.runs {
            return Err(ParseError::new(
                t.first_line,
                format!(
                    "SUMMARY ({}) has {} run columns but the output has {} runs",
                    t.display,
                    t.runs,
                    b.runs.len()
                ),
            ));
        }
        if b.from_tables {
            for r in &mut b.runs {
                r.last_line = n;
            }
        }
        merge_table(b, &t, &mut self.names);
        b.last_line = n;
        self.spare = (t.rows, t.cells);
        if by_dashes && b.complete() && !b.from_tables {
            self.finish();
        } else {
            self.state = State::AfterTables;
        }
        Ok(())
    }

    /// Yields the current output as a block.
    fn finish(&mut self) {
        self.state = State::Outside;
        if let Some(mut b) = self.block.take() {
            self.last_runs = b.runs.len();
            let stated = b.label.as_deref().and_then(leads::stated_throughput);
            for run in &mut b.runs {
                if let Some(rate) = stated {
                    run.params
                        .entry("target_throughput".into())
                        .or_insert(Param::Num(rate));
                }
                for key in CONFIG {
                    if run.params.contains_key(*key) {
                        run.config.insert(key.to_string());
                    }
                }
            }
            self.out.push_back(Ok(Parsed::Block(Block {
                label: b.label,
                first_line: b.first_line,
                last_line: b.last_line,
                runs: b.runs,
                printed: b.printed,
            })));
        }
    }

    /// The output was cut off before its summary tables.
    fn cut_off(&mut self) -> ParseError {
        let b = self.block();
        let first = b.first_line;
        let message = match b.missing() {
            Some(m) => {
                format!("the JLBH output from line {first} is cut off: no SUMMARY table for '{m}'")
            }
            None => {
                format!("the JLBH output from line {first} is cut off before its SUMMARY tables")
            }
        };
        self.err(message)
    }

    /// The input ended: the output in progress is yielded, with warnings when it was cut
    /// short; an error when it holds no probe line or table row to store.
    fn eof(&mut self) -> Result<(), ParseError> {
        let stop = match std::mem::take(&mut self.state) {
            State::Outside => return Ok(()),
            State::SummaryHeader {
                tentative: true, ..
            } => return Ok(()),
            State::Table(t) if t.rows.is_empty() && self.block().runs.is_empty() => return Ok(()),
            State::InRun if self.block().headerless => {
                self.finish();
                return Ok(());
            }
            State::Table(t) if !t.rows.is_empty() => {
                self.cut_table(t)?;
                return self.eof();
            }
            State::AfterTables if self.block().may_end() => {
                self.finish();
                return Ok(());
            }
            State::BetweenRuns if self.block().runs.is_empty() => {
                let first = self.block().first_line;
                return Err(self.err(format!(
                    "input ends after the warm-up line {first}, before RUN 1"
                )));
            }
            State::InRun => {
                let (index, first) = self.open_run_at();
                let message = format!(
                    "input ends inside RUN {index} from line {first}: no closing dash line"
                );
                if self.block().runs.iter().all(|r| r.series.is_empty()) {
                    return Err(self.err(message));
                }
                self.cut_run(message);
                None
            }
            State::Table(t) => Some(format!(
                "input ends inside the SUMMARY ({}) table from line {}, before its 'worst' row",
                t.display, t.first_line
            )),
            State::SummaryHeader { label, line, .. } => Some(format!(
                "input ends after the SUMMARY ({label}) header at line {line}"
            )),
            State::BetweenRuns | State::AfterTables => None,
        };
        if let Some(message) = stop {
            if self.block().runs.iter().all(|r| r.series.is_empty()) {
                return Err(self.err(message));
            }
            let line = self.number;
            self.out.push_back(Ok(Parsed::Warning { line, message }));
        }
        if self.block().may_end() {
            self.finish();
            Ok(())
        } else {
            self.cut_output()
        }
    }
}

/// `s.trim()`, testing two bytes first: nearly every line starts and ends with a printable
/// ASCII character, where the Unicode-aware trim would find nothing to remove.
fn trim(s: &str) -> &str {
    let solid = |b: Option<&u8>| b.is_some_and(|&b| b > b' ' && b.is_ascii());
    if solid(s.as_bytes().first()) && solid(s.as_bytes().last()) {
        s
    } else {
        s.trim()
    }
}

/// `Complete: 50000`, printed while the warm-up runs.
fn is_progress(s: &str) -> bool {
    s.strip_prefix("Complete: ")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The percentile after `p` in the current ladder (99.9999 → 99.99997 → 99.99999 …).
fn next_rung(p: f64) -> f64 {
    let gap = 100.0 - p;
    let scale = 10f64.powf(gap.log10().floor());
    let lead = (gap / scale).round();
    let next = if lead >= 3.0 { gap / 3.0 } else { gap * 0.3 };
    ((100.0 - next) * 1e9).round() / 1e9
}

/// A probe line as a ladder series; its values are the line's until a table refines them.
fn probe_series(metric: String, p: &ProbeLine<'_>) -> Series {
    // Room for the rows only the summary table prints (99.7, 99.97 …): no regrowth.
    let mut points = Vec::with_capacity(LADDER_CAPACITY);
    points.extend((0..p.len).map(|i| LadderPoint {
        percentile: p.percentiles[i],
        value: p.values[i],
        line_value: None,
    }));
    Series::new(
        metric,
        p.name,
        UNIT,
        Data::Ladder {
            count: p.count,
            points,
        },
    )
}

/// The layout of a probe line's labels or values: each label or number as `N`, with the
/// `/` and `-` between them (`50/90 99/99.9 - worst` → `N/N N/N - N`).
fn ladder_shape(s: &str) -> String {
    let mut out = String::new();
    for tok in s.split_whitespace() {
        for (i, part) in tok.split('/').enumerate() {
            if i > 0 {
                out.push('/');
            }
            match part {
                "" => {}
                "-" => out.push('-'),
                _ => out.push('N'),
            }
        }
        out.push(' ');
    }
    // `1.5 / 27` and `50/90` alike.
    out.replace(" / ", "/")
        .replace(" /", "/")
        .replace("/ ", "/")
}

/// A probe line read on its own: name (maybe empty), sample count, (percentile, µs).
type LooseProbe<'a> = (&'a str, Option<u64>, Vec<(f64, f64)>);

/// Reads a probe line printed on its own: `[name[:] [(count)]] <labels> was <values>`,
/// labels being percentiles and `worst` separated by `/` and spaces (`-` fills a slot),
/// values in microseconds with `,` grouping. `None` unless labels and values pair up.
fn loose_probe_line(s: &str) -> Option<LooseProbe<'_>> {
    let was = s.find("worst was ")?;
    let (left, right) = (&s[..was + 5], &s[was + 10..]);
    let start = left
        .match_indices("50/")
        .map(|(i, _)| i)
        .find(|&i| i == 0 || left.as_bytes()[i - 1] == b' ')?;
    let lead = left[..start].trim();
    // A name is `name:` or `name (count)`; other text before the ladder is prose.
    if !(lead.is_empty() || lead.ends_with(':') || lead.ends_with(')')) {
        return None;
    }
    let mut name = lead.trim_end_matches(':').trim();
    let mut count = None;
    if let Some(open) = name.rfind('(').filter(|_| name.ends_with(')')) {
        let digits: String = name[open + 1..name.len() - 1]
            .chars()
            .filter(|c| !matches!(c, ',' | '.' | '\'' | ' ' | '\u{a0}'))
            .collect();
        count = Some(digits.parse::<u64>().ok()?);
        name = name[..open].trim().trim_end_matches(':').trim();
    }
    let mut labels = Vec::new();
    for tok in left[start..]
        .split([' ', '/'])
        .filter(|t| !t.is_empty() && *t != "-")
    {
        labels.push(match tok {
            "worst" => 100.0,
            _ => tok
                .parse::<f64>()
                .ok()
                .filter(|p| (0.0..100.0).contains(p))?,
        });
    }
    let mut values = Vec::new();
    for tok in right
        .split([' ', '/'])
        .filter(|t| !t.is_empty() && *t != "-")
    {
        let grouped = tok.contains(',');
        if grouped
            && !tok
                .split(',')
                .skip(1)
                .all(|g| g.len() == 3 && g.bytes().all(|b| b.is_ascii_digit()))
        {
            return None;
        }
        values.push(
            tok.replace(',', "")
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())?,
        );
    }
    // A ladder: values laid out as the labels are (`50/90 99 - worst` and
    // `1.5 / 27  104 - 36,700`), percentiles rising to `worst`, values never falling.
    let ladder = ladder_shape(&left[start..]) == ladder_shape(right)
        && labels.windows(2).all(|w| w[0] < w[1])
        && labels.last() == Some(&100.0)
        && values.windows(2).all(|w| w[0] <= w[1]);
    // Chronicle's shortest ladder is `50/90 99/99.9 - worst`.
    (labels.len() >= 5 && labels.len() == values.len() && ladder)
        .then(|| (name, count, labels.into_iter().zip(values).collect()))
}

/// Writes a summary table's values into the runs and its derived columns into `printed`.
fn merge_table(b: &mut Builder, t: &Table, names: &mut Names) {
    let metric = names.metric(&t.display);
    let ladder = mislabelled_ladder(b, t, &metric);
    let w = t.width();
    // The percentile each row really holds.
    let row_p = |k: usize| {
        ladder
            .as_ref()
            .and_then(|l| l.get(k).copied())
            .unwrap_or(t.rows[k].0)
    };
    for (i, run) in b.runs.iter_mut().enumerate() {
        let at = match run.series.iter().position(|s| s.metric == metric) {
            Some(at) => at,
            None => {
                run.series.push(Series::new(
                    metric.clone(),
                    t.display.clone(),
                    UNIT,
                    Data::Ladder {
                        count: None,
                        points: Vec::with_capacity(t.rows.len()),
                    },
                ));
                run.series.len() - 1
            }
        };
        if let Data::Ladder { points, .. } = &mut run.series[at].data {
            let mut from = ascending(points).then_some(0);
            for k in 0..t.rows.len() {
                from = refine(points, from, row_p(k), t.cells[k * w + i]);
            }
            if from.is_some() {
                // The points the table gave a value: its rows, where its cell was read.
                let precise: Vec<bool> = points
                    .iter()
                    .map(|q| {
                        (0..t.rows.len()).any(|k| {
                            (row_p(k) - q.percentile).abs() < SAME_PERCENTILE
                                && t.cells[k * w + i].is_some()
                        })
                    })
                    .collect();
                settle_rounded(points, &precise);
            }
        }
    }
    b.printed.reserve(2 * t.rows.len());
    for (k, &(_, has_var_log)) in t.rows.iter().enumerate() {
        let cells = &t.cells[k * w..(k + 1) * w];
        let printed = [
            (t.variation, "variation_pct", cells[t.runs]),
            (has_var_log, "var_log", cells[t.runs + 1]),
        ];
        for (present, name, value) in printed {
            if present {
                b.printed.push(PrintedStat {
                    metric: metric.clone(),
                    percentile: Some(row_p(k)),
                    name: name.to_string(),
                    value,
                });
            }
        }
    }
    if !b.summarised.contains(&metric) {
        b.summarised.push(metric);
    }
}

/// V1–V4 print a fixed ladder of row labels (50 … 99.99, worst; no 99.7) but the rows
/// hold the run's own percentile array, which has one more value at exactly 1M or 10M
/// iterations: the row labelled `worst:` then holds the 99.999 (or 99.9999) value
/// (FORMATS §1.3). Returns the percentiles the rows really hold, when they differ.
fn mislabelled_ladder(b: &Builder, t: &Table, metric: &str) -> Option<Vec<f64>> {
    let has = |p: f64| t.rows.iter().any(|r| (r.0 - p).abs() < 1e-9);
    if !(has(99.9) && has(99.99)) || has(99.7) {
        return None;
    }
    let line = b.runs.first()?.series.iter().find(|s| s.metric == metric)?;
    let points = line.ladder()?;
    let n = t.rows.len();
    if points.len() <= n || t.rows[n - 1].0 != 100.0 {
        return None;
    }
    let same_prefix = t.rows[..n - 1]
        .iter()
        .zip(points)
        .all(|(r, q)| (r.0 - q.percentile).abs() < 1e-9);
    same_prefix.then(|| points[..n].iter().map(|q| q.percentile).collect())
}

/// A probe line rounds, so a percentile the table has no row for keeps the line's
/// rounding and can read above the table's precise next row (`99.99` printed `2,049`
/// beside a `worst` of 2048.60) or below its precise previous one (`99.9` printed `34.8`
/// beside a `99.7` of 34.82). No percentile lies above a higher one: such a point takes
/// the neighbour's value (the bound its printing allows; the printing moves to
/// `line_value`) when the gap is within the printing's half unit ([`line_half_unit`]).
/// Points holding a table's precise value (`precise`, one flag a point) are never moved.
pub fn settle_rounded(points: &mut [LadderPoint], precise: &[bool]) {
    let rounded = |i: usize| !precise.get(i).copied().unwrap_or(false);
    for i in (0..points.len().saturating_sub(1)).rev() {
        let (Some(v), Some(next)) = (points[i].value, points[i + 1].value) else {
            continue;
        };
        if v <= next || !rounded(i) || v <= 0.0 {
            continue;
        }
        if v - next <= line_half_unit(v) * (1.0 + 1e-9) {
            points[i].line_value = Some(v);
            points[i].value = Some(next);
        }
    }
    for i in 1..points.len() {
        let (Some(prev), Some(v)) = (points[i - 1].value, points[i].value) else {
            continue;
        };
        if v >= prev || !rounded(i) || v <= 0.0 {
            continue;
        }
        if prev - v <= line_half_unit(v) * (1.0 + 1e-9) {
            points[i].line_value = Some(v);
            points[i].value = Some(prev);
        }
    }
}

/// Half a unit of the last digit a probe line prints `v` (µs) with, the coarser of its two
/// printings: Chronicle's `Histogram.p` (3 decimals below 2.56, 2 below 25.6, 1 below 256,
/// whole below 2,560, tens above) and 4 significant digits.
fn line_half_unit(v: f64) -> f64 {
    const T: f64 = 2.56;
    let p: f64 = if v < T {
        0.0005
    } else if v < 10.0 * T {
        0.005
    } else if v < 100.0 * T {
        0.05
    } else if v < 1000.0 * T {
        0.5
    } else {
        5.0
    };
    p.max(0.5 * 10f64.powi(v.log10().floor() as i32 - 3))
}

/// Two percentiles closer than this are the same row.
const SAME_PERCENTILE: f64 = 1e-9;

/// Puts a table cell into a ladder: the precise value replaces the line's printing,
/// which moves to `line_value`; an absent cell leaves the line's value in place.
///
/// `from` is `Some` when the ladder ascends (it then stays so: points go in at their
/// rank), and says where the previous row's point was: rows ascend too, so the search
/// walks on from there instead of starting over (a table merge is rows × runs searches).
/// Returns the `from` for the next row.
fn refine(
    points: &mut Vec<LadderPoint>,
    from: Option<usize>,
    p: f64,
    cell: Option<f64>,
) -> Option<usize> {
    let (at, found) = match from {
        Some(c) => {
            // Points before `c` all lie below `p` when the one before `c` does; else
            // (rows out of order) the walk starts over.
            let c = if c > 0 && p - points[c - 1].percentile >= SAME_PERCENTILE {
                c
            } else {
                0
            };
            walk(points, c, p)
        }
        None => match points
            .iter()
            .position(|q| (q.percentile - p).abs() < SAME_PERCENTILE)
        {
            Some(at) => (at, true),
            None => (points.partition_point(|q| q.percentile < p), false),
        },
    };
    if found {
        let q = &mut points[at];
        if let Some(v) = cell {
            if q.line_value.is_none() {
                q.line_value = q.value;
            }
            q.value = Some(v);
        }
    } else {
        points.insert(
            at,
            LadderPoint {
                percentile: p,
                value: cell,
                line_value: None,
            },
        );
    }
    from.map(|_| at + 1)
}

/// In an ascending ladder whose points before `c` lie below `p`: the first point that is
/// `p` (`true`), else where `p` goes in (`false`), as a search from the start would find.
fn walk(points: &[LadderPoint], c: usize, p: f64) -> (usize, bool) {
    for (at, q) in points.iter().enumerate().skip(c) {
        if (q.percentile - p).abs() < SAME_PERCENTILE {
            return (at, true);
        }
        if q.percentile >= p {
            // Not `p` and above it: so are all that follow.
            return (at, false);
        }
    }
    (points.len(), false)
}

/// Whether the ladder's percentiles never descend (and none is NaN, which no order holds).
fn ascending(points: &[LadderPoint]) -> bool {
    points.iter().all(|q| !q.percentile.is_nan())
        && points
            .windows(2)
            .all(|w| w[0].percentile <= w[1].percentile)
}

/// A line cut to a readable length for a message.
fn shorten(s: &str) -> String {
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}
