//! The shapes of JLBH output lines, recognised by their first bytes (no regex per line).
//!
//! Each reader takes the text of a logical line and returns what it holds and the text
//! left after it: when an output was pasted onto one physical line (seed 000), the rest
//! is the next logical line. A line that has a JLBH shape but unreadable numbers is an
//! `Err(message)`; a line of any other shape is [`Line::Other`]. This module knows
//! nothing about blocks or runs.

use super::numbers::{Decimal, parse_cell, parse_count, parse_number, plain_cell, plain_decimal};

/// Why a summary row does not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowError {
    /// Fewer values than its header: what a row cut short by the end of the input gives.
    TooFewValues(String),
    /// A value that is not a number, or more values than the header.
    Unreadable(String),
}

impl RowError {
    pub fn message(self) -> String {
        match self {
            RowError::TooFewValues(m) | RowError::Unreadable(m) => m,
        }
    }
}

/// Most percentiles a probe line prints (`50/90 99/99.9 99.99/99.999 99.9999/worst`).
pub const MAX_PROBE_VALUES: usize = 8;

/// One recognised logical line.
// The probe line is large but lives on the stack for one line: boxing it would cost an
// allocation per line on the hot path.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Line<'a> {
    /// `Warm up complete (50000 iterations took 2.296s)`; masked `Warm up complete ...`.
    WarmUp {
        iterations: Option<f64>,
        secs: Option<f64>,
    },
    /// `---- BENCHMARK RESULTS (RUN 2) us ----`.
    RunHeader { run: u32 },
    /// `---- SUMMARY (end to end) us ----`.
    SummaryHeader { label: &'a str },
    /// A run of at least four dashes alone: closes a run or a summary table.
    Separator,
    /// `Run time: 2.5 s, distribution: NORMAL`.
    RunTime {
        secs: Option<f64>,
        distribution: Option<&'a str>,
    },
    /// `Correcting for co-ordinated:true`.
    CoCorrection(bool),
    /// `Target throughput:20000/s = 1 message every 50us`.
    Throughput {
        per_second: f64,
        interval_us: Option<f64>,
    },
    /// `client2server (50,000)   50/90 99/99.9 99.99 - worst was 16 / 26  38 / 72  287 - 336`.
    Probe(ProbeLine<'a>),
    /// A line whose numbers a test masked with `...` (`OS Jitter ...`,
    /// `Target throughput:...`).
    Masked,
    /// `Percentile   run1   run2   % Variation   var(log)`.
    PercentileHeader {
        runs: usize,
        variation: bool,
        var_log: bool,
    },
    /// Anything else: prose, log lines, progress lines.
    Other,
}

/// A probe line's content.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeLine<'a> {
    /// The name as printed, without the `:` of `End to End:`.
    pub name: &'a str,
    /// Sample count; `None` when masked.
    pub count: Option<u64>,
    /// The locale convention the count's grouping separator reveals, if any.
    pub locale: Option<Decimal>,
    /// How many percentiles the line prints.
    pub len: usize,
    /// The percentiles of the labels (worst = 100).
    pub percentiles: [f64; MAX_PROBE_VALUES],
    /// The printed values, microseconds (`None` when masked).
    pub values: [Option<f64>; MAX_PROBE_VALUES],
}

/// The result of reading one logical line: the line and the text after it.
pub type Read<'a> = Result<(Line<'a>, &'a str), String>;

/// `s` without its leading spaces and tabs. The 48-column padding of probe lines and the
/// 12-column cells make this hot: spaces are counted eight at a time, without a branch
/// per byte.
pub fn skip_blanks(s: &str) -> &str {
    const SPACES: u64 = u64::from_le_bytes([b' '; 8]);
    let b = s.as_bytes();
    let mut n = 0;
    while let Some(word) = b.get(n..n + 8) {
        // Zero bytes of `rest` are spaces; the lowest non-zero byte is the first other.
        let rest = u64::from_le_bytes(word.try_into().expect("eight bytes")) ^ SPACES;
        if rest != 0 {
            n += (rest.trailing_zeros() / 8) as usize;
            break;
        }
        n += 8;
    }
    while n < b.len() && (b[n] == b' ' || b[n] == b'\t') {
        n += 1;
    }
    // Only ASCII bytes were skipped: `n` is a char boundary.
    &s[n..]
}

