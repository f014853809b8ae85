//! Line-by-line reading, the default way a format reads (memory stays flat on a 200 MB
//! log): [`LineReader`] hands out numbered lines cleaned ([`clean_line`]) and un-wrapped
//! ([`crate::unwrap`]), and [`drive`] runs a format's [`LineMachine`] over them, handing
//! out what the machine puts on its [`Queue`] as it completes. It knows no format.

use crate::error::ParseError;
use crate::format::ParseIter;
use crate::model::{Block, Parsed};
use crate::text::clean_line;
use crate::unwrap::Unwrapper;
use std::borrow::Cow;
use std::collections::VecDeque;
use std::io::BufRead;

/// Reads lines from a `BufRead` into one reused buffer, counting 1-based line numbers.
///
/// Lines are decoded lossily (binary junk becomes U+FFFD, never an error), cleaned by
/// [`clean_line`] (trailing `\r`s and ANSI escapes), and the shared [`Unwrapper`] takes
/// off what the line was pasted in (lines that are only table markup are skipped, still
/// counted).
pub struct LineReader<R> {
    inner: R,
    bytes: Vec<u8>,
    line: String,
    number: u64,
    unwrap: Unwrapper,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(inner: R) -> Self {
        LineReader {
            inner,
            bytes: Vec::with_capacity(256),
            line: String::with_capacity(256),
            number: 0,
            unwrap: Unwrapper::new(),
        }
    }

    /// The next line and its 1-based number, or `None` at the end of input.
    pub fn next_numbered(&mut self) -> Result<Option<(u64, &str)>, ParseError> {
        match self.next_line()? {
            Some(_) => Ok(Some((self.number, &self.line))),
            None => Ok(None),
        }
    }

    /// The 1-based number of the line last returned (0 before the first).
    pub fn line_number(&self) -> u64 {
        self.number
    }

    /// The next line without its terminator, or `None` at the end of input.
    pub fn next_line(&mut self) -> Result<Option<&str>, ParseError> {
        loop {
            if !self.read_raw()? {
                return Ok(None);
            }
            match self.unwrap.line(&self.line) {
                None => continue,
                // Unchanged (the pass hands back the whole line).
                Some(Cow::Borrowed(s)) if s.len() == self.line.len() => {}
                Some(other) => self.line = other.into_owned(),
            }
            return Ok(Some(&self.line));
        }
    }

    /// Reads one raw line into `line`; `false` at the end of input.
    fn read_raw(&mut self) -> Result<bool, ParseError> {
        self.bytes.clear();
        let n = self
            .inner
            .read_until(b'\n', &mut self.bytes)
            .map_err(|e| ParseError::io(self.number + 1, &e))?;
        if n == 0 {
            return Ok(false);
        }
        self.number += 1;
        if self.bytes.last() == Some(&b'\n') {
            self.bytes.pop();
        }
        self.line.clear();
        match std::str::from_utf8(&self.bytes) {
            Ok(s) => self.line.push_str(s),
            Err(_) => self.line.push_str(&String::from_utf8_lossy(&self.bytes)),
        }
        match clean_line(&self.line) {
            Cow::Borrowed(kept) => {
                let len = kept.len();
                self.line.truncate(len);
            }
            Cow::Owned(cleaned) => self.line = cleaned,
        }
        Ok(true)
    }
}

/// The blocks and warnings a [`LineMachine`] has finished, in source order, waiting for
/// [`drive`] to hand them out: one queue for every machine.
#[derive(Debug, Default)]
pub struct Queue(VecDeque<Parsed>);

impl Queue {
    /// Queues a finished block.
    pub fn block(&mut self, block: Block) {
        self.0.push_back(Parsed::Block(block));
    }

    /// Queues a warning about line `line` (1-based).
    pub fn warning(&mut self, line: u64, message: String) {
        self.0.push_back(Parsed::Warning { line, message });
    }
}

