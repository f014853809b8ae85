//! tsar (alibaba/tsar) tables, in history mode (`tsar`: one row per `-i` minutes, then a
//! MAX/MEAN/MIN tail) and live mode (`tsar -l`: one row per `-i` seconds, no tail).
//!
//! Input: a two-line header, a module line (`Time` then one group per module or item,
//! `---cpu--`, `-----traffic----`, `--sda---`, each 8 characters per column) and a column
//! line (`Time user sys … util`), then rows starting with `14/04/13-00:21` (history) or
//! `11/04/13-14:09:10` (live). Cells are `%6.2f` numbers with an optional 1024-based
//! `K`/`M`/`G`/`T` suffix, or `------` when missing. The header repeats every 19 rows.
//! Rows and headers wrapped over several lines (mail clients) are rejoined by column count.
//! Fixture: `fixtures/tsar/history-tail.txt`.
//!
//! Output: each table is one block holding one run (index 1) with a `TimeSeries` per
//! `<module>.<column>` (`cpu.util`, `ts.rt`, `sda.util`); t is Unix seconds, reading the
//! printed local time as UTC. The MAX/MEAN/MIN tail goes into `Series::stats` as printed.
//! This module only reads text: no files, no clocks.
//!
//! A row with fewer values than its header is an error, unless the input ends inside it: a
//! row cut by the end of input is left out with a warning and the rows before it are kept.
//! So is a last row without its newline whose last value lacks the form tsar prints
//! (`3.3` of `3.38`, `96.3` of `96.3K`, `---` of `------`).
//!
//! Identity: no bench, no config. The run's tag `time` is its first row's time in RFC 3339
//! (`2013-04-14T00:21:00Z`): tsar prints local time without a zone, written as-is with `Z`.

use crate::error::ParseError;
use crate::format::{Format, Head, ParseIter};
use crate::lines::{LineMachine, Queue, drive};
use crate::model::{Block, Data, Run, Series, TimePoint};
use crate::text::{LabelTracker, metric_name};
use chrono::NaiveDate;
use std::collections::BTreeMap;
use std::io::BufRead;

/// The tsar format.
pub const FORMAT: Format = Format::new("tsar", "1", sniff, parse)
    .with_binary_prefixes()
    .with_local_times()
    .claims_at_most(95);

/// Width of one column in the module line: a 6-character header plus 2 spaces.
const COLUMN_WIDTH: usize = 8;

/// Names of the tail rows, in the order tsar prints them.
const TAIL: [&str; 3] = ["MAX", "MEAN", "MIN"];

/// The first whitespace-separated token of a line.
fn first_token(line: &str) -> Option<&str> {
    line.split_whitespace().next()
}

/// Confidence that `head` is tsar output: a module line, its column line and a dated row.
/// Only a line with dashes can be a module line, so only those are split into tokens.
pub fn sniff(head: &Head) -> u8 {
    let lines: Vec<&str> = head.text.lines().collect();
    let mut best = 0;
    for (i, line) in lines.iter().enumerate() {
        if !line.contains("--") || !is_module_line(&line.split_whitespace().collect::<Vec<_>>()) {
            continue;
        }
        // The column line follows, possibly after wrapped parts of the module line.
        let rest = &lines[i + 1..];
        let Some(names_at) = rest
            .iter()
            .take(4)
            .position(|l| first_token(l) == Some("Time"))
        else {
            best = best.max(30);
            continue;
        };
        let dated = rest[names_at + 1..]
            .iter()
            .take(4)
            .any(|l| first_token(l).is_some_and(is_timestamp));
        if dated {
            return 95;
        }
        best = best.max(60);
    }
    best
}

/// Parses tsar output, yielding one block per table as it completes.
pub fn parse<'a>(r: Box<dyn BufRead + 'a>) -> ParseIter<'a> {
    drive(r, Machine::default())
}

/// `Time` followed by module groups (`---cpu--`, `mmcblk0p`): the first header line.
fn is_module_line(toks: &[&str]) -> bool {
    toks.len() >= 2 && toks[0] == "Time" && is_group_run(&toks[1..])
}

/// Tokens that are all module groups, at least one drawn with dashes.
fn is_group_run(toks: &[&str]) -> bool {
    !toks.is_empty()
        && toks.iter().any(|t| t.contains("--"))
        && toks.iter().all(|t| {
            // A name that fills its whole width is printed without dashes (`mmcblk0p`);
            // column names are at most 6 characters, so they never pass for one.
            (t.contains('-') || t.chars().count() % COLUMN_WIDTH == 0)
                && t.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.:/".contains(c))
        })
}

/// `dd/mm/yy-HH:MM` (history) or `dd/mm/yy-HH:MM:SS` (live).
fn is_timestamp(tok: &str) -> bool {
    let b = tok.as_bytes();
    let shape = |pattern: &[u8]| {
        b.len() == pattern.len()
            && b.iter().zip(pattern).all(|(c, p)| match p {
                b'9' => c.is_ascii_digit(),
                _ => c == p,
            })
    };
    shape(b"99/99/99-99:99") || shape(b"99/99/99-99:99:99")
}

/// Unix seconds of a row's time, reading it as UTC (tsar prints local time without a zone).
/// Two-digit years follow POSIX `%y`: 69–99 are 19xx, 00–68 are 20xx.
fn parse_time(tok: &str) -> Option<f64> {
    let num = |i: usize| tok.get(i..i + 2)?.parse::<u32>().ok();
    let yy = num(6)? as i32;
    let year = if yy >= 69 { 1900 + yy } else { 2000 + yy };
    let seconds = if tok.len() > 14 { num(15)? } else { 0 };
    let t =
        NaiveDate::from_ymd_opt(year, num(3)?, num(0)?)?.and_hms_opt(num(9)?, num(12)?, seconds)?;
    Some(t.and_utc().timestamp() as f64)
}

/// Whether a cell is whole as `printf_result` prints it: `%6.2f` (`0.20`, `198.75`),
/// `%5.1f` and a K/M/G/T suffix (`96.3K`), or six dashes; no prefix of one is another.
fn printed_whole(tok: &str) -> bool {
    let decimals = |t: &str, n: usize| {
        t.split_once('.').is_some_and(|(i, f)| {
            !i.is_empty() && f.len() == n && i.bytes().chain(f.bytes()).all(|b| b.is_ascii_digit())
        })
    };
    tok == "------"
        || decimals(tok, 2)
        || tok
            .strip_suffix(['K', 'M', 'G', 'T'])
            .is_some_and(|t| decimals(t, 1))
}