/// Position of the byte `c` in `s`: a plain loop, as the searches it serves end within a
/// few bytes, where `str::find` spends more on setting up its word-wise search.
fn find_byte(s: &str, c: u8) -> Option<usize> {
    s.bytes().position(|b| b == c)
}

/// `s` without its leading dashes, eight at a time: a fifth of a JLBH output is the
/// dashes of its headers and separators.
fn skip_dashes(s: &str) -> &str {
    const DASHES: [u8; 8] = [b'-'; 8];
    let b = s.as_bytes();
    let mut n = 0;
    while b.len() - n >= 8 && b[n..n + 8] == DASHES {
        n += 8;
    }
    while n < b.len() && b[n] == b'-' {
        n += 1;
    }
    &s[n..]
}

/// Splits off the first whitespace-separated token: `(token, rest)`.
/// Only ASCII spaces and tabs separate: U+00A0 groups digits (`20 450`).
pub fn token(s: &str) -> Option<(&str, &str)> {
    let b = s.as_bytes();
    let blank = |c: u8| c == b' ' || c == b'\t';
    let start = b.iter().position(|&c| !blank(c))?;
    let end = b[start..]
        .iter()
        .position(|&c| blank(c))
        .map_or(b.len(), |n| start + n);
    // Both ends sit next to ASCII bytes (or the ends of `s`): valid char boundaries.
    Some((&s[start..end], &s[end..]))
}

/// Reads the logical line at the start of `s` (already trimmed). `probes` says whether a
/// probe line may appear here (inside a block); elsewhere the search for one is skipped.
pub fn read(s: &str, dec: Decimal, probes: bool) -> Read<'_> {
    let Some(&first) = s.as_bytes().first() else {
        return Ok((Line::Other, s));
    };
    match first {
        b'-' => return dashes(s),
        b'W' if s.starts_with("Warm up complete") => return warm_up(s),
        b'R' if s.starts_with("Run time:") => return run_time(s),
        b'C' if s.starts_with(CO) => {
            return masked(&s[CO.len()..], true).unwrap_or_else(|| co_correction(s));
        }
        b'T' if s.starts_with(TARGET) => {
            return masked(&s[TARGET.len()..], false).unwrap_or_else(|| throughput(s));
        }
        // `Percentil`: a markdown table whose header cell was cut to its column width.
        b'P' if s.starts_with("Percentil") => {
            if let Some(r) = percentile_header(s, probes) {
                return Ok(r);
            }
        }
        _ => {}
    }
    if probes {
        return probe(s, dec);
    }
    Ok((Line::Other, ""))
}

/// Prefix of the co-ordinated omission line.
const CO: &str = "Correcting for co-ordinated:";
/// Prefix of the target throughput line.
const TARGET: &str = "Target throughput:";

/// A masked value (`...`) after a line's prefix: the rest of the line after it when
/// `one_token`, else nothing (the line's own shape is lost).
fn masked(r: &str, one_token: bool) -> Option<Read<'_>> {
    let (tok, rest) = token(r)?;
    tok.starts_with("...")
        .then_some(Ok((Line::Masked, if one_token { rest } else { "" })))
}

/// The dashes JLBH prints before `BENCHMARK RESULTS` and `SUMMARY` in every era.
const HEADER_DASHES: usize = 32;

/// Dash lines: a separator, a run header or a summary header.
fn dashes(s: &str) -> Read<'_> {
    let after = skip_dashes(s);
    if s.len() - after.len() < 4 {
        return Ok((Line::Other, ""));
    }
    let body = skip_blanks(after);
    let header = body.starts_with("BENCHMARK RESULTS (RUN") || body.starts_with("SUMMARY (");
    let lead = s.len() - after.len();
    if header && lead > HEADER_DASHES + 20 {
        // A separator glued to the next header's 32 dashes (a pasted output lost the line
        // break): the separator first, then the header.
        return Ok((Line::Separator, &s[lead - HEADER_DASHES..]));
    }
    if let Some(r) = body.strip_prefix("BENCHMARK RESULTS (RUN") {
        let (inside, rest) =
            header_tail(r).ok_or("run header without its closing ')' and dashes")?;
        let run = inside
            .trim()
            .parse()
            .map_err(|_| format!("run number '{}' is not a number", inside.trim()))?;
        return Ok((Line::RunHeader { run }, rest));
    }
    if let Some(r) = body.strip_prefix("SUMMARY (") {
        let (label, rest) =
            header_tail(r).ok_or("SUMMARY header without its closing ')' and dashes")?;
        return Ok((
            Line::SummaryHeader {
                label: label.trim(),
            },
            rest,
        ));
    }
    Ok((Line::Separator, after))
}

