//! QPS–RT tables: small whitespace tables from load-test write-ups, a header naming
//! columns such as `count sleep RT qps cpu` (plus any others) and rows of numbers that may
//! carry a unit (`190%`, `80ms`).
//!
//! Input: a header line with at least two known column names (case-insensitive:
//! `qps`, `rt`, `tps`, `cpu`, `count`, `sleep`, `threads`, …), then data rows until a blank
//! line. A data row's cells are all numbers with an optional unit; a passage under a header
//! whose rows are formulas (`25ms * x * 15.4`) is skipped with a warning; a data row whose
//! cell count differs from the header's is an error, but a short last line of the input,
//! cut there, which is left out with a warning. Fixture: `fixtures/qps-table/sweep.txt`.
//!
//! Output: one block per table (labelled by its lead line), one run per data row (index =
//! row number). Parameter columns (`count`, `sleep`, thread counts) become `Param::Num`
//! (their printed unit, if any, as `<name>_unit`); every other column is a `Data::Value`
//! series named by [`metric_name`] with the unit printed in its cell.
//!
//! Identity: no bench. A setting column (`threads`, `concurrency`, `count`, `sleep`, their
//! Chinese names, and the text first column naming the system under test, `Framework`) is
//! config; one block is one table, its rows are runs. No timestamp.

use crate::error::ParseError;
use crate::format::{Format, Head, ParseIter};
use crate::lines::{LineMachine, Queue, drive};
use crate::model::{Block, Data, Param, Run, Series};
use crate::text::{LabelTracker, metric_name};
use std::io::BufRead;

/// The QPS–RT table format.
pub const FORMAT: Format = Format::new("qps-table", "1", sniff, parse)
    .claims_at_most(CONFIDENCE)
    .reading_its_wrapper();

/// Column names that mark a QPS–RT header (whole cells, compared ignoring ASCII case).
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

/// Columns that describe the load rather than measure it: run parameters (as metric names).
const PARAMS: &[&str] = &[
    "count",
    "sleep",
    "threads",
    "thread",
    "threads_num",
    "concurrency",
];

/// Thread or concurrency counts in Chinese write-ups (simplified and traditional); pages
/// copied with ruby annotations add `(shù)`, which [`metric_name`] turns into `_shù`.
/// `最佳線程數` (the best thread count) is a result, not one of these.
const CJK_PARAMS: &[&str] = &["线程数", "線程數", "并发数", "並發數"];

/// Whether a column (by metric name) is a run parameter.
fn is_param(metric: &str) -> bool {
    PARAMS.contains(&metric)
        || CJK_PARAMS.iter().any(|w| {
            metric
                .strip_prefix(w)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('_'))
        })
}

/// The sniff confidence: low, because the shape is generic and the specific formats
/// (tsar, jlbh, wrk, …) must win on their own files.
const CONFIDENCE: u8 = 20;

/// Confidence that `head` holds a QPS–RT table: a header followed by a numeric row of the
/// same width.
pub fn sniff(head: &Head) -> u8 {
    let mut prev: Option<usize> = None;
    for line in head.text.lines() {
        let Some(width) = prev else {
            // Most lines are no header: found without collecting their cells.
            prev = header_width(line);
            continue;
        };
        let toks = tokens(line);
        // Rows named by their first cell only in pipe tables: a whitespace table's
        // first cell may be a time (`28/01/14-16:10`, tsar).
        let named = line.contains('|') && toks.len() >= 2 && cell(toks[0]).is_none();
        let numbers = if named { &toks[1..] } else { &toks[..] };
        if toks.len() == width && data_cells(numbers).is_some() {
            return CONFIDENCE;
        }
        if is_rule(&toks) {
            continue;
        }
        prev = is_header(&toks).then_some(toks.len());
    }
    0
}

/// Parses QPS–RT tables, yielding one block per table as it completes.
pub fn parse<'a>(r: Box<dyn BufRead + 'a>) -> ParseIter<'a> {
    drive(r, Machine::new())
}

