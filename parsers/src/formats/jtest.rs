//! Apache Traffic Server `jtest` interval lines: one line per second of a load test, the
//! client side (connections, new connections, ops/s, first-byte and total latency,
//! bytes/per) then the origin-server side (servers, new, ops, total, time, errors).
//!
//! Input (fixture `fixtures/jtest/two-tables.txt`): the header
//! `con new ops 1B lat bytes/per svrs new ops total time err` (older builds print `1byte`
//! for `1B`), then rows of twelve cells, `bytes/per` being one `a/b` cell. Client and
//! server both have `new` and `ops` columns; the second pair is the server's. A row of
//! twelve cells whose numbers do not read is an error; any other line ends the table (with a
//! warning when it is the input's last line and reads as the start of a row: a cut row).
//!
//! Output: one block per table (labelled by its lead line) with one run; every column is a
//! time series over the rows, `t` = the row's `time` cell (seconds): `con`, `new`, `ops`
//! (ops/s), `first_byte` and `lat` (ms), `bytes` and `per` (the two halves of
//! `bytes/per`), `svrs`, `server_new`, `server_ops`, `total`, `err`.
//!
//! Identity: no bench, no config; no timestamp.

use crate::error::ParseError;
use crate::format::{Format, Head, ParseIter};
use crate::lines::{LineMachine, Queue, drive};
use crate::model::{Block, Data, Run, Series, TimePoint};
use crate::text::LabelTracker;
use regex::Regex;
use std::io::BufRead;
use std::sync::LazyLock;

/// The `jtest` format.
pub const FORMAT: Format = Format::new("jtest", "1", sniff, parse).claims_at_most(95);

/// The header line, both spellings of the first-byte column.
static HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^con\s+new\s+ops\s+(?:1byte|1B)\s+lat\s+bytes/per\s+svrs\s+new\s+ops\s+total\s+time\s+err$",
    )
    .expect("valid regex")
});

/// Series names and units, in column order (`bytes/per` is two series).
const COLUMNS: [(&str, &str); 13] = [
    ("con", ""),
    ("new", ""),
    ("ops", "ops/s"),
    ("first_byte", "ms"),
    ("lat", "ms"),
    ("bytes", ""),
    ("per", ""),
    ("svrs", ""),
    ("server_new", ""),
    ("server_ops", "ops/s"),
    ("total", ""),
    ("time", "s"),
    ("err", ""),
];

/// Index of the `time` column among the 13 values.
const TIME: usize = 11;

/// Confidence that `head` is jtest output: its header line is distinctive.
pub fn sniff(head: &Head) -> u8 {
    if head.text.lines().any(|l| HEADER.is_match(l.trim())) {
        95
    } else {
        0
    }
}

/// Parses every jtest table of the input.
pub fn parse<'a>(r: Box<dyn BufRead + 'a>) -> ParseIter<'a> {
    drive(r, Machine::default())
}

#[derive(Default)]
struct Machine {
    labels: LabelTracker,
    open: Option<Table>,
    /// The line that just ended a table, when it reads as the start of a row: cut short
    /// if the input ends there. Its line number and how many cells it has.
    partial_row: Option<(u64, usize)>,
    out: Queue,
}

struct Table {
    label: Option<String>,
    first_line: u64,
    last_line: u64,
    rows: Vec<[f64; 13]>,
}

/// How many cells `t` has when it reads as the first cells of a row (numbers, the
/// fifth a possibly cut `a/b`) but fewer than twelve.
fn partial_row(t: &str) -> Option<usize> {
    let cells: Vec<&str> = t.split_whitespace().collect();
    let numeric = |c: &&str| {
        c.split('/')
            .all(|p| p.is_empty() || p.parse::<f64>().is_ok())
    };
    (!cells.is_empty() && cells.len() < 12 && cells.iter().all(numeric)).then_some(cells.len())
}

/// The 13 values of a row of twelve cells, or `None` when the line is not a row;
/// `Err` when it has the shape of one but a number does not read.
fn row(t: &str, n: u64) -> Option<Result<[f64; 13], ParseError>> {
    let cells: Vec<&str> = t.split_whitespace().collect();
    if cells.len() != 12 || !cells[5].contains('/') {
        return None;
    }
    let (a, b) = cells[5].split_once('/')?;
    let texts = [
        cells[0], cells[1], cells[2], cells[3], cells[4], a, b, cells[6], cells[7], cells[8],
        cells[9], cells[10], cells[11],
    ];
    let mut out = [0.0; 13];
    for (i, text) in texts.iter().enumerate() {
        match text.parse::<f64>().ok().filter(|v| v.is_finite()) {
            Some(v) => out[i] = v,
            None => {
                return Some(Err(ParseError::new(
                    n,
                    format!(
                        "jtest row: cannot read `{text}` in the `{}` column as a number",
                        COLUMNS[i].0
                    ),
                )));
            }
        }
    }
    Some(Ok(out))
}

impl Machine {
    fn close(&mut self) {
        let Some(t) = self.open.take() else { return };
        if t.rows.is_empty() {
            return;
        }
        let series = COLUMNS
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != TIME)
            .map(|(i, (name, unit))| {
                let points = t
                    .rows
                    .iter()
                    .map(|r| TimePoint {
                        t: r[TIME],
                        value: Some(r[i]),
                    })
                    .collect();
                Series::new(*name, *name, *unit, Data::TimeSeries { points })
            })
            .collect();
        self.out.block(Block {
            label: t.label,
            first_line: t.first_line,
            last_line: t.last_line,
            runs: vec![Run {
                index: 1,
                first_line: t.first_line,
                last_line: t.last_line,
                series,
                ..Run::default()
            }],
            printed: Vec::new(),
        });
    }
}