/// Splits `label) us ------rest` into the text before the `)` and `rest`. The `)` is the
/// first one followed by an optional unit word and dashes (or the end), so labels may hold
/// parentheses and a joined line may continue after the dashes.
fn header_tail(s: &str) -> Option<(&str, &str)> {
    let mut from = 0;
    while let Some(i) = s[from..].find(')') {
        let p = from + i;
        let mut t = skip_blanks(&s[p + 1..]);
        if !t.starts_with('-') && !t.is_empty() {
            // An optional unit word (`us`) before the dashes; a short look only, so that a
            // line of many `)` costs linear time.
            let b = t.as_bytes();
            let w = b
                .iter()
                .take(13)
                .position(|&c| matches!(c, b' ' | b'\t' | b'-'))
                .or((b.len() <= 12).then_some(b.len()));
            if let Some(w) = w
                && b[..w].iter().all(u8::is_ascii_alphabetic)
            {
                t = skip_blanks(&t[w..]);
            }
        }
        if t.is_empty() || t.starts_with('-') {
            return Some((&s[..p], skip_dashes(t)));
        }
        from = p + 1;
    }
    None
}

/// `Warm up complete (50000 iterations took 2.296s)` (V9: `took 2.296 s)`).
fn warm_up(s: &str) -> Read<'_> {
    let r = s["Warm up complete".len()..].trim_start();
    if let Some(r) = r.strip_prefix("...") {
        return Ok((
            Line::WarmUp {
                iterations: None,
                secs: None,
            },
            r,
        ));
    }
    let Some(inner) = r.strip_prefix('(') else {
        return Ok((Line::Other, ""));
    };
    let (inner, rest) = inner
        .split_once(')')
        .ok_or("warm-up line without its closing ')'")?;
    let bad =
        || format!("cannot read warm-up line '({inner})': expected '(N iterations took X s)'");
    let (n, t) = inner.split_once(" iterations took ").ok_or_else(bad)?;
    let iterations = Some(parse_count(n.trim()).ok_or_else(bad)? as f64);
    let t = t.trim().trim_end_matches('s').trim_end();
    let secs = if t.starts_with("...") {
        None
    } else {
        Some(parse_number(t, Decimal::Point).ok_or_else(bad)?)
    };
    Ok((Line::WarmUp { iterations, secs }, rest))
}

/// `Run time: 2.5s`, `Run time: 2.5s, distribution: NORMAL`, `Run time: 2.5 s, …`.
fn run_time(s: &str) -> Read<'_> {
    let r = skip_blanks(&s["Run time:".len()..]);
    let end = r
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'E' || c == '-'))
        .unwrap_or(r.len());
    let num = &r[..end];
    let secs = if num.starts_with("...") {
        None
    } else {
        Some(
            num.parse::<f64>()
                .map_err(|_| format!("run time '{}' is not a number of seconds", r.trim()))?,
        )
    };
    let mut r = r[end..].trim_start_matches(' ');
    r = r
        .strip_prefix('s')
        .ok_or_else(|| format!("run time '{num}' lacks its unit 's'"))?;
    let mut distribution = None;
    if let Some(d) = r.strip_prefix(", distribution:") {
        let (tok, rest) = token(d).ok_or("distribution without a name")?;
        distribution = Some(tok);
        r = rest;
    } else if let Some(rest) = r.strip_prefix(',') {
        r = rest;
    }
    Ok((Line::RunTime { secs, distribution }, r))
}

/// `Correcting for co-ordinated:true`.
fn co_correction(s: &str) -> Read<'_> {
    let r = &s[CO.len()..];
    let (tok, rest) = token(r).ok_or("co-ordinated omission flag is missing")?;
    let v = match tok {
        "true" => true,
        "false" => false,
        _ => {
            return Err(format!(
                "co-ordinated omission flag '{tok}' is not true/false"
            ));
        }
    };
    Ok((Line::CoCorrection(v), rest))
}

