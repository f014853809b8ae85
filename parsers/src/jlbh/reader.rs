//! Zero-copy line reading for the JLBH parser's speed target (hundreds of MB/s).
//!
//! Same contract as [`crate::text::LineReader`] (1-based numbers, `\r` and ANSI escapes
//! stripped, lossy UTF-8), but a line that lies whole in the `BufRead`'s buffer is
//! handed out in place instead of being copied twice; only lines that straddle a buffer
//! refill, contain escapes or invalid UTF-8 are copied.

use crate::error::ParseError;
use crate::text::strip_ansi;
use std::io::BufRead;

/// Reads lines from a `BufRead`, borrowing its buffer where it can.
pub struct Lines<R> {
    inner: R,
    /// Bytes of the line last returned (and its `\n`) still to consume from `inner`.
    pending: usize,
    /// A line gathered across buffer refills.
    spill: Vec<u8>,
    /// A line that had to be rewritten (escapes, invalid UTF-8).
    text: String,
    number: u64,
}

impl<R: BufRead> Lines<R> {
    pub fn new(inner: R) -> Self {
        Lines {
            inner,
            pending: 0,
            spill: Vec::new(),
            text: String::new(),
            number: 0,
        }
    }

    /// The next line without its terminator, or `None` at the end of input.
    pub fn next_line(&mut self) -> Result<Option<&str>, ParseError> {
        self.inner.consume(std::mem::take(&mut self.pending));
        let number = self.number + 1;
        let found = {
            let buf = self
                .inner
                .fill_buf()
                .map_err(|e| ParseError::io(number, &e))?;
            if buf.is_empty() {
                return Ok(None);
            }
            find_newline(buf)
        };
        self.number = number;
        if let Some(end) = found {
            self.pending = end + 1;
            // Without a `consume`, `fill_buf` hands back the same bytes (no IO); asking
            // twice keeps the borrow checker content with a conditional return.
            let buf = self
                .inner
                .fill_buf()
                .map_err(|e| ParseError::io(number, &e))?;
            return Ok(Some(decode(&buf[..end], &mut self.text)));
        }
        // The line straddles a refill: gather it.
        self.spill.clear();
        loop {
            let buf = self
                .inner
                .fill_buf()
                .map_err(|e| ParseError::io(number, &e))?;
            if buf.is_empty() {
                break;
            }
            match find_newline(buf) {
                Some(end) => {
                    self.spill.extend_from_slice(&buf[..end]);
                    self.inner.consume(end + 1);
                    break;
                }
                None => {
                    self.spill.extend_from_slice(buf);
                    let n = buf.len();
                    self.inner.consume(n);
                }
            }
        }
        Ok(Some(decode(&self.spill, &mut self.text)))
    }
}

/// The line's text: in place when it is clean UTF-8, else rewritten into `text`.
fn decode<'a>(line: &'a [u8], text: &'a mut String) -> &'a str {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let escapes = line.contains(&0x1b);
    match std::str::from_utf8(line) {
        Ok(s) if !escapes => s,
        Ok(s) => {
            *text = strip_ansi(s);
            text
        }
        Err(_) => {
            let s = String::from_utf8_lossy(line);
            *text = if escapes {
                strip_ansi(&s)
            } else {
                s.into_owned()
            };
            text
        }
    }
}

/// Position of the first `\n`, eight bytes at a time: std's `memchr` is not public and
/// a byte loop would cost a cycle per byte.
fn find_newline(buf: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const NEWLINES: u64 = ONES * b'\n' as u64;
    let mut chunks = buf.chunks_exact(8);
    let mut offset = 0;
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let x = word ^ NEWLINES;
        // The lowest set high bit marks the first zero byte of `x` exactly.
        let found = x.wrapping_sub(ONES) & !x & HIGHS;
        if found != 0 {
            return Some(offset + (found.trailing_zeros() / 8) as usize);
        }
        offset += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b == b'\n')
        .map(|i| offset + i)
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
                assert_eq!(r.next_line().unwrap(), Some(expect), "cap {cap} line {i}");
            }
            assert_eq!(r.next_line().unwrap(), None);
        }
    }

    #[test]
    fn newline_search() {
        for n in 0..40 {
            let mut v = vec![b'a'; 40];
            v[n] = b'\n';
            assert_eq!(find_newline(&v), Some(n));
            v[n] = 0x8a;
            assert_eq!(find_newline(&v), None);
        }
    }
}
