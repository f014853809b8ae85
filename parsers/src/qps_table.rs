//! QPS–RT tables: small whitespace tables from load-test write-ups, a header naming
//! columns such as `count sleep RT qps cpu` (plus any others) and rows of numbers that may
//! carry a unit (`190%`, `80ms`).
//!
//! Input: a header line with at least two known column names (case-insensitive:
//! `qps`, `rt`, `tps`, `cpu`, `count`, `sleep`, `threads`, …), then data rows until a blank
//! line. A data row's cells are all numbers with an optional unit; a passage under a header
//! whose rows are formulas (`25ms * x * 15.4`) is skipped with a warning; a data row whose
//! cell count differs from the header's is an error. Fixture: `fixtures/qps-table/sweep.txt`.
//!
//! Output: one block per table (labelled by its lead line), one run per data row (index =
//! row number). Parameter columns (`count`, `sleep`, thread counts) become `Param::Num`
//! (their printed unit, if any, as `<name>_unit`); every other column is a `Data::Value`
//! series named by [`metric_name`] with the unit printed in its cell.

use crate::error::ParseError;
use crate::model::{Block, Param, Parsed, Run, Series};
use crate::registry::{Format, Head, ParseIter};
use crate::text::{LabelTracker, LineReader, metric_name};
use std::collections::VecDeque;
use std::io::BufRead;

/// The QPS–RT table format.
pub const FORMAT: Format = Format {
    name: "qps-table",
    version: "1",
    sniff,
    parse,
};

/// Column names that mark a QPS–RT header (compared after [`metric_name`]).
const KNOWN: &[&str] = &[
    "qps",
    "tps",
    "rps",
    "rt",
    "cpu",
    "count",
    "sleep",
    "threads",
    "thread",
    "concurrency",
];

/// Columns that describe the load rather than measure it: run parameters.
const PARAMS: &[&str] = &["count", "sleep", "threads", "thread", "concurrency"];

/// The sniff confidence: low, because the shape is generic and the specific formats
/// (tsar, jlbh, wrk, …) must win on their own files.
const CONFIDENCE: u8 = 20;

/// Confidence that `head` holds a QPS–RT table: a header followed by a numeric row of the
/// same width.
pub fn sniff(head: &Head) -> u8 {
    let mut prev: Option<usize> = None;
    for line in head.text.lines() {
        let toks: Vec<&str> = line.split_whitespace().collect();
        if let Some(width) = prev
            && toks.len() == width
            && data_cells(&toks).is_some()
        {
            return CONFIDENCE;
        }
        prev = is_header(&toks).then_some(toks.len());
    }
    0
}

/// Parses QPS–RT tables, yielding one block per table as it completes.
pub fn parse<'a>(r: Box<dyn BufRead + 'a>) -> ParseIter<'a> {
    let mut reader = LineReader::new(r);
    let mut machine = Machine::new();
    let mut done = false;
    Box::new(std::iter::from_fn(move || {
        loop {
            if let Some(p) = machine.out.pop_front() {
                return Some(Ok(p));
            }
            if done {
                return None;
            }
            // The number the next line will have (the reader counts only after reading).
            let n = reader.line_number() + 1;
            let step = match reader.next_line() {
                Ok(Some(line)) => machine.feed(line, n),
                Ok(None) => {
                    done = true;
                    machine.end_table();
                    Ok(())
                }
                Err(e) => Err(e),
            };
            if let Err(e) = step {
                done = true;
                machine.out.clear();
                return Some(Err(e));
            }
        }
    }))
}

/// A header: at least two tokens, none a number, at least two of them exactly a known
/// column name (so `qps(int count, long sleep)` in quoted code is not one).
fn is_header(toks: &[&str]) -> bool {
    toks.len() >= 2
        && toks.iter().all(|t| cell(t).is_none())
        && toks
            .iter()
            .filter(|t| KNOWN.iter().any(|k| t.eq_ignore_ascii_case(k)))
            .count()
            >= 2
}