/// `Target throughput:20000/s = 1 message every 50us`.
fn throughput(s: &str) -> Read<'_> {
    let r = s[TARGET.len()..].trim_start();
    let (rate, r) = r
        .split_once('/')
        .ok_or_else(|| format!("cannot read throughput '{r}': expected 'N/unit'"))?;
    let rate = parse_number(rate.trim(), Decimal::Unknown)
        .ok_or_else(|| format!("throughput '{}' is not a number", rate.trim()))?;
    let end = r
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(r.len());
    let per_unit = match &r[..end] {
        "ns" => 1e9,
        "us" | "µs" => 1e6,
        "ms" => 1e3,
        "s" => 1.0,
        "min" => 1.0 / 60.0,
        "h" => 1.0 / 3600.0,
        "day" | "d" => 1.0 / 86400.0,
        u => {
            return Err(format!(
                "throughput time unit '{u}' is not one of ns, us, ms, s, min, h, day"
            ));
        }
    };
    let mut r = &r[end..];
    let mut interval_us = None;
    if let Some(t) = r.trim_start().strip_prefix("= 1 message every ") {
        let e = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
        interval_us = Some(
            t[..e]
                .parse::<f64>()
                .map_err(|_| format!("message interval '{t}' is not a number"))?,
        );
        r = t[e..].strip_prefix("us").unwrap_or(&t[e..]);
    }
    Ok((
        Line::Throughput {
            per_second: rate * per_unit,
            interval_us,
        },
        r,
    ))
}

/// `Percentile   run1   run2   % Variation   var(log)`; `None` if `run1` does not follow.
/// Outside an output (`inside` false) the `% Variation` column is required too.
fn percentile_header(s: &str, inside: bool) -> Option<(Line<'_>, &str)> {
    let (_, mut r) = token(s)?;
    let mut runs = 0;
    while let Some((tok, rest)) = token(r) {
        let number = tok
            .strip_prefix("run")
            .and_then(|d| d.parse::<usize>().ok());
        if number == Some(runs + 1) {
            runs += 1;
            r = rest;
        } else {
            break;
        }
    }
    if runs == 0 {
        return None;
    }
    // JLBH's own tables have `% Variation` (hand-edited ones under a SUMMARY header, or
    // bare with nothing after the run columns, lack it); prose such as `Percentile run1
    // was …` has neither.
    if !inside && !r.contains("Variation") && !r.trim().is_empty() {
        return None;
    }
    let mut variation = false;
    let mut var_log = false;
    if let Some(("%", rest)) = token(r)
        && let Some(("Variation", rest)) = token(rest)
    {
        variation = true;
        r = rest;
    }
    if let Some(("var(log)", rest)) = token(r) {
        var_log = true;
        r = rest;
    }
    Some((
        Line::PercentileHeader {
            runs,
            variation,
            var_log,
        },
        r,
    ))
}

/// A probe line: `<name> (<count>) 50/90 … was <values>`, found by its `(count)` followed
/// by `50/90`. Masked `OS Jitter ...` lines count too.
fn probe(s: &str, dec: Decimal) -> Read<'_> {
    let mut from = 0;
    while let Some(i) = find_byte(&s[from..], b'(') {
        let open = from + i;
        from = open + 1;
        // A count is short: bound the search so junk lines cost linear time.
        let mut end = s.len().min(open + 40);
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        let window = &s[open + 1..end];
        let Some(close) = find_byte(window, b')') else {
            continue;
        };
        let count_text = &window[..close];
        let after = skip_blanks(&s[open + 1 + close + 1..]);
        if !after.starts_with("50/90") {
            continue;
        }
        let name = s[..open].trim_end();
        let name = name.strip_suffix(':').unwrap_or(name).trim_end();
        return probe_values(name, count_text, after, dec);
    }
    for masked in ["OS Jitter", "End to End:"] {
        if let Some(r) = s.strip_prefix(masked)
            && let Some(r) = r.trim_start().strip_prefix("...")
        {
            return Ok((Line::Masked, r));
        }
    }
    Ok((Line::Other, ""))
}

/// The label forms of probe lines by sample count (< 1M, < 10M, more) and their percentiles.
const KNOWN_LABELS: [(&str, &[f64]); 3] = [
    (
        "50/90 99/99.9 99.99 - worst was ",
        &[50.0, 90.0, 99.0, 99.9, 99.99, 100.0],
    ),
    (
        "50/90 99/99.9 99.99/99.999 - worst was ",
        &[50.0, 90.0, 99.0, 99.9, 99.99, 99.999, 100.0],
    ),
    (
        "50/90 99/99.9 99.99/99.999 99.9999/worst was ",
        &[50.0, 90.0, 99.0, 99.9, 99.99, 99.999, 99.9999, 100.0],
    ),
];

