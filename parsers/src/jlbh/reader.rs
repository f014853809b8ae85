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
            scan(buf)
        };
        self.number = number;
        if let Some(end) = found.newline {
            self.pending = end + 1;
            // Without a `consume`, `fill_buf` hands back the same bytes (no IO); asking
            // twice keeps the borrow checker content with a conditional return.
            let buf = self
                .inner
                .fill_buf()
                .map_err(|e| ParseError::io(number, &e))?;
            return Ok(Some(decode(&buf[..end], found.escape, &mut self.text)));
        }
        // The line straddles a refill: gather it.
        self.spill.clear();
        let mut escape = false;
        loop {
            let buf = self
                .inner
                .fill_buf()
                .map_err(|e| ParseError::io(number, &e))?;
            if buf.is_empty() {
                break;
            }
            let found = scan(buf);
            escape |= found.escape;
            match found.newline {
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
        Ok(Some(decode(&self.spill, escape, &mut self.text)))
    }
}

/// The line's text: in place when it is clean UTF-8, else rewritten into `text`.
/// `escapes`: the line may hold ANSI escapes.
fn decode<'a>(line: &'a [u8], escapes: bool, text: &'a mut String) -> &'a str {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
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

/// Where a scan for the end of a line stopped.
struct Scan {
    /// Position of the first `\n`, if any.
    newline: Option<usize>,
    /// Whether an ESC byte may come before it. A false positive (an ESC just after the
    /// newline, in the same eight bytes) only costs a needless strip.
    escape: bool,
}

/// Finds the first `\n` and notes ESC bytes, eight bytes at a time: std's `memchr` is not
/// public, a byte loop would cost a cycle per byte, and one pass serves both searches.
fn scan(buf: &[u8]) -> Scan {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // The high bit of each byte of the result marks a zero byte of `x`; the lowest one
    // is exact (borrows only run upwards).
    let zeros = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let mut escape = false;
    let mut chunks = buf.chunks_exact(8);
    let mut offset = 0;
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        escape |= zeros(word ^ (ONES * 0x1b)) != 0;
        let found = zeros(word ^ (ONES * u64::from(b'\n')));
        if found != 0 {
            let newline = Some(offset + (found.trailing_zeros() / 8) as usize);
            return Scan { newline, escape };
        }
        offset += 8;
    }
    let rest = chunks.remainder();
    let end = rest.iter().position(|&b| b == b'\n');
    escape |= rest[..end.unwrap_or(rest.len())].contains(&0x1b);
    Scan {
        newline: end.map(|i| offset + i),
        escape,
    }
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
    fn newline_and_escape_search() {
        for n in 0..40 {
            let mut v = vec![b'a'; 40];
            v[n] = b'\n';
            let s = scan(&v);
            assert_eq!((s.newline, s.escape), (Some(n), false));
            v[n] = 0x8a;
            assert_eq!(scan(&v).newline, None);
            v[n] = 0x1b;
            assert!(scan(&v).escape);
        }
        // An escape on the next line past the first eight bytes is not seen.
        assert!(!scan(b"0123456789\n0123456\x1b").escape);
    }
}
