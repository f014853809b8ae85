//! Buffer-at-a-time line reading for the JLBH parser's speed target (hundreds of MB/s).
//!
//! Same contract as [`crate::lines::LineReader`] (1-based numbers, `\r` and ANSI escapes
//! stripped, lossy UTF-8), but the input is read a buffer of whole lines at a time into
//! one reused `String`, validated as UTF-8 in one pass (not once per line), and each line
//! is handed out in place; only lines holding escapes are copied again.

use crate::error::ParseError;
use crate::text::strip_ansi;
use crate::unwrap::Unwrapper;
use std::borrow::Cow;
use std::io::BufRead;

/// The ANSI escape byte.
const ESC: u8 = 0x1b;

/// Reads lines from a `BufRead`, a buffer of whole lines at a time.
pub struct Lines<R> {
    inner: R,
    /// Whole lines read ahead (the last one unterminated only at the end of input).
    text: String,
    /// Where the next line starts in `text`.
    pos: usize,
    /// Whether `text` holds an ESC byte (only then are lines checked for escapes).
    escapes: bool,
    /// A line rewritten without its escapes or wrapping.
    stripped: String,
    number: u64,
    unwrap: Unwrapper,
}

impl<R: BufRead> Lines<R> {
    pub fn new(inner: R) -> Self {
        Lines {
            inner,
            text: String::new(),
            pos: 0,
            escapes: false,
            stripped: String::new(),
            number: 0,
            unwrap: Unwrapper::new(),
        }
    }

    /// The next line without its terminator, or `None` at the end of input.
    /// Lines that are only table markup (see [`Unwrapper`]) are skipped, still counted.
    #[cfg(test)]
    pub fn next_line(&mut self) -> Result<Option<&str>, ParseError> {
        Ok(self.next_numbered()?.map(|(_, line)| line))
    }

    /// The next line and its 1-based number, or `None` at the end of input.
    pub fn next_numbered(&mut self) -> Result<Option<(u64, &str)>, ParseError> {
        loop {
            if self.pos >= self.text.len() && !self.refill()? {
                return Ok(None);
            }
            self.number += 1;
            let start = self.pos;
            let rest = &self.text[start..];
            let end = find_newline(rest.as_bytes()).unwrap_or(rest.len());
            self.pos += end + 1;
            let line = &self.text[start..start + end];
            let line = line.trim_end_matches('\r');
            let escaped = self.escapes && line.as_bytes().contains(&ESC);
            if escaped {
                self.stripped = strip_ansi(line);
            }
            let src: &str = if escaped { &self.stripped } else { line };
            match self.unwrap.line(src) {
                None => continue,
                Some(Cow::Borrowed(s)) if s.len() == src.len() && !escaped => {
                    // Unchanged: hand the line out in place.
                    let line = &self.text[start..start + end];
                    return Ok(Some((self.number, line.trim_end_matches('\r'))));
                }
                Some(Cow::Borrowed(s)) if s.len() == src.len() => {
                    return Ok(Some((self.number, &self.stripped)));
                }
                Some(other) => {
                    self.stripped = other.into_owned();
                    return Ok(Some((self.number, &self.stripped)));
                }
            }
        }
    }

