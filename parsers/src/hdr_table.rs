//! The HdrHistogram percentile table reader shared by `hdr-percentiles` and `wrk`: the
//! Java and C printers' `Value Percentile TotalCount 1/(1-Percentile)` tables (and the
//! Java CSV form), row by row, with the `#[Mean …]`, `#[Max …]`, `#[Buckets …]` footer
//! as series stats. It knows tables only: where they sit in a file is each format's job.

use crate::error::ParseError;
use crate::model::{Data, LadderPoint, Series};
use crate::units::scaled_decimal;
use regex::Regex;
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// Code that opens a multi-line string on the header's own line (a JS/TS template literal
/// ``const expected = `…``, a Python or Kotlin `"""…`): tests keep a printer's output that
/// way, and the table then runs on over the following lines as printed.
const LITERAL_OPENER: &str = r#"(?:.*(?:`|"""|'''))?"#;

pub(crate) static TEXT_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"^{LITERAL_OPENER}\s*Value\s+Percentile\s+TotalCount\s+1/\(1-Percentile\)\s*$"
    ))
    .unwrap()
});
pub(crate) static CSV_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r#"^{LITERAL_OPENER}\s*"Value","Percentile","TotalCount","1/\(1-Percentile\)"\s*$"#
    ))
    .unwrap()
});
pub(crate) static MEAN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*#\[Mean\s*=\s*([^,\s]+)\s*,\s*StdDeviation\s*=\s*([^\]\s]+)\s*\]\s*$").unwrap()
});
static MAX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*#\[Max\s*=\s*([^,\s]+)\s*,\s*Total count\s*=\s*([^\]\s]+)\s*\]\s*$").unwrap()
});
static BUCKETS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*#\[Buckets\s*=\s*([^,\s]+)\s*,\s*SubBuckets\s*=\s*([^\]\s]+)\s*\]\s*$")
        .unwrap()
});

/// Which printer layout a table uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Layout {
    /// Whitespace columns with a `#[…]` footer (Java and C).
    Text,
    /// Comma-separated, no footer.
    Csv,
}

/// The layout announced by a table header line, if `line` is one.
pub(crate) fn header_layout(line: &str) -> Option<Layout> {
    if TEXT_HEADER.is_match(line) {
        Some(Layout::Text)
    } else if CSV_HEADER.is_match(line) {
        Some(Layout::Csv)
    } else {
        None
    }
}

/// What feeding one line to a [`TableParser`] did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Feed {
    /// The line belonged to the table, which goes on.
    More,
    /// The line completed the table.
    Done,
    /// The table had already ended: the line is not part of it.
    EndedBefore,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum State {
    /// Reading rows (blank lines allowed).
    Rows,
    /// Read `#[Mean …]`; `#[Max …]` must follow.
    AfterMean,
    /// Read `#[Max …]`; an optional `#[Buckets …]` may follow.
    AfterMax,
}

/// Reads one percentile table line by line, starting after its header line.
#[derive(Debug)]
pub(crate) struct TableParser {
    layout: Layout,
    /// Power of ten applied to values (rows, mean, stddev, max): 3 turns ms into µs.
    pow10: i32,
    state: State,
    points: Vec<LadderPoint>,
    last_count: Option<u64>,
    stats: BTreeMap<String, f64>,
    total_count: Option<u64>,
}

/// A complete table.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Table {
    pub points: Vec<LadderPoint>,
    /// The footer's total count, else the last row's cumulative count.
    pub count: Option<u64>,
    pub stats: BTreeMap<String, f64>,
}

impl Table {
    /// The table as a ladder series.
    pub fn into_series(self, metric: &str, display: &str, unit: &str) -> Series {
        let mut s = Series::new(
            metric,
            display,
            unit,
            Data::Ladder {
                count: self.count,
                points: self.points,
            },
        );
        s.stats = self.stats;
        s
    }
}

fn number(text: &str, pow10: i32, what: &str, line: u64) -> Result<f64, ParseError> {
    scaled_decimal(text, pow10)
        .ok_or_else(|| ParseError::new(line, format!("{what} `{text}` is not a number")))
}

fn count(text: &str, what: &str, line: u64) -> Result<u64, ParseError> {
    text.parse::<u64>()
        .map_err(|_| ParseError::new(line, format!("{what} `{text}` is not a whole number")))
}

impl TableParser {
    /// A table whose header line was just read; values are scaled by `10^pow10`.
    pub fn new(layout: Layout, pow10: i32) -> Self {
        TableParser {
            layout,
            pow10,
            state: State::Rows,
            points: Vec::new(),
            last_count: None,
            stats: BTreeMap::new(),
            total_count: None,
        }
    }

    /// Takes the next line (`n` = its 1-based number).
    pub fn feed(&mut self, line: &str, n: u64) -> Result<Feed, ParseError> {
        let t = line.trim();
        match self.state {
            State::Rows if self.layout == Layout::Csv => {
                let cells: Vec<&str> = t.split(',').map(str::trim).collect();
                if cells.len() == 4 && cells[0].starts_with(|c: char| c.is_ascii_digit()) {
                    self.row(&cells, n)?;
                    Ok(Feed::More)
                } else if t.is_empty() && self.points.is_empty() {
                    Ok(Feed::More)
                } else {
                    self.check_rows(n)?;
                    Ok(Feed::EndedBefore)
                }
            }
            State::Rows => {
                if t.is_empty() || is_elision(t) {
                    // `...` stands for rows an author left out; the rest still reads.
                    return Ok(Feed::More);
                }
                if t.starts_with("#[") {
                    return self.footer(t, n);
                }
                let cells: Vec<&str> = t.split_whitespace().collect();
                if !(3..=4).contains(&cells.len()) && !self.points.is_empty() && !row_like(&cells) {
                    // Cut short by its author or a terminal: the rows read are data.
                    return Ok(Feed::EndedBefore);
                }
                if !(3..=4).contains(&cells.len()) {
                    return Err(ParseError::new(
                        n,
                        format!(
                            "expected a percentile row (Value Percentile TotalCount 1/(1-Percentile)) \
                             or the `#[Mean = …]` footer, found `{t}`: the table looks cut off"
                        ),
                    ));
                }
                self.row(&cells, n)?;
                Ok(Feed::More)
            }
            State::AfterMean => {
                if t.starts_with("#[") {
                    self.footer(t, n)
                } else {
                    Err(ParseError::new(
                        n,
                        format!(
                            "expected the `#[Max = …, Total count = …]` footer line, found `{t}`"
                        ),
                    ))
                }
            }
            State::AfterMax => {
                if BUCKETS.is_match(t) {
                    self.footer(t, n)
                } else {
                    Ok(Feed::EndedBefore)
                }
            }
        }
    }