/// A number with an optional unit suffix (`103`, `9.7`, `190%`, `80ms`, `1.5k/s`):
/// `(value, unit)`, or `None` when the token is anything else (`x`, `≈`, `*`, `1000/103`).
fn cell(tok: &str) -> Option<(f64, &str)> {
    let split = tok
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || c == '.' || (i == 0 && (c == '-' || c == '+'))))
        .map_or(tok.len(), |(i, _)| i);
    let (number, unit) = tok.split_at(split);
    // f64::from_str alone would also take `inf`, `NaN` and exponents.
    if !number.bytes().any(|c| c.is_ascii_digit()) || number.matches('.').count() > 1 {
        return None;
    }
    let unit_ok = unit
        .chars()
        .all(|c| c.is_alphabetic() || c == '%' || c == '/')
        && !unit.starts_with('/')
        && unit.chars().count() <= 8;
    if !unit_ok {
        return None;
    }
    Some((number.parse().ok()?, unit))
}

/// The cells of a data row, or `None` when some token is not a number.
fn data_cells<'t>(toks: &[&'t str]) -> Option<Vec<(f64, &'t str)>> {
    if toks.is_empty() {
        return None;
    }
    toks.iter().map(|t| cell(t)).collect()
}

/// A table under way.
#[derive(Debug)]
struct Table {
    label: Option<String>,
    first_line: u64,
    last_line: u64,
    header: Vec<String>,
    runs: Vec<Run>,
    /// Lines under the header that were not data rows (formulas, derivations).
    other_rows: usize,
}

impl Table {
    fn add_row(&mut self, cells: Vec<(f64, &str)>, n: u64) {
        let mut run = Run {
            index: self.runs.len() as u32 + 1,
            first_line: n,
            last_line: n,
            ..Default::default()
        };
        for (name, (value, unit)) in self.header.iter().zip(cells) {
            let metric = metric_name(name);
            if PARAMS.contains(&metric.as_str()) {
                if !unit.is_empty() {
                    run.params
                        .insert(format!("{metric}_unit"), Param::from(unit));
                }
                run.params.insert(metric, Param::Num(value));
            } else {
                let data = crate::model::Data::Value { value: Some(value) };
                run.series
                    .push(Series::new(metric, name.as_str(), unit, data));
            }
        }
        self.runs.push(run);
        self.last_line = n;
    }
}

/// The line-by-line state of one parse.
#[derive(Debug)]
struct Machine {
    labels: LabelTracker,
    table: Option<Table>,
    out: VecDeque<Parsed>,
}

impl Machine {
    fn new() -> Self {
        Machine {
            labels: LabelTracker::new(),
            table: None,
            out: VecDeque::new(),
        }
    }

    fn feed(&mut self, line: &str, n: u64) -> Result<(), ParseError> {
        let toks: Vec<&str> = line.split_whitespace().collect();
        if let Some(table) = &mut self.table {
            if toks.is_empty() {
                self.end_table();
                self.labels.observe(line);
                return Ok(());
            }
            match data_cells(&toks) {
                Some(cells) if table.other_rows == 0 => {
                    if cells.len() != table.header.len() {
                        return Err(ParseError::new(
                            n,
                            format!(
                                "table row has {} cells but its header (line {}) names {} \
                                 columns: {}",
                                cells.len(),
                                table.first_line,
                                table.header.len(),
                                table.header.join(" ")
                            ),
                        ));
                    }
                    table.add_row(cells, n);
                    return Ok(());
                }
                // Before any data row, a non-numeric line makes the passage a
                // derivation, which runs to the next blank line.
                _ if table.runs.is_empty() => {
                    table.other_rows += 1;
                    table.last_line = n;
                    return Ok(());
                }
                // After data rows, anything else ends the table and is read as prose.
                _ => self.end_table(),
            }
        }
        if is_header(&toks) {
            self.table = Some(Table {
                label: self.labels.label(),
                first_line: n,
                last_line: n,
                header: toks.iter().map(|s| s.to_string()).collect(),
                runs: Vec::new(),
                other_rows: 0,
            });
        } else {
            self.labels.observe(line);
        }
        Ok(())
    }

    fn end_table(&mut self) {
        let Some(table) = self.table.take() else {
            return;
        };
        if !table.runs.is_empty() {
            self.out.push_back(Parsed::Block(Block {
                label: table.label,
                first_line: table.first_line,
                last_line: table.last_line,
                runs: table.runs,
                printed: Vec::new(),
            }));
        } else if table.other_rows > 0 {
            self.out.push_back(Parsed::Warning {
                line: table.first_line,
                message: format!(
                    "skipped the table under `{}` (lines {}–{}): its rows are not all \
                     numbers (formulas?)",
                    table.header.join(" "),
                    table.first_line,
                    table.last_line
                ),
            });
        }
    }
}