/// A line-at-a-time parser state, run over an input by [`drive`].
pub trait LineMachine {
    /// Takes line `n` (1-based), without its terminator.
    fn feed(&mut self, line: &str, n: u64) -> Result<(), ParseError>;
    /// End of input after `last` lines: close what is open, or report what was cut off.
    fn finish(&mut self, last: u64) -> Result<(), ParseError>;
    /// The queue the machine puts its finished blocks and warnings on.
    fn queue(&mut self) -> &mut Queue;
}

/// Runs `machine` over the lines of `r`, yielding its blocks and warnings as they
/// complete. The first error ends the stream: an input that fails is rejected whole, so
/// what the machine still held is dropped.
pub fn drive<'a, M: LineMachine + 'a>(r: Box<dyn BufRead + 'a>, mut machine: M) -> ParseIter<'a> {
    let mut reader = LineReader::new(r);
    let mut done = false;
    Box::new(std::iter::from_fn(move || {
        loop {
            if let Some(p) = machine.queue().0.pop_front() {
                return Some(Ok(p));
            }
            if done {
                return None;
            }
            let step = match reader.next_numbered() {
                Ok(Some((n, line))) => machine.feed(line, n),
                Ok(None) => {
                    done = true;
                    machine.finish(reader.line_number())
                }
                Err(e) => Err(e),
            };
            if let Err(e) = step {
                done = true;
                machine.queue().0.clear();
                return Some(Err(e));
            }
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Queues a block for each line `b` and a warning for each `w`; fails at `x` with a
    /// block still queued; warns `end` at the end.
    #[derive(Default)]
    struct Toy {
        out: Queue,
    }

    fn block(n: u64) -> Parsed {
        Parsed::Block(Block {
            first_line: n,
            last_line: n,
            ..Block::default()
        })
    }

    impl LineMachine for Toy {
        fn feed(&mut self, line: &str, n: u64) -> Result<(), ParseError> {
            match line {
                "b" => self.out.block(Block {
                    first_line: n,
                    last_line: n,
                    ..Block::default()
                }),
                "w" => self.out.warning(n, "w".into()),
                "x" => {
                    self.out.warning(n, "held".into());
                    return Err(ParseError::new(n, "bad"));
                }
                _ => {}
            }
            Ok(())
        }

        fn finish(&mut self, last: u64) -> Result<(), ParseError> {
            self.out.warning(last, "end".into());
            Ok(())
        }

        fn queue(&mut self) -> &mut Queue {
            &mut self.out
        }
    }

    #[test]
    fn drive_hands_out_the_queue_in_order_and_an_error_drops_what_is_held() {
        let warning = |line, message: &str| Parsed::Warning {
            line,
            message: message.into(),
        };
        let items: Vec<_> = drive(Box::new(&b"b\nw\n\nb"[..]), Toy::default()).collect();
        assert_eq!(
            items,
            vec![
                Ok(block(1)),
                Ok(warning(2, "w")),
                Ok(block(4)),
                Ok(warning(4, "end"))
            ]
        );
        let items: Vec<_> = drive(Box::new(&b"b\nx\nb"[..]), Toy::default()).collect();
        assert_eq!(items, vec![Ok(block(1)), Err(ParseError::new(2, "bad"))]);
    }

    #[test]
    fn reader_strips_cr_and_ansi() {
        let data = b"a\r\n\x1b[1mbold\x1b[0m\n\xff\xfe\nlast";
        let mut r = LineReader::new(&data[..]);
        assert_eq!(r.next_line().unwrap(), Some("a"));
        assert_eq!(r.next_line().unwrap(), Some("bold"));
        assert_eq!(r.next_line().unwrap(), Some("\u{fffd}\u{fffd}"));
        assert_eq!(r.next_line().unwrap(), Some("last"));
        assert_eq!(r.line_number(), 4);
        assert_eq!(r.next_line().unwrap(), None);
    }
}