/// Reads the labels and values of a probe line after its `(count)`.
fn probe_values<'a>(name: &'a str, count_text: &str, s: &'a str, dec: Decimal) -> Read<'a> {
    let count_text = count_text.trim();
    let count =
        if count_text.starts_with("...") {
            None
        } else {
            Some(parse_count(count_text).ok_or_else(|| {
                format!("sample count '({count_text})' of '{name}' is not a number")
            })?)
        };
    // The count's grouping separator tells the locale of the values (`20.450` in German).
    let locale = Decimal::from_grouped_count(count_text);
    let dec = match locale {
        Some(d) if dec == Decimal::Unknown => d,
        _ => dec,
    };
    let mut line = ProbeLine {
        name,
        count,
        locale,
        len: 0,
        percentiles: [0.0; MAX_PROBE_VALUES],
        values: [None; MAX_PROBE_VALUES],
    };
    let mut r = s;
    // The three label forms `Histogram.toMicrosFormat()` prints, matched whole.
    let mut known = false;
    for (labels, percentiles) in KNOWN_LABELS {
        if let Some(rest) = s.strip_prefix(labels) {
            line.percentiles[..percentiles.len()].copy_from_slice(percentiles);
            line.len = percentiles.len();
            r = rest;
            known = true;
            break;
        }
    }
    if !known {
        loop {
            let (tok, rest) =
                token(r).ok_or_else(|| format!("probe line of '{name}' ends before 'was'"))?;
            r = rest;
            if tok == "was" || tok == "was:" {
                if line.len == 0 {
                    return Err(format!("probe line of '{name}' has no percentile labels"));
                }
                break;
            }
            if tok == "-" {
                continue;
            }
            for label in tok.split('/') {
                let p = match label {
                    "worst" => 100.0,
                    _ => parse_number(label, Decimal::Point)
                        .filter(|p| (0.0..100.0).contains(p))
                        .ok_or_else(|| {
                            format!("percentile label '{label}' of '{name}' is not a percentile")
                        })?,
                };
                if line.len == MAX_PROBE_VALUES {
                    return Err(format!("probe line of '{name}' has too many percentiles"));
                }
                line.percentiles[line.len] = p;
                line.len += 1;
            }
        }
    }
    let mut i = 0;
    while i < line.len {
        let t = skip_blanks(r);
        if let Some((v, n)) = plain_cell(t.as_bytes(), dec) {
            line.values[i] = Some(v);
            i += 1;
            r = &t[n..];
            continue;
        }
        if let [b'/' | b'-'] | [b'/' | b'-', b' ' | b'\t', ..] = t.as_bytes() {
            // The `/` and `-` between values, skipped without cutting out a token.
            r = &t[1..];
            continue;
        }
        let (tok, rest) = token(r).ok_or_else(|| {
            format!(
                "probe line of '{name}' has {i} values, its labels promise {}",
                line.len
            )
        })?;
        r = rest;
        if tok == "/" || tok == "-" {
            continue;
        }
        line.values[i] = parse_cell(tok, dec)
            .map_err(|()| format!("value '{tok}' of probe '{name}' is not a number"))?;
        i += 1;
    }
    Ok((Line::Probe(line), r))
}

/// A summary row: its percentile (from the label), cells (runs, then `% Variation`, then
/// `var(log)`) and the text left after it.
#[derive(Debug, Clone, PartialEq)]
pub struct Row<'a> {
    /// The printed label without `:` (`50`, `99.9`, `worst`, `100.0`).
    pub label: &'a str,
    /// Parsed label; worst = 100. `100.0` rows (a rounding artefact) are fixed by the caller.
    pub percentile: f64,
    /// How many cells were read.
    pub cells: usize,
}