impl LineMachine for Machine {
    fn feed(&mut self, line: &str, n: u64) -> Result<(), ParseError> {
        let t = line.trim();
        self.partial_row = None;
        if HEADER.is_match(t) {
            self.close();
            self.open = Some(Table {
                label: self.labels.take_for_block(),
                first_line: n,
                last_line: n,
                rows: Vec::new(),
            });
            return Ok(());
        }
        if let Some(table) = self.open.as_mut() {
            match row(t, n) {
                Some(r) => {
                    table.rows.push(r?);
                    table.last_line = n;
                    return Ok(());
                }
                None => {
                    self.partial_row = partial_row(t).map(|cells| (n, cells));
                    self.close();
                }
            }
        }
        self.labels.observe(line);
        Ok(())
    }

    fn finish(&mut self, last: u64) -> Result<(), ParseError> {
        self.close();
        if let Some((n, cells)) = self.partial_row.filter(|&(n, _)| n == last) {
            self.out.warning(
                n,
                format!("input ends inside a jtest row ({cells} of its 12 cells): row left out"),
            );
        }
        Ok(())
    }

    fn queue(&mut self) -> &mut Queue {
        &mut self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{fixture, parse_err, parse_ok};

    /// The values of series `metric` of the block's run.
    pub(crate) fn column(b: &Block, metric: &str) -> Vec<(f64, f64)> {
        match &b.runs[0]
            .series
            .iter()
            .find(|s| s.metric == metric)
            .unwrap()
            .data
        {
            Data::TimeSeries { points } => points.iter().map(|p| (p.t, p.value.unwrap())).collect(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn both_header_spellings_and_repeated_column_names() {
        let text = "jtest on box1:\n\
            con  new    ops 1byte   lat   bytes/per     svrs  new  ops    total   time  err\n\
            100  468 2329.6    39    39 36323315/363233   617  617  617  46131904 136980.9    0\n\
            \n\
            con  new     ops   1B  lat      bytes/per     svrs  new  ops      total   time  err\n\
            10   2     5.0     1    2        100/10        1    1    1        100     5.5     1\n";
        let blocks = parse_ok(&FORMAT, text.as_bytes());
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].label.as_deref(), Some("jtest on box1"));
        assert_eq!(column(&blocks[0], "ops"), vec![(136980.9, 2329.6)]);
        assert_eq!(column(&blocks[0], "new"), vec![(136980.9, 468.0)]);
        assert_eq!(column(&blocks[0], "server_new"), vec![(136980.9, 617.0)]);
        assert_eq!(column(&blocks[0], "bytes"), vec![(136980.9, 36323315.0)]);
        assert_eq!(column(&blocks[0], "per"), vec![(136980.9, 363233.0)]);
        assert_eq!(column(&blocks[1], "err"), vec![(5.5, 1.0)]);
        assert_eq!(column(&blocks[1], "first_byte"), vec![(5.5, 1.0)]);
    }

    #[test]
    fn fixture_and_malformed() {
        let blocks = parse_ok(&FORMAT, &fixture("jtest/two-tables.txt"));
        assert_eq!(blocks.len(), 2);
        assert_eq!(column(&blocks[1], "lat").len(), 3);
        let e = parse_err(&FORMAT, &fixture("malformed/jtest-bad-cell.txt"));
        assert_eq!(e.line, 4);
        assert!(e.message.contains("`lat`"), "{e}");
    }

    /// A table whose last row is cut by the end of input keeps its complete rows and warns;
    /// a short line with more input after it just ends the table.
    #[test]
    fn a_row_cut_at_the_end_is_reported() {
        let text = "con  new    ops 1byte   lat   bytes/per     svrs  new  ops    total   time  err\n\
            100  468 2329.6    39    39 36323315/363233   617  617  617  46131904 136980.9    0\n\
            100  471 2361.5    39    40 35993941/359939   619  619  619  45466393 136981.9    0\n\
            100  465 2327.0    40    41 35385";
        let blocks = parse_ok(&FORMAT, text.as_bytes());
        assert_eq!(
            column(&blocks[0], "ops"),
            vec![(136980.9, 2329.6), (136981.9, 2361.5)]
        );
        assert_eq!(
            crate::testutil::warnings(&FORMAT, text.as_bytes()),
            [(
                4,
                "input ends inside a jtest row (6 of its 12 cells): row left out".to_string()
            )]
        );
        let followed = format!("{text}\nthe end\n");
        assert!(crate::testutil::warnings(&FORMAT, followed.as_bytes()).is_empty());
    }

    #[test]
    fn damaged_inputs_never_panic() {
        let real = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/real/jtest");
        let mut inputs = vec![fixture("jtest/two-tables.txt")];
        for p in crate::testutil::files_under(&real) {
            inputs.push(std::fs::read(p).unwrap());
        }
        crate::testutil::never_panics(&FORMAT, &inputs);
    }

    #[test]
    fn fixture_snapshots() {
        insta::glob!("../../../fixtures/jtest", "*.txt", |path| {
            let bytes = std::fs::read(path).unwrap();
            insta::assert_json_snapshot!(crate::testutil::items_json(&FORMAT, &bytes));
        });
    }
}
