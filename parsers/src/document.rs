//! The document reader, for formats read whole instead of line by line: JSON result
//! files, exports, and outputs whose blocks need lines printed after them (hyperfine's
//! summary, JMH's table under its log, Criterion's, k6's and Go's results).
//!
//! It owns reading the input to its end and the cleaning a line format gets from
//! [`crate::lines::LineReader`]: its [`lines`](Document::lines) are cleaned
//! ([`clean_line`]: trailing `\r`s, ANSI escapes) and un-wrapped ([`crate::unwrap`]) and
//! keep the numbers they have in the file, so a document format special-cases no
//! wrapper either. JSON is parsed from the [`text`](Document::text) as read; a layout that
//! un-wrapping would change (hyperfine's markdown table and CSV, k6's summary ended by its
//! code fence) reads [`clean_lines`](Document::clean_lines), which are not un-wrapped. It
//! knows no format.

use crate::error::ParseError;
use crate::model::ParseIter;
use crate::model::Parsed;
use crate::text::clean_line;
use crate::unwrap::Unwrapper;
use std::borrow::Cow;
use std::io::{BufRead, Read};

/// The largest input a format reads whole: 256 MiB. The largest real document seen
/// (Criterion's `sample.json` of 200 000 samples) is 4 MB; the text is held in memory,
/// so a larger input is refused instead of read.
pub const MAX_DOCUMENT: usize = 256 << 20;

/// A whole input as text.
#[derive(Debug, Clone)]
pub struct Document {
    text: String,
}

impl Document {
    /// Reads all of `r`: invalid UTF-8 is replaced (binary junk is never an error), a
    /// leading byte-order mark is left out (it is no text); a read error, or an input
    /// larger than [`MAX_DOCUMENT`], is an error at line 1.
    pub fn read(r: &mut dyn BufRead) -> Result<Self, ParseError> {
        let mut bytes = Vec::new();
        Read::take(&mut *r, MAX_DOCUMENT as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| ParseError::io(1, &e))?;
        if bytes.len() > MAX_DOCUMENT {
            return Err(ParseError::new(
                1,
                format!(
                    "the input is larger than {} MiB, the most this format reads whole",
                    MAX_DOCUMENT >> 20
                ),
            ));
        }
        let mut text = match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
        if text.starts_with('\u{feff}') {
            text.drain(..'\u{feff}'.len_utf8());
        }
        Ok(Document { text })
    }

    /// The text as read, for JSON and for line ranges counted in it.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The lines as a line format sees them, each with its 1-based number in the file:
    /// cleaned and un-wrapped; lines that are only table markup are left out.
    pub fn lines(&self) -> impl Iterator<Item = (u64, Cow<'_, str>)> + '_ {
        let mut unwrap = Unwrapper::new();
        self.clean_lines().filter_map(move |(n, line)| match line {
            Cow::Borrowed(l) => unwrap.line(l).map(|u| (n, u)),
            Cow::Owned(l) => unwrap.line(&l).map(|u| (n, Cow::Owned(u.into_owned()))),
        })
    }

    /// The lines cleaned ([`clean_line`]) but not un-wrapped, each with its 1-based
    /// number: for an export whose own layout is what un-wrapping takes off.
    pub fn clean_lines(&self) -> impl Iterator<Item = (u64, Cow<'_, str>)> + '_ {
        self.text
            .lines()
            .enumerate()
            .map(|(i, line)| (i as u64 + 1, clean_line(line)))
    }
}

/// Reads `r` whole and parses it with `parse`: its blocks (and warnings) in order, or its
/// error (a read error included), as a [`ParseIter`].
pub fn parse<'a, T: Into<Parsed> + 'a>(
    mut r: Box<dyn BufRead + 'a>,
    parse: impl FnOnce(&Document) -> Result<Vec<T>, ParseError>,
) -> ParseIter<'a> {
    match Document::read(&mut r).and_then(|doc| parse(&doc)) {
        Ok(items) => Box::new(items.into_iter().map(|item| Ok(item.into()))),
        Err(e) => Box::new(std::iter::once(Err(e))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(bytes: &[u8]) -> Document {
        Document::read(&mut &bytes[..]).unwrap()
    }

    #[test]
    fn lines_are_cleaned_and_unwrapped_and_keep_their_numbers() {
        let d = doc(b"\xef\xbb\xbfa\r\n```text\n|---|---|\n| 50: | \x1b[1m0.11\x1b[0m |\r\n\xffz");
        let lines: Vec<(u64, String)> = d.lines().map(|(n, l)| (n, l.into_owned())).collect();
        assert_eq!(
            lines,
            vec![
                (1, "a".to_string()),
                (2, String::new()),
                (4, "50:   0.11".to_string()),
                (5, "\u{fffd}z".to_string()),
            ]
        );
        assert!(d.text().starts_with("a\r\n```text\n"));
    }

    #[test]
    fn clean_lines_keep_the_wrapper() {
        let d = doc(b"| Command | Mean [ms] |\r\n|:---|---:|\n");
        let lines: Vec<(u64, String)> = d.clean_lines().map(|(n, l)| (n, l.into_owned())).collect();
        assert_eq!(
            lines,
            vec![
                (1, "| Command | Mean [ms] |".to_string()),
                (2, "|:---|---:|".to_string()),
            ]
        );
    }

    #[test]
    fn parse_yields_items_or_the_error() {
        let ok = parse(Box::new(&b"x"[..]), |d| {
            Ok(vec![Parsed::Warning {
                line: 1,
                message: d.text().to_string(),
            }])
        });
        assert_eq!(
            ok.collect::<Vec<_>>(),
            vec![Ok(Parsed::Warning {
                line: 1,
                message: "x".into()
            })]
        );
        let err = parse::<Parsed>(Box::new(&b"x"[..]), |_| Err(ParseError::new(3, "bad")));
        assert_eq!(
            err.collect::<Vec<_>>(),
            vec![Err(ParseError::new(3, "bad"))]
        );
    }
}