/// Whether a token has the shape of a tsar cell (number, suffixed number or `------`).
fn is_cell(tok: &str) -> bool {
    parse_cell(tok).is_some()
}

/// A tsar cell: `------` is missing (`Some(None)`), `92.0K` is 92.0·1024 (the suffixes
/// are 1024-based, as `printf_result` divides by 1024); anything else is not a cell (`None`).
fn parse_cell(tok: &str) -> Option<Option<f64>> {
    if tok.len() >= 2 && tok.bytes().all(|c| c == b'-') {
        return Some(None);
    }
    let (digits, scale) = match tok.as_bytes().last()? {
        b'K' => (&tok[..tok.len() - 1], 1024f64),
        b'M' => (&tok[..tok.len() - 1], 1024f64.powi(2)),
        b'G' => (&tok[..tok.len() - 1], 1024f64.powi(3)),
        b'T' => (&tok[..tok.len() - 1], 1024f64.powi(4)),
        _ => (tok, 1.0),
    };
    // f64::from_str also takes `inf`, `NaN` and exponents, which tsar never prints.
    let plain = !digits.is_empty()
        && digits.bytes().all(|c| c.is_ascii_digit() || c == b'.')
        && digits.bytes().filter(|&c| c == b'.').count() <= 1
        && digits.bytes().any(|c| c.is_ascii_digit());
    if !plain {
        return None;
    }
    let v: f64 = digits.parse().ok()?;
    Some(Some(v * scale))
}

/// The unit of a column, only where the tsar module documents it (FORMATS §2.5: the `ts`
/// module's qps, cons, Bps and rt); tsar itself prints no unit in a cell.
fn unit_of(group: &str, column: &str) -> &'static str {
    match (group, column) {
        ("ts", "qps") => "req/s",
        ("ts", "cons") => "conn/s",
        ("ts", "Bps") => "bytes/s",
        ("ts", "rt") => "ms",
        _ => "",
    }
}

/// Lines that fence a pasted block (`{code}`, Markdown fences): not lead lines.
fn is_fence(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("```") || t.starts_with("~~~") || t == "{code}" || t == "{noformat}"
}

/// One column of a complete header.
#[derive(Debug, Clone, PartialEq)]
struct Column {
    metric: String,
    display: String,
    unit: &'static str,
}

/// A header being read: the module line (possibly wrapped), then the column line.
#[derive(Debug)]
struct HeaderDraft {
    first_line: u64,
    /// Module or item name (dashes removed) and how many columns it spans.
    groups: Vec<(String, usize)>,
    /// Column names, once the `Time` column line has started.
    names: Option<Vec<String>>,
}

impl HeaderDraft {
    fn new(first_line: u64, toks: &[&str]) -> Self {
        let mut h = HeaderDraft {
            first_line,
            groups: Vec::new(),
            names: None,
        };
        h.add_groups(toks);
        h
    }

    fn add_groups(&mut self, toks: &[&str]) {
        for t in toks {
            let width = t.chars().count().div_ceil(COLUMN_WIDTH).max(1);
            self.groups.push((t.trim_matches('-').to_string(), width));
        }
    }

    fn spanned(&self) -> usize {
        self.groups.iter().map(|g| g.1).sum()
    }

    /// Takes the next line; `Some(columns)` once the header is complete.
    fn feed(&mut self, toks: &[&str], line: u64) -> Result<Option<Vec<Column>>, ParseError> {
        match &mut self.names {
            None if toks.first() == Some(&"Time") => {
                self.names = Some(toks[1..].iter().map(|s| s.to_string()).collect());
            }
            None if is_group_run(toks) => {
                self.add_groups(toks);
                return Ok(None);
            }
            None => {
                return Err(ParseError::new(
                    line,
                    format!(
                        "tsar header cut off: the module line at line {} is not followed by \
                         its column line (`Time user sys …`)",
                        self.first_line
                    ),
                ));
            }
            Some(names) => {
                let continues = toks
                    .first()
                    .is_some_and(|t| *t != "Time" && !is_timestamp(t) && !TAIL.contains(t));
                if !continues {
                    return Err(self.count_error(line));
                }
                names.extend(toks.iter().map(|s| s.to_string()));
            }
        }
        let have = self.names.as_ref().map_or(0, Vec::len);
        let need = self.spanned();
        if have < need {
            return Ok(None);
        }
        if have > need {
            // A lone group whose dashes were edited is still unambiguous.
            if self.groups.len() == 1 {
                self.groups[0].1 = have;
            } else {
                return Err(self.count_error(line));
            }
        }
        Ok(Some(self.columns()))
    }

    fn count_error(&self, line: u64) -> ParseError {
        ParseError::new(
            line,
            format!(
                "tsar header at line {}: the column line names {} columns but the module line \
                 spans {} (the header is cut off or its lines do not match)",
                self.first_line,
                self.names.as_ref().map_or(0, Vec::len),
                self.spanned()
            ),
        )
    }

    /// Metric names `<group>.<column>`; a group name printed twice (items cut to the same
    /// 8 characters, `mmcblk0p`) gets `_2`, `_3`… from its second occurrence on.
    fn columns(&self) -> Vec<Column> {
        let names = self.names.as_deref().unwrap_or_default();
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        let mut out = Vec::with_capacity(names.len());
        let mut names = names.iter();
        for (group, width) in &self.groups {
            let n = seen.entry(group.as_str()).or_default();
            *n += 1;
            let mut prefix = metric_name(group);
            if *n > 1 {
                prefix = format!("{prefix}_{n}");
            }
            for name in names.by_ref().take(*width) {
                out.push(Column {
                    metric: format!("{prefix}.{}", metric_name(name)),
                    display: format!("{group} {name}"),
                    unit: unit_of(group, name),
                });
            }
        }
        out
    }
}

/// A table being read: its series and which series each current column feeds.
#[derive(Debug)]
struct Table {
    label: Option<String>,
    first_line: u64,
    last_line: u64,
    series: Vec<Series>,
    /// Column position → index in `series`, for the latest header.
    columns: Vec<usize>,
    rows: usize,
    /// A blank line after rows was seen: a header now starts a new table.
    blank_seen: bool,
    /// A MAX/MEAN/MIN row was seen: only tail rows may follow.
    tail_seen: bool,
}

impl Table {
    fn new(label: Option<String>, first_line: u64, columns: &[Column]) -> Self {
        let mut t = Table {
            label,
            first_line,
            last_line: first_line,
            series: Vec::new(),
            columns: Vec::new(),
            rows: 0,
            blank_seen: false,
            tail_seen: false,
        };
        t.set_columns(columns);
        t
    }