    fn row(&mut self, cells: &[&str], n: u64) -> Result<(), ParseError> {
        let value = number(cells[0], self.pow10, "value", n)?;
        let fraction = number(cells[1], 0, "percentile", n)?;
        if !(0.0..=1.0).contains(&fraction) {
            return Err(ParseError::new(
                n,
                format!("percentile `{}` is outside 0..1", cells[1]),
            ));
        }
        let percentile = number(cells[1], 2, "percentile", n)?;
        let total = count(cells[2], "total count", n)?;
        if let Some(last) = cells.get(3) {
            let inverse_ok =
                matches!(*last, "inf" | "Infinity") || scaled_decimal(last, 0).is_some();
            if !inverse_ok {
                return Err(ParseError::new(
                    n,
                    format!("1/(1-Percentile) `{last}` is not a number"),
                ));
            }
        }
        self.points.push(LadderPoint {
            percentile,
            value: Some(value),
            line_value: None,
        });
        self.last_count = Some(total);
        Ok(())
    }

    fn footer(&mut self, t: &str, n: u64) -> Result<Feed, ParseError> {
        let (regex, expected) = match self.state {
            State::Rows => (&*MEAN, "#[Mean = …, StdDeviation = …]"),
            State::AfterMean => (&*MAX, "#[Max = …, Total count = …]"),
            State::AfterMax => (&*BUCKETS, "#[Buckets = …, SubBuckets = …]"),
        };
        let Some(caps) = regex.captures(t) else {
            return Err(ParseError::new(
                n,
                format!("expected the footer line `{expected}`, found `{t}`"),
            ));
        };
        match self.state {
            State::Rows => {
                self.check_rows(n)?;
                self.stats
                    .insert("mean".into(), number(&caps[1], self.pow10, "mean", n)?);
                self.stats
                    .insert("stddev".into(), number(&caps[2], self.pow10, "stddev", n)?);
                self.state = State::AfterMean;
                Ok(Feed::More)
            }
            State::AfterMean => {
                self.stats
                    .insert("max".into(), number(&caps[1], self.pow10, "max", n)?);
                let total = count(&caps[2], "total count", n)?;
                self.stats.insert("total_count".into(), total as f64);
                self.total_count = Some(total);
                self.state = State::AfterMax;
                Ok(Feed::More)
            }
            State::AfterMax => {
                let buckets = count(&caps[1], "buckets", n)?;
                let sub = count(&caps[2], "sub-buckets", n)?;
                self.stats.insert("buckets".into(), buckets as f64);
                self.stats.insert("sub_buckets".into(), sub as f64);
                Ok(Feed::Done)
            }
        }
    }

    fn check_rows(&self, n: u64) -> Result<(), ParseError> {
        if self.points.is_empty() {
            Err(ParseError::new(n, "percentile table has no rows"))
        } else {
            Ok(())
        }
    }

    /// Why the table, ended now, is incomplete: a text table with rows but no
    /// `#[Mean = …]` footer. `None` when it is whole.
    pub fn cut_warning(&self) -> Option<String> {
        let last = self.points.last()?;
        (self.layout == Layout::Text && self.state == State::Rows).then(|| {
            format!(
                "percentile table ends at {} (no #[Mean = …] footer): its rows are kept",
                last.percentile
            )
        })
    }

    /// Ends the table at the end of input (`n` = the last line read).
    pub fn finish_at_eof(self, n: u64) -> Result<Table, ParseError> {
        match (self.layout, self.state) {
            (Layout::Text, State::Rows) if !self.points.is_empty() => Ok(self.into_table()),
            (Layout::Text, State::Rows) => Err(ParseError::new(
                n,
                "the input ends inside a percentile table, before its `#[Mean = …]` footer",
            )),
            (_, State::AfterMean) => Err(ParseError::new(
                n,
                "the input ends inside the percentile table footer, before `#[Max = …]`",
            )),
            _ => {
                self.check_rows(n)?;
                Ok(self.into_table())
            }
        }
    }

    /// The table, once [`feed`](Self::feed) said it ended.
    pub fn into_table(self) -> Table {
        Table {
            count: self.total_count.or(self.last_count),
            points: self.points,
            stats: self.stats,
        }
    }
}

/// Whether a row is an author's elision of rows (`...`, `…`, `. . .`).
fn is_elision(t: &str) -> bool {
    !t.is_empty() && t.chars().all(|c| matches!(c, '.' | '…' | ' '))
}

/// Whether cells start like a percentile row (a number, then a fraction): then a wrong
/// cell count is a damaged row, not the end of the table.
fn row_like(cells: &[&str]) -> bool {
    let num = |s: &str| s.parse::<f64>().is_ok();
    cells.len() >= 2 && num(cells[0]) && num(cells[1])
}