/// A header: at least two tokens, none a number, at least two of them exactly a known
/// column name (so `qps(int count, long sleep)` in quoted code is not one).
fn is_header(toks: &[&str]) -> bool {
    toks.len() >= 2
        && toks.iter().all(|t| cell(t).is_none())
        && toks.iter().filter(|t| known_column(t)).count() >= 2
}

/// [`is_header`] of the line's [`tokens`] as their count, without collecting them.
fn header_width(line: &str) -> Option<usize> {
    let (mut n, mut known) = (0, 0);
    for t in cells(line) {
        if cell(t).is_some() {
            return None;
        }
        n += 1;
        known += usize::from(known_column(t));
    }
    (n >= 2 && known >= 2).then_some(n)
}

/// Splits a line into cells: on `|` when it has one (a Markdown table row without outer
/// pipes, whose cells may hold spaces: `native thrift | 60 | 6.9w`), else on whitespace.
fn tokens(line: &str) -> Vec<&str> {
    cells(line).collect()
}

/// The cells of [`tokens`], one at a time.
fn cells(line: &str) -> impl Iterator<Item = &str> {
    let piped = line.contains('|');
    line.split(move |c: char| if piped { c == '|' } else { c.is_whitespace() })
        .map(move |t| if piped { t.trim() } else { t })
        .filter(|t| !t.is_empty())
}

/// Whether a header cell names a known column: exactly (`QPS`, `cpu`), as a known name
/// followed by a non-ASCII word (`cpu利用率`), or as a Chinese thread-count heading.
/// Compared without case and without a lowered copy of the cell.
fn known_column(t: &str) -> bool {
    KNOWN.iter().any(|k| {
        t.len() >= k.len()
            && t.as_bytes()[..k.len()].eq_ignore_ascii_case(k.as_bytes())
            && (t.len() == k.len() || t[k.len()..].starts_with(|c: char| !c.is_ascii()))
    }) || CJK_PARAMS.iter().any(|w| t.starts_with(w))
}

/// A Markdown table rule under a header (`|---|:--:|`): drawing, not data.
fn is_rule(toks: &[&str]) -> bool {
    !toks.is_empty()
        && toks
            .iter()
            .all(|t| t.contains('-') && t.chars().all(|c| c == '-' || c == ':'))
}

/// A number with an optional unit suffix (`103`, `9.7`, `1,221`, `190%`, `80ms`, `1.5k/s`):
/// `(value, unit)`, or `None` when the token is anything else (`x`, `≈`, `*`, `1000/103`).
fn cell(tok: &str) -> Option<(f64, &str)> {
    let split = tok
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit() || c == '.' || c == ',' || (i == 0 && (c == '-' || c == '+')))
        })
        .map_or(tok.len(), |(i, _)| i);
    let (number, unit) = tok.split_at(split);
    let unit_ok = unit
        .chars()
        .all(|c| c.is_alphabetic() || c == '%' || c == '/')
        && !unit.starts_with('/')
        && unit.chars().count() <= 8;
    if !unit_ok {
        return None;
    }
    let digits = number.trim_start_matches(['-', '+']);
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    // Thousands grouping is accepted only in its exact shape (`1,221`, `20,450.5`), so a
    // comma-separated list (`1,2,3`) is not read as one number.
    let grouped = int.contains(',');
    let groups_ok = !grouped || {
        let mut parts = int.split(',');
        let lead = parts.next().unwrap_or_default();
        (1..=3).contains(&lead.len()) && parts.all(|p| p.len() == 3)
    };
    // f64::from_str alone would also take `inf`, `NaN` and exponents.
    let well_formed = groups_ok
        && !frac.contains(['.', ','])
        && !(int.is_empty() && frac.is_empty())
        && int
            .bytes()
            .chain(frac.bytes())
            .all(|c| c.is_ascii_digit() || c == b',');
    if !well_formed {
        return None;
    }
    let value: f64 = if grouped {
        number.replace(',', "").parse().ok()?
    } else {
        number.parse().ok()?
    };
    // Chinese write-ups count in 万 (ten thousand), written `w` (`6.9w` = 69,000).
    if matches!(unit, "w" | "W" | "万") {
        return Some((value * 1e4, ""));
    }
    Some((value, unit))
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
    /// The metric name of each column (see [`Table::metrics`]).
    metrics: Vec<String>,
    /// The header line as read, given back to the label tracker if no table follows.
    header_line: String,
    runs: Vec<Run>,
    /// Lines under the header that were not data rows (formulas, derivations).
    other_rows: usize,
}