    /// Installs a (repeated) header; columns seen before keep their series, so a header
    /// reprinted after a device appeared extends the table instead of splitting it.
    fn set_columns(&mut self, columns: &[Column]) {
        self.columns = columns
            .iter()
            .map(|c| {
                self.series
                    .iter()
                    .position(|s| s.metric == c.metric)
                    .unwrap_or_else(|| {
                        let data = Data::TimeSeries { points: Vec::new() };
                        self.series
                            .push(Series::new(&c.metric, &c.display, c.unit, data));
                        self.series.len() - 1
                    })
            })
            .collect();
    }

    fn into_block(self) -> Block {
        // The run's time is its first row's, as printed (local time, written with `Z`).
        let first = self
            .series
            .iter()
            .filter_map(|s| match &s.data {
                Data::TimeSeries { points } => points.first().map(|p| p.t),
                _ => None,
            })
            .reduce(f64::min);
        let mut run = Run {
            index: 1,
            first_line: self.first_line,
            last_line: self.last_line,
            series: self.series,
            ..Default::default()
        };
        if let Some(t) = first.and_then(crate::units::rfc3339_utc) {
            run.tags.insert("time".into(), t);
        }
        Block {
            label: self.label,
            first_line: self.first_line,
            last_line: self.last_line,
            runs: vec![run],
            printed: Vec::new(),
        }
    }
}

/// What a row holds: a sample at time t, or one of the MAX/MEAN/MIN tail rows.
#[derive(Debug, Clone, Copy)]
enum RowKind {
    Sample(f64),
    Tail(&'static str),
}

/// A row whose cells may continue on the next line (wrapped by a mail client).
#[derive(Debug)]
struct Row {
    kind: RowKind,
    line: u64,
    cells: Vec<Option<f64>>,
}

/// The line-by-line state of one parse.
#[derive(Debug)]
struct Machine {
    labels: LabelTracker,
    header: Option<HeaderDraft>,
    table: Option<Table>,
    row: Option<Row>,
    out: Queue,
}

impl Default for Machine {
    fn default() -> Self {
        Machine {
            labels: LabelTracker::new(),
            header: None,
            table: None,
            row: None,
            out: Queue::default(),
        }
    }
}

impl Machine {
    /// Handles a line while a table is open; `false` when the line ends the table.
    fn table_line(&mut self, toks: &[&str], n: u64) -> Result<bool, ParseError> {
        let Some(table) = &mut self.table else {
            return Ok(false);
        };
        let Some(first) = toks.first() else {
            table.blank_seen |= table.rows > 0;
            return Ok(true);
        };
        let tail = TAIL.iter().find(|t| *t == first);
        // Rows may follow a blank line (double-spaced pastes), but not the tail.
        let kind = if is_timestamp(first) && !table.tail_seen {
            let t = parse_time(first).ok_or_else(|| {
                ParseError::new(
                    n,
                    format!("`{first}` is not a valid tsar date (dd/mm/yy-HH:MM)"),
                )
            })?;
            RowKind::Sample(t)
        } else if let Some(name) = tail.filter(|_| table.rows > 0) {
            table.tail_seen = true;
            RowKind::Tail(name)
        } else if is_module_line(toks) && !table.blank_seen && !table.tail_seen {
            // The header reprinted after 19 rows: same table.
            self.header = Some(HeaderDraft::new(n, &toks[1..]));
            return Ok(true);
        } else {
            self.end_table();
            return Ok(false);
        };
        self.row = Some(Row {
            kind,
            line: n,
            cells: Vec::with_capacity(table.columns.len()),
        });
        self.add_cells(&toks[1..], n).map(|()| true)
    }

    /// Whether the line carries only cells, i.e. continues a wrapped row.
    fn continues_row(&self, toks: &[&str]) -> bool {
        !toks.is_empty() && toks.iter().all(|t| is_cell(t))
    }

    fn add_cells(&mut self, toks: &[&str], n: u64) -> Result<(), ParseError> {
        let (Some(table), Some(row)) = (&mut self.table, &mut self.row) else {
            return Ok(());
        };
        let width = table.columns.len();
        for tok in toks {
            let col = row.cells.len();
            if col >= width {
                return Err(ParseError::new(
                    n,
                    format!(
                        "tsar row has more than the {width} values its header names \
                         (extra value `{tok}`)"
                    ),
                ));
            }
            let cell = parse_cell(tok).ok_or_else(|| {
                let name = &table.series[table.columns[col]].metric;
                ParseError::new(
                    n,
                    format!(
                        "`{tok}` in column {name} is not a tsar value (like 3.38, 92.0K or ------)"
                    ),
                )
            })?;
            row.cells.push(cell);
        }
        table.last_line = n;
        if row.cells.len() == width {
            let row = self.row.take().expect("row is open");
            let table = self.table.as_mut().expect("table is open");
            commit(table, row);
        }
        Ok(())
    }

    fn short_row_error(&self) -> ParseError {
        let (line, got) = self
            .row
            .as_ref()
            .map_or((0, 0), |r| (r.line, r.cells.len()));
        let want = self.table.as_ref().map_or(0, |t| t.columns.len());
        ParseError::new(
            line,
            format!("tsar row has {got} values but its header names {want} columns"),
        )
    }

    /// Whether the line carries the cells of a row: it continues an open one, or starts a
    /// sample or tail row of the open table.
    fn row_line(&self, toks: &[&str]) -> bool {
        let Some(table) = self.table.as_ref().filter(|_| self.header.is_none()) else {
            return false;
        };
        if self.row.is_some() {
            return self.continues_row(toks);
        }
        toks.len() > 1
            && ((is_timestamp(toks[0]) && !table.tail_seen)
                || (TAIL.contains(&toks[0]) && table.rows > 0))
    }

    fn end_table(&mut self) {
        let Some(table) = self.table.take() else {
            return;
        };
        if table.rows == 0 {
            self.out.warning(
                table.first_line,
                "tsar header without any rows: skipped".to_string(),
            );
        } else {
            self.out.block(table.into_block());
        }
    }
}

impl LineMachine for Machine {
    fn feed(&mut self, line: &str, n: u64) -> Result<(), ParseError> {
        let toks: Vec<&str> = line.split_whitespace().collect();
        if let Some(h) = &mut self.header {
            if let Some(columns) = h.feed(&toks, n)? {
                let first = h.first_line;
                self.header = None;
                match &mut self.table {
                    Some(t) => {
                        t.set_columns(&columns);
                        t.last_line = n;
                    }
                    None => {
                        let mut t = Table::new(self.labels.take_for_block(), first, &columns);
                        t.last_line = n;
                        self.table = Some(t);
                    }
                }
            }
            return Ok(());
        }
        if self.row.is_some() {
            if self.continues_row(&toks) {
                return self.add_cells(&toks, n);
            }
            return Err(self.short_row_error());
        }
        if self.table.is_some() && self.table_line(&toks, n)? {
            return Ok(());
        }
        if is_module_line(&toks) {
            self.header = Some(HeaderDraft::new(n, &toks[1..]));
        } else if !is_fence(line) {
            self.labels.observe(line);
        }
        Ok(())
    }