/// Reads a summary row into `cells`; `Ok(None)` when `s` is not a row (its first token is
/// not a percentile label ending in `:`). `min`..=`max` cells are expected: the run columns
/// and `% Variation`, then an optional `var(log)` that hand-edited tables leave blank.
pub fn row<'a>(
    s: &'a str,
    dec: Decimal,
    min: usize,
    max: usize,
    cells: &mut Vec<Option<f64>>,
) -> Result<Option<(Row<'a>, &'a str)>, RowError> {
    let Some((first, after)) = token(s) else {
        return Ok(None);
    };
    let Some(colon) = find_byte(first, b':') else {
        return Ok(None);
    };
    // V1 labels are 6 characters wide: `99.99:` may touch its first value, so text after
    // the colon is allowed when it is a cell (and `13:11:07` is no row).
    let label = &first[..colon];
    let mut touching = &first[colon + 1..];
    // A spreadsheet that read `50:` as a time printed it back as `50:00:00`.
    if touching == "00:00" {
        touching = "";
    }
    if !touching.is_empty() && parse_cell(touching, dec).is_err() {
        return Ok(None);
    }
    let percentile = match label {
        "worst" => 100.0,
        _ if !label.is_empty() && label.bytes().all(|b| b.is_ascii_digit() || b == b'.') => {
            match plain_decimal(label.as_bytes()) {
                Some(p) if p <= 100.0 => p,
                _ => return Ok(None),
            }
        }
        _ => return Ok(None),
    };
    // The cells start right after the label's colon (or its `:00:00`).
    let mut r = &s[s.len() - after.len() - touching.len()..];
    cells.clear();
    while cells.len() < max {
        let t = skip_blanks(r);
        if let Some((v, n)) = plain_cell(t.as_bytes(), dec) {
            cells.push(Some(v));
            r = &t[n..];
            continue;
        }
        match token(r) {
            Some((tok, rest)) => match parse_cell(tok, dec) {
                Ok(v) => {
                    cells.push(v);
                    r = rest;
                }
                Err(()) if cells.len() >= min => break,
                Err(()) => {
                    return Err(RowError::Unreadable(format!(
                        "summary row '{label}:' value '{tok}' is not a number"
                    )));
                }
            },
            None if cells.len() >= min => break,
            None => {
                return Err(RowError::TooFewValues(format!(
                    "summary row '{label}:' has {} values, expected {min}",
                    cells.len()
                )));
            }
        }
    }
    if let Some((tok, _)) = token(r)
        && parse_cell(tok, dec).is_ok()
    {
        return Err(RowError::Unreadable(format!(
            "summary row '{label}:' has more than {max} values"
        )));
    }
    Ok(Some((
        Row {
            label,
            percentile,
            cells: cells.len(),
        },
        r,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(s: &str) -> Line<'_> {
        let (l, rest) = read(s, Decimal::Unknown, true).unwrap();
        assert_eq!(rest.trim(), "", "rest of {s:?}");
        l
    }

    #[test]
    fn headers_of_every_era() {
        let v1 = "-------------------------------- BENCHMARK RESULTS (RUN 1) --------------------------------------------------------";
        assert_eq!(one(v1), Line::RunHeader { run: 1 });
        let v9 = "-------------------------------- BENCHMARK RESULTS (RUN 12) us --------------------------------------";
        assert_eq!(one(v9), Line::RunHeader { run: 12 });
        let s1 = "-------------------------------- SUMMARY (end to end)------------------------------------------------------------";
        assert_eq!(
            one(s1),
            Line::SummaryHeader {
                label: "end to end"
            }
        );
        let s2 = "-------------------------------- SUMMARY (a (b)) us -----";
        assert_eq!(one(s2), Line::SummaryHeader { label: "a (b)" });
        assert_eq!(one("----------"), Line::Separator);
        assert_eq!(one("---"), Line::Other);
        assert!(
            read(
                "---- BENCHMARK RESULTS (RUN x) ----",
                Decimal::Unknown,
                true
            )
            .is_err()
        );
    }

    #[test]
    fn joined_lines_leave_the_rest() {
        let s = "-------- BENCHMARK RESULTS (RUN 1) ---------Run time: 2.5s Correcting for co-ordinated:true Target";
        let (l, r) = read(s, Decimal::Unknown, true).unwrap();
        assert_eq!(l, Line::RunHeader { run: 1 });
        let (l, r) = read(r, Decimal::Unknown, true).unwrap();
        assert_eq!(
            l,
            Line::RunTime {
                secs: Some(2.5),
                distribution: None
            }
        );
        let (l, r) = read(r.trim_start(), Decimal::Unknown, true).unwrap();
        assert_eq!(l, Line::CoCorrection(true));
        assert_eq!(r, " Target");
    }

    #[test]
    fn run_parameter_lines() {
        assert_eq!(
            one("Run time: 2.5 s, distribution: NORMAL"),
            Line::RunTime {
                secs: Some(2.5),
                distribution: Some("NORMAL")
            }
        );
        assert_eq!(
            one("Run time: ...s, distribution: NORMAL"),
            Line::RunTime {
                secs: None,
                distribution: Some("NORMAL")
            }
        );
        assert_eq!(
            one("Target throughput:20/ms = 1 message every 50us"),
            Line::Throughput {
                per_second: 20000.0,
                interval_us: Some(50.0)
            }
        );
        assert_eq!(
            one("Warm up complete (50000 iterations took 2.296 s)"),
            Line::WarmUp {
                iterations: Some(50000.0),
                secs: Some(2.296)
            }
        );
        assert!(read("Run time: abc", Decimal::Unknown, true).is_err());
        assert!(read("Target throughput:20000/week", Decimal::Unknown, true).is_err());
        assert!(read("Correcting for co-ordinated:maybe", Decimal::Unknown, true).is_err());
    }

    #[test]
    fn probe_line_forms() {
        let Line::Probe(p) = one(
            "End to End: (1,000,000)                         50/90 99/99.9 99.99/99.999 - worst was 0.33 / 0.91  23 / 96  113 / 143 - 176",
        ) else {
            panic!()
        };
        assert_eq!((p.name, p.count, p.len), ("End to End", Some(1_000_000), 7));
        assert_eq!(p.percentiles[5], 99.999);
        assert_eq!(p.values[5], Some(143.0));
        assert_eq!(p.values[6], Some(176.0));
        let Line::Probe(p) = one(
            "x(y) (12,000,000) 50/90 99/99.9 99.99/99.999 99.9999/worst was 1 / 2  3 / 4  5 / 6  7 / 8",
        ) else {
            panic!()
        };
        assert_eq!((p.name, p.len, p.values[7]), ("x(y)", 8, Some(8.0)));
        assert_eq!(one("OS Jitter ..."), Line::Masked);
        assert_eq!(one("Correcting for co-ordinated:..."), Line::Masked);
        assert_eq!(
            one("Target throughput:.../s = 1 message every ...us"),
            Line::Masked
        );
        assert!(
            read(
                "A (9,000) 50/90 99/99.9 99.99 - worst was 1 / x  3 / 4  5 - 6",
                Decimal::Unknown,
                true
            )
            .is_err()
        );
        assert!(
            read(
                "A (9,000) 50/90 99/99.9 99.99 - worst was 1 / 2",
                Decimal::Unknown,
                true
            )
            .is_err()
        );
        assert_eq!(
            one("13:11:07.437 [main] INFO Thread[main,5,main] (x)"),
            Line::Other
        );
    }

    #[test]
    fn summary_rows() {
        let mut cells = Vec::new();
        let (r, rest) = row(
            "99.99:  286.72  573.44  200.70  55.32",
            Decimal::Unknown,
            4,
            5,
            &mut cells,
        )
        .unwrap()
        .unwrap();
        assert_eq!((r.percentile, r.cells), (99.99, 4));
        assert_eq!(cells[3], Some(55.32));
        assert_eq!(rest.trim(), "");
        let (r, rest) = row(
            "50: 33.79 41.98 33.79 13.91 90: 1",
            Decimal::Unknown,
            4,
            5,
            &mut cells,
        )
        .unwrap()
        .unwrap();
        assert_eq!((r.cells, rest.trim()), (4, "90: 1"));
        assert_eq!(
            row("50: 1 2", Decimal::Unknown, 4, 5, &mut cells),
            Err(RowError::TooFewValues(
                "summary row '50:' has 2 values, expected 4".into()
            ))
        );
        assert!(matches!(
            row("50: 1 2 x 4", Decimal::Unknown, 4, 5, &mut cells),
            Err(RowError::Unreadable(_))
        ));
        assert!(matches!(
            row("50: 1 2 3 4 5 6", Decimal::Unknown, 4, 5, &mut cells),
            Err(RowError::Unreadable(_))
        ));
        assert_eq!(
            row("Note: text", Decimal::Unknown, 4, 5, &mut cells),
            Ok(None)
        );
        assert_eq!(
            row("13:11:07 INFO", Decimal::Unknown, 4, 5, &mut cells),
            Ok(None)
        );
    }
}