    /// Reads the next whole lines into `text`; `false` at the end of input. Asks the
    /// reader for more only when every line read so far was handed out, as a line-by-line
    /// reader would: blocks stream out as soon as their lines arrive.
    fn refill(&mut self) -> Result<bool, ParseError> {
        let mut bytes = std::mem::take(&mut self.text).into_bytes();
        bytes.clear();
        self.pos = 0;
        loop {
            let buf = self
                .inner
                .fill_buf()
                .map_err(|e| ParseError::io(self.number + 1, &e))?;
            if buf.is_empty() {
                // The end of input: what is left is the last, unterminated line.
                if bytes.is_empty() {
                    return Ok(false);
                }
                break;
            }
            // Whole lines only: a line's start stays in the reader until its end arrives.
            let take = buf
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(buf.len(), |i| i + 1);
            bytes.extend_from_slice(&buf[..take]);
            self.inner.consume(take);
            if bytes.last() == Some(&b'\n') {
                break;
            }
        }
        // A fold without an early exit, so that it runs a vector at a time.
        self.escapes = bytes.iter().fold(false, |seen, &b| seen | (b == ESC));
        self.text = match String::from_utf8(bytes) {
            Ok(text) => text,
            // A newline ends any invalid sequence: decoding the whole buffer lossily is
            // decoding each line lossily.
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
        Ok(true)
    }
}

/// Position of the first `\n` in `b`. Each 32-byte chunk is tested whole, without an
/// early exit, so that the test compiles to a few vector compares (std's `find` goes a
/// word at a time and was a tenth of the parse); the chunk that has one is searched a
/// word at a time.
fn find_newline(b: &[u8]) -> Option<usize> {
    const WIDTH: usize = 32;
    let mut chunks = b.chunks_exact(WIDTH);
    let mut base = 0;
    for chunk in &mut chunks {
        if chunk.iter().fold(false, |seen, &c| seen | (c == b'\n')) {
            return first_newline_in_chunk(chunk).map(|i| base + i);
        }
        base += WIDTH;
    }
    chunks
        .remainder()
        .iter()
        .position(|&c| c == b'\n')
        .map(|i| base + i)
}

/// The first `\n` of `chunk`, eight bytes at a time: in `x ^ NEWLINES` a newline is a
/// zero byte, and `(y - ONES) & !y & HIGHS` marks the first zero byte of `y` exactly.
fn first_newline_in_chunk(chunk: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    const NEWLINES: u64 = u64::from_le_bytes([b'\n'; 8]);
    chunk.chunks_exact(8).enumerate().find_map(|(k, word)| {
        let y = u64::from_le_bytes(word.try_into().expect("eight bytes")) ^ NEWLINES;
        let zeros = y.wrapping_sub(ONES) & !y & HIGHS;
        (zeros != 0).then(|| 8 * k + (zeros.trailing_zeros() / 8) as usize)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_lines_as_line_reader() {
        let data = b"a\r\n\x1b[1mbold\x1b[0m\n\xff\xfe\n\nlast";
        let mut r = Lines::new(&data[..]);
        assert_eq!(r.next_line().unwrap(), Some("a"));
        assert_eq!(r.next_line().unwrap(), Some("bold"));
        assert_eq!(r.next_line().unwrap(), Some("\u{fffd}\u{fffd}"));
        assert_eq!(r.next_line().unwrap(), Some(""));
        assert_eq!(r.next_line().unwrap(), Some("last"));
        assert_eq!(r.number, 5);
        assert_eq!(r.next_line().unwrap(), None);
        assert_eq!(r.next_line().unwrap(), None);
    }

    #[test]
    fn lines_straddling_small_buffers() {
        let text: String = (0..200)
            .map(|i| format!("line {i} {}\n", "x".repeat(i % 37)))
            .collect();
        for cap in [1, 2, 7, 8, 9, 64] {
            let mut r = Lines::new(std::io::BufReader::with_capacity(cap, text.as_bytes()));
            for (i, expect) in text.lines().enumerate() {
                // Trailing spaces go: the un-wrapping pass trims them.
                let expect = expect.trim_end();
                assert_eq!(r.next_line().unwrap(), Some(expect), "cap {cap} line {i}");
            }
            assert_eq!(r.next_line().unwrap(), None);
        }
    }

    #[test]
    fn newline_search() {
        for n in 0..100 {
            let mut v = vec![b'a'; 100];
            assert_eq!(find_newline(&v[..n]), None);
            v[n] = b'\n';
            assert_eq!(find_newline(&v), Some(n));
            v[99] = b'\n';
            assert_eq!(find_newline(&v), Some(n));
        }
    }

    #[test]
    fn lines_longer_than_a_chunk() {
        let long = "y".repeat(3 << 16);
        let text = format!("a\n{long}\r\nb\n\n");
        let mut r = Lines::new(text.as_bytes());
        assert_eq!(r.next_line().unwrap(), Some("a"));
        assert_eq!(r.next_line().unwrap(), Some(long.as_str()));
        assert_eq!(r.next_line().unwrap(), Some("b"));
        assert_eq!(r.next_line().unwrap(), Some(""));
        assert_eq!(r.next_line().unwrap(), None);
    }

    #[test]
    fn invalid_bytes_and_escapes_among_clean_lines() {
        // A multi-byte character split by a buffer refill stays one character.
        let mut data = vec![b'x'; (8 << 10) - 1];
        data.extend_from_slice("é\n\x1b[31mred\x1b[0m\né".as_bytes());
        data.extend_from_slice(b"\xff\n");
        let mut r = Lines::new(std::io::BufReader::new(&data[..]));
        let first = r.next_line().unwrap().unwrap().to_string();
        assert!(first.ends_with("xé"), "{}", &first[first.len() - 5..]);
        assert_eq!(r.next_line().unwrap(), Some("red"));
        assert_eq!(r.next_line().unwrap(), Some("é\u{fffd}"));
        assert_eq!(r.next_line().unwrap(), None);
    }
}