    fn feed_unterminated(&mut self, line: &str, n: u64) -> Result<(), ParseError> {
        let toks: Vec<&str> = line.split_whitespace().collect();
        if let Some(last) = toks.last().filter(|t| is_cell(t) && !printed_whole(t))
            && self.row_line(&toks)
        {
            self.row = None;
            self.out.warning(
                n,
                format!(
                    "the input ends inside this row, without its newline: its last value \
                     `{last}` is cut short (tsar prints `%6.2f`, or one decimal and K/M/G/T); \
                     the row is left out"
                ),
            );
            return Ok(());
        }
        self.feed(line, n)
    }

    /// End of input: close what is open, or report what was cut off.
    fn finish(&mut self, last: u64) -> Result<(), ParseError> {
        if let Some(h) = &self.header {
            return Err(ParseError::new(
                last,
                format!(
                    "input ends inside the tsar header that starts at line {}",
                    h.first_line
                ),
            ));
        }
        if self.row.is_some() {
            // Input that stops inside a row was cut there: the rows before it are whole.
            let cut = self.short_row_error();
            self.row = None;
            self.out.warning(
                cut.line,
                format!(
                    "input ends inside this row: {}; the row is left out",
                    cut.message
                ),
            );
        }
        self.end_table();
        Ok(())
    }

    fn queue(&mut self) -> &mut Queue {
        &mut self.out
    }
}

/// Stores a complete row: samples as time points, tail rows as printed stats.
fn commit(table: &mut Table, row: Row) {
    for (&s, cell) in table.columns.iter().zip(row.cells) {
        let series = &mut table.series[s];
        match row.kind {
            RowKind::Sample(t) => {
                if let Data::TimeSeries { points } = &mut series.data {
                    points.push(TimePoint { t, value: cell });
                }
            }
            RowKind::Tail(name) => {
                if let Some(v) = cell {
                    series.stats.insert(name.to_string(), v);
                }
            }
        }
    }
    if matches!(row.kind, RowKind::Sample(_)) {
        table.rows += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Parsed;
    use crate::testutil::{parse_ok, shared};

    const K: f64 = 1024.0;
    const M: f64 = 1024.0 * 1024.0;
    const G: f64 = 1024.0 * 1024.0 * 1024.0;
    const T: f64 = 1024.0 * 1024.0 * 1024.0 * 1024.0;

    fn series<'b>(b: &'b Block, metric: &str) -> &'b Series {
        b.runs[0]
            .series
            .iter()
            .find(|s| s.metric == metric)
            .unwrap_or_else(|| panic!("no series {metric}"))
    }

    fn points(b: &Block, metric: &str) -> Vec<TimePoint> {
        match &series(b, metric).data {
            Data::TimeSeries { points } => points.clone(),
            other => panic!("{metric} is not a time series: {other:?}"),
        }
    }

    fn values(b: &Block, metric: &str) -> Vec<Option<f64>> {
        points(b, metric).iter().map(|p| p.value).collect()
    }

    fn mean(b: &Block, metric: &str) -> f64 {
        let v: Vec<f64> = values(b, metric).into_iter().flatten().collect();
        v.iter().sum::<f64>() / v.len() as f64
    }

    fn metrics(b: &Block) -> Vec<&str> {
        b.runs[0].series.iter().map(|s| s.metric.as_str()).collect()
    }

    fn stats(b: &Block, metric: &str) -> Vec<(&'static str, f64)> {
        let s = &series(b, metric).stats;
        TAIL.iter()
            .filter_map(|k| s.get(*k).map(|v| (*k, *v)))
            .collect()
    }

    fn parse_str(text: &str) -> Vec<Result<Parsed, ParseError>> {
        (FORMAT.parse)(Box::new(text.as_bytes())).collect()
    }