impl Table {
    /// The metric name of each column; a name printed twice gets `_2`, `_3`… from its
    /// second occurrence on, so every series of a run has its own name.
    fn metrics(header: &[String]) -> Vec<String> {
        let bases: Vec<String> = header.iter().map(|h| metric_name(h)).collect();
        bases
            .iter()
            .enumerate()
            .map(
                |(i, base)| match bases[..i].iter().filter(|b| *b == base).count() {
                    0 => base.clone(),
                    n => format!("{base}_{}", n + 1),
                },
            )
            .collect()
    }

    /// A row whose first cell is its name: the name is the first column's setting.
    fn add_named_row(&mut self, name: &str, cells: Vec<(f64, &str)>, n: u64) {
        let (header, metrics) = (self.header.clone(), self.metrics.clone());
        self.header.remove(0);
        self.metrics.remove(0);
        self.add_row(cells, n);
        self.header = header;
        self.metrics = metrics;
        if let Some(run) = self.runs.last_mut() {
            // The system under test (`native thrift`, `brpc thrift`): a setting like the
            // thread count, so two systems are two cells, never replicates of one.
            run.set_config(self.metrics[0].clone(), name.to_string());
        }
    }

    fn add_row(&mut self, cells: Vec<(f64, &str)>, n: u64) {
        let mut run = Run {
            index: self.runs.len() as u32 + 1,
            first_line: n,
            last_line: n,
            ..Default::default()
        };
        let columns = self.header.iter().zip(&self.metrics);
        for ((name, metric), (value, unit)) in columns.zip(cells) {
            if is_param(metric) {
                // The sweep's setting (concurrency, threads, …): configuration.
                run.config.insert(metric.clone());
                if !unit.is_empty() {
                    run.params
                        .insert(format!("{metric}_unit"), Param::from(unit));
                }
                run.params.insert(metric.clone(), Param::Num(value));
            } else {
                let data = Data::Value { value: Some(value) };
                run.series.push(Series::new(metric, name, unit, data));
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
    /// A row with fewer cells than its header: an error if any line follows it, a row cut
    /// by the end of input (left out with a warning) if none does.
    short_row: Option<ParseError>,
    out: Queue,
}

impl Machine {
    fn new() -> Self {
        Machine {
            labels: LabelTracker::new(),
            table: None,
            short_row: None,
            out: Queue::default(),
        }
    }

    fn end_table(&mut self) {
        let Some(table) = self.table.take() else {
            return;
        };
        if !table.runs.is_empty() {
            self.out.block(Block {
                label: table.label,
                first_line: table.first_line,
                last_line: table.last_line,
                runs: table.runs,
                printed: Vec::new(),
            });
        } else if table.other_rows > 0 {
            self.out.warning(
                table.first_line,
                format!(
                    "skipped the table under `{}` (lines {}–{}): its rows are not all \
                     numbers (formulas?)",
                    table.header.join(" "),
                    table.first_line,
                    table.last_line
                ),
            );
        } else {
            // A header-like line with nothing under it was prose after all.
            self.labels.observe(&table.header_line);
        }
    }
}

impl LineMachine for Machine {
    fn feed(&mut self, line: &str, n: u64) -> Result<(), ParseError> {
        if let Some(e) = self.short_row.take() {
            return Err(e);
        }
        let toks = tokens(line);
        if let Some(table) = &mut self.table {
            if table.runs.is_empty() && table.other_rows == 0 && is_rule(&toks) {
                table.last_line = n;
                return Ok(());
            }
            if toks.is_empty() {
                self.end_table();
                self.labels.observe(line);
                return Ok(());
            }
            // A row named by its first cell (`native thrift | 60 | 6.9w | …`).
            if table.other_rows == 0
                && line.contains('|')
                && toks.len() == table.header.len()
                && toks.len() >= 2
                && cell(toks[0]).is_none()
                && !known_column(&table.header[0])
                && let Some(cells) = data_cells(&toks[1..])
            {
                table.add_named_row(toks[0], cells, n);
                return Ok(());
            }
            match data_cells(&toks) {
                Some(cells) if table.other_rows == 0 => {
                    if cells.len() != table.header.len() {
                        let e = ParseError::new(
                            n,
                            format!(
                                "table row has {} cells but its header (line {}) names {} \
                                 columns: {}",
                                cells.len(),
                                table.first_line,
                                table.header.len(),
                                table.header.join(" ")
                            ),
                        );
                        if cells.len() > table.header.len() {
                            return Err(e);
                        }
                        self.short_row = Some(e);
                        return Ok(());
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
            let header: Vec<String> = toks.iter().map(|s| s.to_string()).collect();
            self.table = Some(Table {
                label: self.labels.take_for_block(),
                first_line: n,
                last_line: n,
                metrics: Table::metrics(&header),
                header,
                header_line: line.to_string(),
                runs: Vec::new(),
                other_rows: 0,
            });
        } else {
            self.labels.observe(line);
        }
        Ok(())
    }

    fn finish(&mut self, _last: u64) -> Result<(), ParseError> {
        if let Some(cut) = self.short_row.take() {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Parsed;
    use crate::testutil::{parse_ok, shared};

    fn all(bytes: &[u8]) -> Vec<Result<Parsed, ParseError>> {
        (FORMAT.parse)(Box::new(bytes)).collect()
    }

    fn warnings(bytes: &[u8]) -> Vec<u64> {
        all(bytes)
            .into_iter()
            .filter_map(|r| match r {
                Ok(Parsed::Warning { line, .. }) => Some(line),
                _ => None,
            })
            .collect()
    }

    /// A run's cells as (metric, value, unit), in column order.
    fn cells(run: &Run) -> Vec<(&str, f64, &str)> {
        run.series
            .iter()
            .map(|s| match s.data {
                Data::Value { value: Some(v) } => (s.metric.as_str(), v, s.unit.as_str()),
                _ => panic!("{} is not a value", s.metric),
            })
            .collect()
    }

    fn fixture(name: &str) -> Vec<u8> {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures")
            .join(name);
        std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    const BEST: &str = "最佳線程數_shù";

    #[test]
    fn number_cells() {
        assert_eq!(cell("103"), Some((103.0, "")));
        assert_eq!(cell("9.7"), Some((9.7, "")));
        assert_eq!(cell("190%"), Some((190.0, "%")));
        assert_eq!(cell("25ms"), Some((25.0, "ms")));
        assert_eq!(cell("1.5k/s"), Some((1.5, "k/s")));
        assert_eq!(cell("-3"), Some((-3.0, "")));
        for bad in [
            "x", "≈", "*", "1000/103", "ms", "1.2.3", "inf", "NaN", "-", "RT", "5%x1",
        ] {
            assert_eq!(cell(bad), None, "{bad}");
        }
    }

    /// Seed 001: three one-row tables, a formula passage and a three-row summary.
    #[test]
    fn seed_001_tables() {
        let Some(p) = shared("seeds/001_43cbce295054d067.txt") else {
            return;
        };
        let bytes = std::fs::read(p).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        let head = Head {
            file_name: "001_43cbce295054d067.txt",
            text: &text,
            complete: true,
        };
        assert_eq!(crate::detect(&head).map(|f| f.name), Some("qps-table"));
        assert_eq!(warnings(&bytes), [196]);
        let messages: Vec<String> = all(&bytes)
            .into_iter()
            .filter_map(|r| match r {
                Ok(Parsed::Warning { message, .. }) => Some(message),
                _ => None,
            })
            .collect();
        assert!(messages[0].contains("lines 196–198"), "{}", messages[0]);
        assert!(messages[0].contains("not all numbers"), "{}", messages[0]);
        let blocks = parse_ok(&FORMAT, &bytes);
        assert_eq!(blocks.len(), 4);

        let one_row = [
            (150, "得出結(jié)果如下", [103.0, 125.0, 190.0, 13.0]),
            (
                179,
                "進(jìn)行壓測(cè)結(jié)果如下",
                [65.0, 123.0, 190.0, 8.0],
            ),
            (
                208,
                "進(jìn)行壓測(cè)結(jié)果如下",
                [101.0, 244.0, 190.0, 25.0],
            ),
        ];
        for (b, (line, label, [rt, qps, cpu, best])) in blocks.iter().zip(one_row) {
            assert_eq!(b.label.as_deref(), Some(label));
            assert_eq!((b.first_line, b.last_line), (line, line + 1));
            assert_eq!(b.runs.len(), 1);
            let run = &b.runs[0];
            assert_eq!((run.index, run.first_line), (1, line + 1));
            assert!(run.params.is_empty());
            assert_eq!(
                cells(run),
                [
                    ("rt", rt, ""),
                    ("qps", qps, ""),
                    ("cpu", cpu, "%"),
                    (BEST, best, "")
                ]
            );
            let displays: Vec<_> = run.series.iter().map(|s| s.display.as_str()).collect();
            assert_eq!(displays, ["RT", "qps", "cpu", "最佳線程數(shù)"]);
        }

        let summary = &blocks[3];
        assert_eq!(summary.label.as_deref(), Some("小結(jié)"));
        assert_eq!((summary.first_line, summary.last_line), (229, 232));
        let rows = [
            (100000.0, 80.0, [103.0, 125.0, 190.0, 13.0]),
            (100000.0, 40.0, [65.0, 123.0, 190.0, 8.0]),
            (50000.0, 80.0, [101.0, 244.0, 190.0, 25.0]),
        ];
        assert_eq!(summary.runs.len(), 3);
        for (i, (run, (count, sleep, [rt, qps, cpu, best]))) in
            summary.runs.iter().zip(rows).enumerate()
        {
            assert_eq!(run.index, i as u32 + 1);
            assert_eq!(run.first_line, 230 + i as u64);
            assert_eq!(run.params["count"], Param::Num(count));
            assert_eq!(run.params["sleep"], Param::Num(sleep));
            assert_eq!(run.params["sleep_unit"], Param::from("ms"));
            assert_eq!(run.params.len(), 3);
            assert_eq!(
                cells(run),
                [
                    ("rt", rt, ""),
                    ("qps", qps, ""),
                    ("cpu", cpu, "%"),
                    (BEST, best, "")
                ]
            );
        }
    }

    #[test]
    fn fixture_sweep_with_thread_parameter() {
        let bytes = fixture("qps-table/sweep.txt");
        assert_eq!(warnings(&bytes), [10]);
        let blocks = parse_ok(&FORMAT, &bytes);
        assert_eq!(blocks.len(), 1);
        let b = &blocks[0];
        assert_eq!(b.label.as_deref(), Some("Thread sweep against /api/orders"));
        assert_eq!((b.first_line, b.last_line), (3, 6));
        let threads: Vec<_> = b.runs.iter().map(|r| r.params["threads"].clone()).collect();
        assert_eq!(threads, [8.0, 16.0, 32.0].map(Param::Num));
        assert_eq!(
            cells(&b.runs[2]),
            [
                ("rt", 21.0, "ms"),
                ("qps", 1524.0, ""),
                ("cpu", 97.0, "%"),
                ("p99", 95.0, "ms")
            ]
        );
        assert_eq!(cells(&b.runs[0])[0], ("rt", 12.5, "ms"));
    }

    #[test]
    fn wrong_column_count_is_an_error_at_its_row() {
        let out = all(&fixture("malformed/qps-table-wrong-columns.txt"));
        let Some(Err(e)) = out.last() else {
            panic!("expected an error: {out:?}");
        };
        assert_eq!(e.line, 5);
        assert!(e.message.contains("4 cells"), "{e}");
        assert!(e.message.contains("names 5 columns"), "{e}");
        // Nothing of the broken table is yielded before the error.
        assert_eq!(out.len(), 1);
    }

    /// A Markdown table cut inside its last row: the rows before it are stored.
    #[test]
    fn a_row_cut_at_the_end_keeps_the_rows_before_it() {
        let cut = b"| threads | qps | rt |\n|---|---|---|\n| 8 | 640 | 12ms |\n| 16 | 1,221 |";
        let blocks = parse_ok(&FORMAT, cut);
        assert_eq!(blocks[0].runs.len(), 1);
        assert_eq!(
            cells(&blocks[0].runs[0]),
            [("qps", 640.0, ""), ("rt", 12.0, "ms")]
        );
        let w = crate::testutil::warnings(&FORMAT, cut);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].0, 4);
        assert!(
            w[0].1
                .starts_with("input ends inside this row: table row has 2 cells"),
            "{w:?}"
        );
    }

    /// `brpc-docs-en-thrift.md.txt` lines 139–140: `native thrift | 60 | 5.2w | …` and
    /// `brpc thrift | 60 | 19.5w | …` are two systems, so two configurations.
    #[test]
    fn the_system_column_is_config() {
        let bytes = fixture("real/qps-table/brpc-docs-en-thrift.md.txt");
        let blocks = parse_ok(&FORMAT, &bytes);
        let configs: Vec<Vec<(String, String)>> = blocks[1]
            .runs
            .iter()
            .map(|r| {
                r.config_params()
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect()
            })
            .collect();
        let config = |framework: &str| {
            vec![
                ("framework".to_string(), framework.to_string()),
                ("threads_num".to_string(), "60".to_string()),
            ]
        };
        assert_eq!(configs, [config("native thrift"), config("brpc thrift")]);
    }

    #[test]
    fn tables_end_at_prose_and_junk_yields_nothing() {
        let text = "qps rt\n10 5\n20 6\nthat was fast\nqps rt\n30 7\n";
        let blocks = parse_ok(&FORMAT, text.as_bytes());
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].runs.len(), 2);
        // A short line directly before a table labels it.
        assert_eq!(blocks[1].label.as_deref(), Some("that was fast"));
        assert!(all(b"").is_empty());
        // A header alone, or followed by a blank line, is prose.
        assert!(all(b"qps rt\n\nqps rt").is_empty());
        let junk: Vec<u8> = (0..200_000u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect();
        assert!(all(&junk).iter().all(|r| r.is_ok()));
    }

    #[test]
    fn markdown_pipe_table() {
        let text = "## Sweep\n\n| threads | QPS | RT |\n|---:|---|:-:|\n| 4 | 1,200 | 3.3ms |\n";
        let head = Head {
            file_name: "",
            text,
            complete: true,
        };
        assert_eq!(sniff(&head), CONFIDENCE);
        let blocks = parse_ok(&FORMAT, text.as_bytes());
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].label.as_deref(), Some("Sweep"));
        let run = &blocks[0].runs[0];
        assert_eq!(run.params["threads"], Param::Num(4.0));
        assert_eq!(cells(run), [("qps", 1200.0, ""), ("rt", 3.3, "ms")]);
    }

    #[test]
    fn chinese_thread_counts_and_repeated_names() {
        let text = "並發測試：\n線程數(shù) QPS RT QPS\n8 640 12.5 650\n";
        let blocks = parse_ok(&FORMAT, text.as_bytes());
        assert_eq!(blocks[0].label.as_deref(), Some("並發測試"));
        let run = &blocks[0].runs[0];
        assert_eq!(run.params["線程數_shù"], Param::Num(8.0));
        assert_eq!(
            cells(run),
            [("qps", 640.0, ""), ("rt", 12.5, ""), ("qps_2", 650.0, "")]
        );
        let header = ["rt_ms", "RT", "rt", "x"].map(String::from);
        assert_eq!(Table::metrics(&header), ["rt_ms", "rt", "rt_2", "x"]);
        assert!(is_param("线程数") && is_param("threads"));
        assert!(!is_param("最佳線程數_shù") && !is_param("線程數據"));
    }

    /// Files of `dir` (recursively) with `claim` telling which the sniffer may take.
    fn check_sniffer(root: std::path::PathBuf, claim: &dyn Fn(&str) -> bool) {
        for p in crate::testutil::files_under(&root) {
            let want = if claim(&p.to_string_lossy()) {
                CONFIDENCE
            } else {
                0
            };
            assert_eq!(
                crate::testutil::sniff_file(&FORMAT, &p),
                want,
                "{}",
                p.display()
            );
        }
    }

    #[test]
    fn known_columns_are_matched_without_case_and_before_a_non_ascii_word() {
        for t in ["qps", "QPS", "Rt", "cpu利用率", "CPU利用率", "线程数"] {
            assert!(known_column(t), "{t}");
        }
        for t in ["rtx", "qpsx", "q", "", "cpu-usage", "利用率cpu"] {
            assert!(!known_column(t), "{t}");
        }
        assert_eq!(header_width("QPS  RT  cpu"), Some(3));
        assert_eq!(header_width("| 线程数 | qps | 平均延时 |"), Some(3));
        assert_eq!(header_width("QPS  RT  12"), None);
        assert_eq!(header_width("QPS  name"), None);
    }

    #[test]
    fn sniffer_claims_only_qps_tables() {
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
        check_sniffer(fixtures.join("qps-table"), &|_| true);
        check_sniffer(fixtures.join("tsar"), &|_| false);
        for dir in ["seeds", "samples"] {
            if let Some(root) = shared(dir) {
                check_sniffer(root, &|p| p.contains("001_43cbce295054d067"));
            }
        }
    }

    /// Every prefix of the inputs, and each with one byte replaced, parses to blocks,
    /// warnings or an error: never a panic.
    #[test]
    fn cut_and_damaged_inputs_never_panic() {
        let mut inputs = vec![fixture("qps-table/sweep.txt")];
        if let Some(p) = shared("seeds/001_43cbce295054d067.txt") {
            inputs.push(std::fs::read(p).unwrap());
        }
        for bytes in &inputs {
            for cut in (0..bytes.len()).step_by(13) {
                let _ = all(&bytes[..cut]).len();
            }
            let junk = [b'x', b'%', b'\n', b' ', b'|', 0xe5].iter().cycle();
            for (i, j) in (0..bytes.len()).step_by(17).zip(junk) {
                let mut damaged = bytes.clone();
                damaged[i] = *j;
                let _ = all(&damaged).len();
            }
        }
    }

    /// Every fixture of the folder, parsed whole (warnings included), as a reviewed
    /// snapshot: a new fixture is a new test.
    #[test]
    fn fixture_snapshots() {
        insta::glob!("../../../fixtures/qps-table", "*.txt", |path| {
            let out = crate::testutil::items_json(&FORMAT, &std::fs::read(path).unwrap());
            insta::assert_json_snapshot!(out);
        });
    }

    #[test]
    fn the_swept_setting_is_config() {
        let blocks =
            crate::testutil::parse_ok(&FORMAT, &crate::testutil::fixture("qps-table/sweep.txt"));
        let threads: Vec<&Param> = blocks[0]
            .runs
            .iter()
            .map(|r| &r.params["threads"])
            .collect();
        assert_eq!(threads[0], &Param::Num(8.0));
        assert!(
            blocks[0]
                .runs
                .iter()
                .all(|r| r.config.iter().eq(["threads"].iter()))
        );
    }
}