    fn head(text: &str) -> Head<'_> {
        Head {
            file_name: "",
            text,
            complete: true,
        }
    }

    #[test]
    fn cells() {
        assert_eq!(parse_cell("92.0K"), Some(Some(94208.0)));
        assert_eq!(parse_cell("1.3G"), Some(Some(1.3 * G)));
        assert_eq!(parse_cell("4.3T"), Some(Some(4.3 * T)));
        assert_eq!(parse_cell("198.75"), Some(Some(198.75)));
        assert_eq!(parse_cell("1000.00"), Some(Some(1000.0)));
        assert_eq!(parse_cell("------"), Some(None));
        for bad in [
            "", "-", "3.x7", "inf", "NaN", "1e5", "1.2.3", "K", ".", "12k", "-1.00",
        ] {
            assert_eq!(parse_cell(bad), None, "{bad}");
        }
    }

    #[test]
    fn times() {
        assert_eq!(parse_time("14/04/13-00:21"), Some(1365898860.0));
        assert_eq!(parse_time("04/06/18-21:09:22"), Some(1528146562.0));
        assert_eq!(parse_time("31/12/99-23:59"), Some(946684740.0));
        assert_eq!(parse_time("30/02/13-00:21"), None);
        assert_eq!(parse_time("14/04/13-24:00"), None);
        assert!(is_timestamp("14/04/13-00:21") && is_timestamp("11/04/13-14:09:10"));
        assert!(!is_timestamp("14/04/2013-00:21") && !is_timestamp("14/04/13 00:21"));
    }

    /// Seed 003: two mail-wrapped tables inside `{code}` markers (TS-1405).
    #[test]
    fn seed_003_wrapped_tables() {
        let Some(p) = shared("seeds/003_7e118ced5c861960.txt") else {
            return;
        };
        let bytes = std::fs::read(p).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert_eq!(sniff(&head(&text)), 95);
        assert_eq!(crate::detect(&head(&text)).map(|f| f.name), Some("tsar"));
        let blocks = parse_ok(&FORMAT, &bytes);
        assert_eq!(blocks.len(), 2);
        let (before, after) = (&blocks[0], &blocks[1]);
        assert_eq!(before.label.as_deref(), Some("the current master"));
        assert_eq!(
            after.label.as_deref(),
            Some("the current master with patch version v11jp")
        );
        assert_eq!((before.first_line, before.last_line), (18, 41));
        assert_eq!((after.first_line, after.last_line), (45, 70));
        let expected = [
            "cpu.user", "cpu.sys", "cpu.wait", "cpu.hirq", "cpu.sirq", "cpu.util", "ts.qps",
            "ts.cons", "ts.bps", "ts.rt", "ts.rpc",
        ];
        for (b, rows) in [(before, 10), (after, 11)] {
            assert_eq!(b.runs.len(), 1);
            assert_eq!(b.runs[0].index, 1);
            assert_eq!(metrics(b), expected);
            for m in expected {
                assert_eq!(points(b, m).len(), rows, "{m}");
            }
        }
        assert!((mean(before, "ts.rt") - 3.388).abs() < 1e-9);
        assert!((mean(after, "ts.rt") - 2.962).abs() < 5e-4);
        assert_eq!(format!("{:.2}", mean(before, "cpu.util")), "68.36");
        assert_eq!(format!("{:.2}", mean(after, "cpu.util")), "70.08");
        assert_eq!(values(before, "ts.qps")[0], Some(94208.0));
        assert_eq!(values(before, "ts.cons")[0], Some(18.4 * K));
        assert_eq!(values(before, "ts.bps")[0], Some(1.3 * G));
        assert_eq!(
            values(after, "ts.rt"),
            [
                2.97, 2.98, 2.99, 2.98, 2.93, 2.94, 3.01, 2.93, 2.96, 2.97, 2.92
            ]
            .map(Some)
        );
        // 14/04/13-00:21 .. 00:30, one row a minute.
        let t: Vec<f64> = points(before, "ts.rt").iter().map(|p| p.t).collect();
        assert_eq!(
            t,
            (0..10)
                .map(|i| 1365898860.0 + 60.0 * i as f64)
                .collect::<Vec<_>>()
        );
        assert_eq!(points(after, "ts.rt")[0].t, 1365898920.0);
        let rt = series(before, "ts.rt");
        assert_eq!((rt.unit.as_str(), rt.display.as_str()), ("ms", "ts rt"));
        assert_eq!(series(before, "ts.qps").unit, "req/s");
        assert_eq!(series(before, "ts.bps").unit, "bytes/s");
        assert_eq!(series(before, "cpu.util").unit, "");
        assert!(series(before, "ts.rt").stats.is_empty());
    }

    /// What a sample must yield: rows, metric set, some values, the printed tail.
    struct Expect {
        file: &'static str,
        rows: usize,
        first_t: f64,
        metrics: &'static [&'static str],
        values: &'static [(&'static str, &'static [f64])],
        stats: &'static [(&'static str, [f64; 3])],
    }

    // Printed numbers such as the MIN 3.14 below are data, not approximations of π.
    #[allow(clippy::approx_constant)]
    const SAMPLES: &[Expect] = &[
        Expect {
            file: "history-cpu-detail-i1-clsn-truncated.txt",
            rows: 6,
            first_t: 1528144620.0, // 04/06/18-20:37
            metrics: &[
                "cpu.user", "cpu.sys", "cpu.wait", "cpu.hirq", "cpu.sirq", "cpu.util",
            ],
            values: &[
                ("cpu.util", &[0.14, 0.15, 0.18, 0.18, 0.12, 0.15]),
                ("cpu.wait", &[0.02, 0.30, 0.00, 0.00, 0.00, 0.00]),
            ],
            stats: &[],
        },
        Expect {
            file: "history-default-modules-with-max-mean-min-clsn.txt",
            rows: 6,
            first_t: 1528145100.0, // 04/06/18-20:45
            metrics: &[
                "cpu.util",
                "mem.util",
                "tcp.retran",
                "traffic.bytin",
                "traffic.bytout",
                "sda.util",
                "load.load1",
            ],
            values: &[
                ("mem.util", &[18.39, 18.41, 18.39, 18.54, 18.24, 18.27]),
                ("traffic.bytout", &[89.0, 3.0, 3.0, 3.0, 32.0, 24.0]),
            ],
            stats: &[
                ("cpu.util", [0.16, 0.16, 0.16]),
                ("mem.util", [18.54, 18.37, 18.24]),
                ("traffic.bytin", [72.0, 10.60, 4.0]),
                ("traffic.bytout", [89.0, 13.0, 3.0]),
                ("sda.util", [0.15, 0.03, 0.03]),
                ("load.load1", [0.0, 0.0, 0.0]),
            ],
        },
        Expect {
            file: "history-ts-module-ats.txt",
            rows: 3,
            first_t: 1390925400.0, // 28/01/14-16:10
            metrics: &["ts.qps", "ts.cons", "ts.bps", "ts.rt", "ts.rpc"],
            values: &[
                ("ts.qps", &[3.4 * K, 3.4 * K, 3.5 * K]),
                ("ts.bps", &[87.8 * M, 89.8 * M, 87.3 * M]),
                ("ts.rt", &[64.66, 61.59, 63.80]),
                ("ts.rpc", &[2.87, 2.83, 2.82]),
            ],
            stats: &[],
        },
        Expect {
            file: "history-ts_cache-module-ats.txt",
            rows: 3,
            first_t: 1390925700.0, // 28/01/14-16:15
            metrics: &[
                "ts_cache.hit",
                "ts_cache.ramhit",
                "ts_cache.band",
                "ts_cache.ssdhit",
            ],
            values: &[
                ("ts_cache.hit", &[94.50, 94.70, 94.60]),
                ("ts_cache.band", &[91.70, 94.70, 93.80]),
            ],
            stats: &[],
        },
        Expect {
            file: "history-ts_conn-module-ats.txt",
            rows: 3,
            first_t: 1390926000.0, // 28/01/14-16:20
            metrics: &[
                "ts_conn.client",
                "ts_conn.server",
                "ts_conn.cache",
                "ts_conn.open",
                "ts_conn.c_act",
                "ts_conn.t_cli",
                "ts_conn.t_srv",
            ],
            values: &[
                ("ts_conn.client", &[96.3 * K, 94.8 * K, 96.4 * K]),
                ("ts_conn.t_srv", &[13.0, 16.0, 16.0]),
            ],
            stats: &[],
        },
        Expect {
            file: "history-ts_os-module-ats.txt",
            rows: 3,
            first_t: 1390925700.0,
            metrics: &["ts_os.qps", "ts_os.cons", "ts_os.mbps", "ts_os.rpc"],
            values: &[
                ("ts_os.qps", &[198.75, 199.32, 198.24]),
                ("ts_os.mbps", &[5.5 * M, 5.1 * M, 5.1 * M]),
            ],
            stats: &[],
        },
        Expect {
            file: "history-ts_storage-module-ats.txt",
            rows: 3,
            first_t: 1390925700.0,
            metrics: &[
                "ts_storage.ram",
                "ts_storage.disk",
                "ts_storage.objs",
                "ts_storage.size",
            ],
            values: &[
                ("ts_storage.ram", &[24.0 * G, 24.0 * G, 24.0 * G]),
                ("ts_storage.disk", &[4.3 * T, 4.3 * T, 4.3 * T]),
                ("ts_storage.objs", &[130.1 * M, 130.1 * M, 130.2 * M]),
            ],
            stats: &[],
        },
        Expect {
            file: "history-with-max-mean-min-rpi-hugozhu.txt",
            rows: 6,
            first_t: 1365856200.0, // 13/04/13-12:30
            metrics: &[
                "cpu.util",
                "mem.util",
                "tcp.retran",
                "traffic.pktin",
                "traffic.pktout",
                "mmcblk0.util",
                "mmcblk0p.util",
                "mmcblk0p_2.util",
                "sda.util",
                "load.load1",
                "rpi.temp",
            ],
            values: &[
                ("cpu.util", &[7.77, 6.39, 5.01, 6.24, 2.77, 2.34]),
                ("mmcblk0p_2.util", &[8.09, 7.70, 8.49, 6.72, 5.20, 3.93]),
                ("rpi.temp", &[47.08, 47.62, 47.62, 47.62, 47.08, 47.62]),
            ],
            stats: &[
                ("cpu.util", [14.68, 2.51, 1.67]),
                ("tcp.retran", [100.0, 3.06, 0.0]),
                ("mmcblk0p.util", [0.0, 0.0, 0.0]),
                ("mmcblk0p_2.util", [18.43, 4.59, 3.14]),
                ("sda.util", [1.21, 0.05, 0.10]),
                ("rpi.temp", [47.62, 6.15, 0.04]),
            ],
        },
        Expect {
            file: "live-default-modules-clsn.txt",
            rows: 4,
            first_t: 1528146562.0, // 04/06/18-21:09:22
            metrics: &[
                "cpu.util",
                "mem.util",
                "tcp.retran",
                "traffic.bytin",
                "traffic.bytout",
                "sda.util",
                "load.load1",
            ],
            values: &[
                ("cpu.util", &[0.0, 1.96, 0.0, 0.0]),
                ("traffic.bytout", &[278.0, 198.0, 198.0, 198.0]),
            ],
            stats: &[],
        },
        Expect {
            file: "live-mem-detail-units-clsn-truncated.txt",
            rows: 3,
            first_t: 1528146887.0, // 04/06/18-21:14:47
            metrics: &[
                "mem.free",
                "mem.used",
                "mem.buff",
                "mem.cach",
                "mem.total",
                "mem.util",
            ],
            values: &[
                ("mem.free", &[142.1 * M, 142.1 * M, 142.1 * M]),
                ("mem.total", &[474.6 * M, 474.6 * M, 474.6 * M]),
                ("mem.util", &[18.44, 18.44, 18.44]),
            ],
            stats: &[],
        },
        Expect {
            file: "live-readme-alibaba.txt",
            rows: 2,
            first_t: 1365689350.0, // 11/04/13-14:09:10
            metrics: &[
                "cpu.util",
                "mem.util",
                "tcp.retran",
                "traffic.pktin",
                "traffic.pktout",
                "xvda.util",
                "xvda1.util",
                "xvda2.util",
                "xvda3.util",
                "xvda4.util",
                "xvda5.util",
                "load.load1",
            ],
            values: &[
                ("mem.util", &[11.57, 11.57]),
                ("traffic.pktin", &[9.0, 4.0]),
            ],
            stats: &[],
        },
        Expect {
            file: "live-rpi-module-hugozhu.txt",
            rows: 8,
            first_t: 1365857856.0, // 13/04/13-12:57:36
            metrics: &["rpi.temp"],
            values: &[(
                "rpi.temp",
                &[47.08, 47.08, 47.08, 46.54, 47.08, 47.08, 47.62, 47.08],
            )],
            stats: &[],
        },
    ];

    #[test]
    fn every_sample() {
        let Some(dir) = shared("samples/tsar") else {
            return;
        };
        let mut seen = 0;
        for e in SAMPLES {
            let bytes = std::fs::read(dir.join(e.file)).unwrap();
            let text = String::from_utf8_lossy(&bytes);
            assert_eq!(sniff(&head(&text)), 95, "{}", e.file);
            let detected = crate::detect(&head(&text)).map(|f| f.name);
            assert_eq!(detected, Some("tsar"), "{}", e.file);
            let blocks = parse_ok(&FORMAT, &bytes);
            assert_eq!(blocks.len(), 1, "{}", e.file);
            let b = &blocks[0];
            assert_eq!(b.label, None, "{}", e.file);
            assert_eq!(metrics(b), e.metrics, "{}", e.file);
            for m in e.metrics {
                let p = points(b, m);
                assert_eq!(p.len(), e.rows, "{} {m}", e.file);
                assert_eq!(p[0].t, e.first_t, "{} {m}", e.file);
            }
            for (m, want) in e.values {
                let want: Vec<_> = want.iter().map(|v| Some(*v)).collect();
                assert_eq!(values(b, m), want, "{} {m}", e.file);
            }
            for m in e.metrics {
                let got = stats(b, m);
                match e.stats.iter().find(|s| s.0 == *m) {
                    Some((_, want)) => {
                        let want: Vec<_> = TAIL.iter().copied().zip(*want).collect();
                        assert_eq!(got, want, "{} {m}", e.file);
                    }
                    None if e.stats.is_empty() => assert!(got.is_empty(), "{} {m}", e.file),
                    None => assert_eq!(got.len(), 3, "{} {m}", e.file),
                }
            }
            seen += 1;
        }
        // Every file of the folder is covered.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), seen);
    }

    fn fixture(name: &str) -> Vec<u8> {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures")
            .join(name);
        std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    #[test]
    fn fixture_history_with_tail() {
        let bytes = fixture("tsar/history-tail.txt");
        let blocks = parse_ok(&FORMAT, &bytes);
        assert_eq!(blocks.len(), 1);
        let b = &blocks[0];
        assert_eq!(
            b.label.as_deref(),
            Some("Load test on web01 (history mode, -i 5)")
        );
        assert_eq!((b.first_line, b.last_line), (3, 11));
        assert_eq!(
            metrics(b),
            [
                "cpu.util",
                "traffic.bytin",
                "traffic.bytout",
                "ts.qps",
                "ts.cons",
                "ts.bps",
                "ts.rt",
                "ts.rpc"
            ]
        );
        assert_eq!(values(b, "cpu.util"), [Some(12.5), Some(13.25), None]);
        assert_eq!(values(b, "ts.cons"), [None, Some(1.2 * K), Some(1.1 * K)]);
        assert_eq!(
            values(b, "traffic.bytin"),
            [92.0 * K, 101.5 * K, 96.0 * K].map(Some)
        );
        assert_eq!(
            values(b, "traffic.bytout"),
            [1.3 * G, 1.2 * G, 1.3 * G].map(Some)
        );
        let t: Vec<f64> = points(b, "ts.rt").iter().map(|p| p.t).collect();
        assert_eq!(t, [1710496800.0, 1710497100.0, 1710497400.0]); // 15/03/24-10:00, :05, :10
        assert_eq!(
            stats(b, "ts.rt"),
            [("MAX", 3.44), ("MEAN", 3.38), ("MIN", 3.31)]
        );
        assert_eq!(
            stats(b, "traffic.bytin"),
            [("MAX", 101.5 * K), ("MEAN", 96.5 * K), ("MIN", 92.0 * K)]
        );
        // A missing tail cell leaves that stat out rather than inventing one.
        assert_eq!(stats(b, "ts.cons"), [("MAX", 1.2 * K), ("MEAN", 1.2 * K)]);
    }

    #[test]
    fn fixture_live_with_seconds() {
        let bytes = fixture("tsar/live-seconds.txt");
        assert_eq!(sniff(&head(&String::from_utf8_lossy(&bytes))), 95);
        let blocks = parse_ok(&FORMAT, &bytes);
        assert_eq!(blocks.len(), 1);
        let b = &blocks[0];
        assert_eq!(
            metrics(b),
            ["cpu.util", "sda.util", "sdb.util", "load.load1"]
        );
        let t: Vec<f64> = points(b, "sda.util").iter().map(|p| p.t).collect();
        // 29/02/24-23:59:58, :59, then 01/03/24-00:00:00 across the leap day.
        assert_eq!(t, [1709251198.0, 1709251199.0, 1709251200.0]);
        assert_eq!(values(b, "sda.util"), [Some(1.5), Some(2.25), None]);
        assert_eq!(values(b, "sdb.util"), [Some(0.0), Some(0.0), Some(3.1)]);
        assert!(series(b, "cpu.util").stats.is_empty());
    }

    #[test]
    fn fixture_header_repeated_after_19_rows() {
        let bytes = fixture("tsar/header-repeat.txt");
        let blocks = parse_ok(&FORMAT, &bytes);
        assert_eq!(blocks.len(), 1);
        let b = &blocks[0];
        assert_eq!((b.first_line, b.last_line), (1, 29));
        assert_eq!(metrics(b).len(), 12);
        assert_eq!(metrics(b)[11], "mem.util");
        let util = values(b, "cpu.util");
        assert_eq!(util.len(), 25);
        assert_eq!(util[18], Some(10.6));
        assert_eq!(util[19], Some(11.1));
        let t: Vec<f64> = points(b, "mem.used").iter().map(|p| p.t).collect();
        // 31/12/23-23:50 plus one minute a row, across the new year.
        assert_eq!(
            t,
            (0..25)
                .map(|i| 1704066600.0 + 60.0 * i as f64)
                .collect::<Vec<_>>()
        );
        assert_eq!(values(b, "mem.used")[24], Some(536.0 * M));
    }

    fn error_of(text: &[u8]) -> ParseError {
        let all: Vec<_> = (FORMAT.parse)(Box::new(text)).collect();
        match all.last() {
            Some(Err(e)) => e.clone(),
            other => panic!("expected an error, got {other:?}"),
        }
    }

    /// A row cut by the end of input (no newline after it) is left out with a warning and
    /// the rows before it are kept; a short row with anything after it stays an error.
    #[test]
    fn a_row_cut_at_the_end_keeps_the_rows_before_it() {
        let cut = b"Time           --------------------ts------------------ \n\
            Time              qps    cons     Bps      rt     rpc   \n\
            28/01/14-16:10   3.4K    1.2K   87.8M   64.66    2.87   \n\
            28/01/14-16:15   3.4K    1.2K   89.8M   61.59    2.83   \n\
            28/01/14-16:20   3.5K    1.2K   87.3M   ";
        let blocks = parse_ok(&FORMAT, cut);
        assert_eq!(blocks.len(), 1);
        assert_eq!(values(&blocks[0], "ts.rt"), [Some(64.66), Some(61.59)]);
        assert_eq!(
            crate::testutil::warnings(&FORMAT, cut),
            [(
                5,
                "input ends inside this row: tsar row has 3 values but its header names 5 \
                 columns; the row is left out"
                    .to_string()
            )]
        );
        let mut followed = cut.to_vec();
        followed.extend_from_slice(b"\n28/01/14-16:25   3.5K    1.2K   87.3M   60.01    2.80\n");
        let e = error_of(&followed);
        assert_eq!(e.line, 5);
    }

    /// tsar-php-fpm-README.md.txt cut inside the last value of its last row (line 69,
    /// `… 1.00    0.00` cut to `0.0`): the row is left out with a warning, the two rows
    /// before it (12:52:53 and 12:52:54) are kept.
    #[test]
    fn a_last_row_whose_last_value_is_cut_is_left_out() {
        let text = String::from_utf8(fixture("real/tsar/tsar-php-fpm-README.md.txt")).unwrap();
        let row = "20/12/16-12:52:55   1.00    0.00    6.00  128.00    9.00    1.00   10.00   \
                   21.00    0.00    1.00    0.00";
        let at = text.find(row).unwrap() + row.len() - 1;
        let cut = &text.as_bytes()[..at];
        let blocks = parse_ok(&FORMAT, cut);
        assert_eq!(blocks.len(), 1);
        let t: Vec<f64> = points(&blocks[0], "php_fpm.sreq")
            .iter()
            .map(|p| p.t)
            .collect();
        // 20/12/16-12:52:53 and :54, read as UTC.
        assert_eq!(t, [1482238373.0, 1482238374.0]);
        assert_eq!(
            values(&blocks[0], "php_fpm.qlen"),
            [Some(128.0), Some(128.0)]
        );
        let w = crate::testutil::warnings(&FORMAT, cut);
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].0, 69);
        assert!(w[0].1.contains("`0.0` is cut short"), "{}", w[0].1);
    }

    /// history-tail.txt cut inside its MIN row's last value (`4.98` → `4.9`, line 11): the
    /// MIN row is left out, so `ts.rpc` keeps MAX 5.00 and MEAN 4.99 and no MIN of 4.9.
    #[test]
    fn a_tail_row_whose_last_value_is_cut_is_left_out() {
        let text = String::from_utf8(fixture("tsar/history-tail.txt")).unwrap();
        let at = text.rfind("4.98").unwrap() + "4.9".len();
        let cut = &text.as_bytes()[..at];
        let blocks = parse_ok(&FORMAT, cut);
        assert_eq!(stats(&blocks[0], "ts.rpc"), [("MAX", 5.0), ("MEAN", 4.99)]);
        assert_eq!(
            values(&blocks[0], "ts.rpc"),
            [Some(5.0), Some(5.0), Some(4.98)]
        );
        let w = crate::testutil::warnings(&FORMAT, cut);
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].0, 11);
    }

    #[test]
    fn a_whole_file_without_its_final_newline_reads_the_same() {
        let n = crate::testutil::final_newline_changes_nothing(&FORMAT, "tsar", "tsar", "");
        assert!(n >= 5, "{n}");
    }

    #[test]
    fn printed_forms() {
        for whole in ["0.20", "198.75", "1000.00", "96.3K", "4.3T", "------"] {
            assert!(printed_whole(whole), "{whole}");
        }
        for cut in ["0.2", "0.", "198", "96.3", "96.", "---", "4.30K"] {
            assert!(!printed_whole(cut), "{cut}");
        }
    }

    #[test]
    fn malformed_inputs_name_their_line() {
        let e = error_of(&fixture("malformed/tsar-truncated-header.txt"));
        assert_eq!(e.line, 1);
        assert!(e.message.contains("header"), "{e}");
        let e = error_of(&fixture("malformed/tsar-garbage-number.txt"));
        assert_eq!(e.line, 4);
        assert!(e.message.contains("`3.x7` in column ts.rt"), "{e}");
        let e = error_of(&fixture("malformed/tsar-short-row.txt"));
        assert_eq!(e.line, 4);
        assert!(
            e.message
                .contains("has 5 values but its header names 6 columns"),
            "{e}"
        );
        // A module line whose column line names fewer columns than it spans.
        let e = error_of(b"Time ---cpu-- ---mem--\nTime util\n14/04/13-00:21 1.00\n");
        assert_eq!(e.line, 3);
        assert!(
            e.message
                .contains("names 1 columns but the module line spans 2"),
            "{e}"
        );
        // A row with one value too many.
        let e = error_of(b"Time ---cpu--\nTime util\n14/04/13-00:21 1.00 2.00\n");
        assert_eq!(e.line, 3);
        // An impossible date.
        let e = error_of(b"Time ---cpu--\nTime util\n31/02/13-00:21 1.00\n");
        assert!(e.message.contains("31/02/13-00:21"), "{e}");
    }

    #[test]
    fn junk_and_empty_inputs_yield_nothing() {
        assert!(parse_str("").is_empty());
        assert!(parse_str("hello\n\nTime flies\n14/04/13-00:21 1.00\n").is_empty());
        let junk: Vec<u8> = (0..200_000u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect();
        for r in (FORMAT.parse)(Box::new(&junk[..])) {
            assert!(r.is_err() || matches!(r, Ok(Parsed::Warning { .. })));
        }
        // A header without rows is skipped with a warning.
        let out = parse_str("Time ---cpu--\nTime util\n\nbye\n");
        assert!(
            matches!(out.as_slice(), [Ok(Parsed::Warning { line: 1, .. })]),
            "{out:?}"
        );
    }

    #[test]
    fn sniffer_claims_only_tsar_files() {
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
        for (dir, mine) in [("tsar", true), ("qps-table", false)] {
            for entry in std::fs::read_dir(fixtures.join(dir)).unwrap() {
                let p = entry.unwrap().path();
                let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
                assert_eq!(sniff(&head(&text)) > 0, mine, "{}", p.display());
            }
        }
        for p in crate::testutil::shared_files().unwrap_or_default() {
            let mine = p.to_string_lossy().contains("samples/tsar/")
                || p.to_string_lossy().contains("003_7e118ced5c861960");
            assert_eq!(
                crate::testutil::sniff_file(&FORMAT, &p) > 0,
                mine,
                "{}",
                p.display()
            );
        }
    }

    /// Every prefix of the wrapped seed, and every fixture with one byte replaced, parses
    /// to blocks or an error: never a panic.
    #[test]
    fn cut_and_damaged_inputs_never_panic() {
        let mut inputs = vec![
            fixture("tsar/history-tail.txt"),
            fixture("tsar/header-repeat.txt"),
        ];
        if let Some(p) = shared("seeds/003_7e118ced5c861960.txt") {
            inputs.push(std::fs::read(p).unwrap());
        }
        for bytes in &inputs {
            for cut in (0..bytes.len()).step_by(7) {
                let _ = (FORMAT.parse)(Box::new(&bytes[..cut])).count();
            }
            for (i, junk) in (0..bytes.len())
                .step_by(11)
                .zip([b'-', b'K', b'\n', b' ', 0xff].iter().cycle())
            {
                let mut damaged = bytes.clone();
                damaged[i] = *junk;
                let _ = (FORMAT.parse)(Box::new(&damaged[..])).count();
            }
        }
    }

    /// Every fixture of the folder, parsed whole (warnings included), as a reviewed
    /// snapshot: a new fixture is a new test.
    #[test]
    fn fixture_snapshots() {
        insta::glob!("../../../fixtures/tsar", "*.txt", |path| {
            let out = crate::testutil::items_json(&FORMAT, &std::fs::read(path).unwrap());
            insta::assert_json_snapshot!(out);
        });
    }

    #[test]
    fn the_first_row_is_the_runs_time() {
        let blocks =
            crate::testutil::parse_ok(&FORMAT, &crate::testutil::fixture("tsar/history-tail.txt"));
        let run = &blocks[0].runs[0];
        // `15/03/24-10:00`, the first row, as printed.
        assert_eq!(run.tags["time"], "2024-03-15T10:00:00Z");
        assert_eq!(run.bench, None);
    }
}
