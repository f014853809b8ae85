//! Line-by-line reading, the default way a format reads (memory stays flat on a 200 MB
//! log): [`LineReader`] hands out numbered lines cleaned ([`clean_line`]) and un-wrapped
//! ([`crate::unwrap`]), and [`drive`] runs a format's [`LineMachine`] over them, handing
//! out what the machine puts on its [`Queue`] as it completes. It knows no format.
//!
//! Below every format's reader, [`Capped`] bounds what one line may cost: a line longer
//! than a cap ([`MAX_LINE`] for a line format) is skipped with a warning instead of being
//! buffered, and NUL bytes (the zero fill a crashed logger leaves behind) are left out as
//! they go by. [`capped`] runs a parser over it and hands out those warnings with the
//! parser's items ([`Format::read`](crate::format::Format::read) is how callers use it).

use crate::error::ParseError;
use crate::model::ParseIter;
use crate::model::{Block, Parsed};
use crate::text::clean_line;
use crate::unwrap::Unwrapper;
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::BufRead;
use std::rc::Rc;

/// The longest line a line format reads: 1 MiB, far more than any benchmark tool prints
/// on one line. A longer line (a binary dump, a minified blob, a logger's zero fill with
/// no newline) is skipped with a warning, so memory follows this cap, not the input.
pub const MAX_LINE: usize = 1 << 20;

/// The cap in words, for the warning.
fn cap_words(cap: usize) -> String {
    if cap.is_multiple_of(1 << 20) {
        format!("{} MiB", cap >> 20)
    } else {
        format!("{cap} bytes")
    }
}

/// Warnings a [`Capped`] reader noted, shared with the iterator that hands them out.
type Notes = Rc<RefCell<VecDeque<(u64, String)>>>;

/// A `BufRead` that hands out the lines of `inner` with two things taken out as the bytes
/// go by: NUL bytes (never part of a text or JSON output; a crashed logger leaves
/// gigabytes of them), counted and reported once, and lines longer than `cap` bytes, each
/// replaced by an empty line (the line numbers stay those of the file) and reported.
/// It holds at most one line of up to `cap` bytes and one buffer of `inner`.
pub struct Capped<R> {
    inner: R,
    cap: usize,
    /// Lines read ahead: `buf[pos..ready]` is handed out, `buf[ready..]` is a line whose
    /// end has not arrived yet.
    buf: Vec<u8>,
    pos: usize,
    ready: usize,
    /// How many lines have ended (the 1-based number of the line being read, less one).
    lines: u64,
    /// Inside a line that went over the cap: its bytes are dropped up to its newline.
    skipping: bool,
    nul_bytes: u64,
    /// The line of the first NUL byte.
    nul_line: u64,
    done: bool,
    notes: Notes,
}

impl<R: BufRead> Capped<R> {
    /// `inner` with lines capped at `cap` bytes; the warnings go to `notes`.
    fn new(inner: R, cap: usize, notes: Notes) -> Self {
        Capped {
            inner,
            cap,
            buf: Vec::new(),
            pos: 0,
            ready: 0,
            lines: 0,
            skipping: false,
            nul_bytes: 0,
            nul_line: 0,
            done: false,
            notes,
        }
    }

    fn note(&self, line: u64, message: String) {
        self.notes.borrow_mut().push_back((line, message));
    }

    fn too_long(&self, line: u64) {
        self.note(
            line,
            format!("line longer than {} skipped", cap_words(self.cap)),
        );
    }

    /// Reads until at least one whole line (or the last, unterminated one) is ready, or
    /// the input ends.
    fn refill(&mut self) -> std::io::Result<()> {
        self.buf.drain(..self.ready);
        self.pos = 0;
        self.ready = 0;
        while self.ready == 0 && !self.done {
            let chunk = self.inner.fill_buf()?;
            if chunk.is_empty() {
                self.done = true;
                self.ready = self.buf.len();
                if self.nul_bytes > 0 {
                    let n = self.nul_bytes;
                    self.note(
                        self.nul_line,
                        format!(
                            "{n} NUL byte{} left out (the first on this line): a crashed \
                             logger's zero fill is no output",
                            if n == 1 { "" } else { "s" }
                        ),
                    );
                }
                break;
            }
            let len = chunk.len();
            if self.skipping {
                match memchr::memchr(b'\n', chunk) {
                    Some(i) => {
                        self.inner.consume(i + 1);
                        self.skipping = false;
                        self.buf.push(b'\n');
                        self.lines += 1;
                        self.ready = self.buf.len();
                    }
                    None => self.inner.consume(len),
                }
                continue;
            }
            // The chunk's whole lines, or all of it when it ends none.
            let take = memchr::memrchr(b'\n', chunk).map_or(len, |i| i + 1);
            let part = &chunk[..take];
            // Where the unterminated line starts: nothing is ready inside this loop.
            let line_start = self.ready;
            match memchr::memchr(0, part) {
                None => self.buf.extend_from_slice(part),
                Some(first) => {
                    if self.nul_bytes == 0 {
                        let before = memchr::memchr_iter(b'\n', &part[..first]).count();
                        self.nul_line = self.lines + before as u64 + 1;
                    }
                    let mut rest = part;
                    while let Some(z) = memchr::memchr(0, rest) {
                        self.buf.extend_from_slice(&rest[..z]);
                        let run = zero_run(&rest[z..]);
                        self.nul_bytes += run as u64;
                        rest = &rest[z + run..];
                    }
                    self.buf.extend_from_slice(rest);
                }
            }
            self.inner.consume(take);
            self.cut_long_lines(line_start);
        }
        Ok(())
    }

    /// Checks the lines from `start` (where the unterminated line began) to the end of
    /// `buf`: a whole line over the cap is replaced by an empty one, an unterminated one
    /// over it starts a skip. Marks the whole lines ready.
    fn cut_long_lines(&mut self, start: usize) {
        let mut line = start;
        let mut at = start;
        while let Some(i) = memchr::memchr(b'\n', &self.buf[at..]) {
            let end = at + i;
            self.lines += 1;
            if end - line > self.cap {
                self.too_long(self.lines);
                self.buf.drain(line..end);
                at = line + 1;
            } else {
                at = end + 1;
            }
            line = at;
        }
        if self.buf.len() - line > self.cap {
            self.too_long(self.lines + 1);
            self.buf.truncate(line);
            self.skipping = true;
        }
        self.ready = line;
    }
}

/// The length of the run of NUL bytes `b` starts with, a word at a time: a zero fill is
/// gigabytes long.
fn zero_run(b: &[u8]) -> usize {
    let mut n = 0;
    for word in b.chunks_exact(8) {
        if u64::from_ne_bytes(word.try_into().expect("eight bytes")) != 0 {
            break;
        }
        n += 8;
    }
    n + b[n..].iter().take_while(|&&x| x == 0).count()
}

impl<R: BufRead> std::io::Read for Capped<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = avail.len().min(out.len());
        out[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Capped<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.pos >= self.ready {
            self.refill()?;
        }
        Ok(&self.buf[self.pos..self.ready])
    }

    fn consume(&mut self, amt: usize) {
        self.pos = (self.pos + amt).min(self.ready);
    }
}

/// Runs `parse` over `r` read through a [`Capped`] reader with lines of at most `cap`
/// bytes, handing out its warnings (long lines, NUL bytes) among the parser's items as
/// soon as the reading meets them (the reader reads ahead, so a warning may come before
/// the items of the lines above it). Each block's non-finite numbers are refused
/// ([`crate::finite`]), with a warning before the block.
pub fn capped<'a>(
    parse: for<'b> fn(Box<dyn BufRead + 'b>) -> ParseIter<'b>,
    r: Box<dyn BufRead + 'a>,
    cap: usize,
) -> ParseIter<'a> {
    let notes = Notes::default();
    let mut items = parse(Box::new(Capped::new(r, cap, Rc::clone(&notes))));
    let mut held: Option<Result<Parsed, ParseError>> = None;
    let mut ended = false;
    Box::new(std::iter::from_fn(move || {
        if held.is_none() && !ended {
            held = items.next();
            ended = held.is_none();
            if let Some(Ok(Parsed::Block(b))) = &mut held
                && let Some(Parsed::Warning { line, message }) = crate::finite::refuse_non_finite(b)
            {
                notes.borrow_mut().push_back((line, message));
            }
        }
        if let Some((line, message)) = notes.borrow_mut().pop_front() {
            return Some(Ok(Parsed::Warning { line, message }));
        }
        held.take()
    }))
}

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
    unterminated: bool,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(inner: R) -> Self {
        LineReader {
            inner,
            bytes: Vec::with_capacity(256),
            line: String::with_capacity(256),
            number: 0,
            unwrap: Unwrapper::new(),
            unterminated: false,
        }
    }

    /// As [`next_numbered`](Self::next_numbered), and whether the line ended the input
    /// without a newline: the last line of a log cut mid-write ends so, and may be cut
    /// short inside a number or a unit.
    pub fn next_with_end(&mut self) -> Result<Option<(u64, &str, bool)>, ParseError> {
        match self.next_line()? {
            Some(_) => Ok(Some((self.number, &self.line, self.unterminated))),
            None => Ok(None),
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
        self.unterminated = self.bytes.last() != Some(&b'\n');
        if !self.unterminated {
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
    /// Takes line `n`, the input's last, which ended without a newline: a log cut
    /// mid-write ends so, and its last value may be cut short. By default as any line.
    fn feed_unterminated(&mut self, line: &str, n: u64) -> Result<(), ParseError> {
        self.feed(line, n)
    }
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
            let step = match reader.next_with_end() {
                Ok(Some((n, line, false))) => machine.feed(line, n),
                Ok(Some((n, line, true))) => machine.feed_unterminated(line, n),
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

    /// Everything a `Capped` reader hands out, and its notes.
    fn through_cap(data: &[u8], cap: usize, chunk: usize) -> (Vec<u8>, Vec<(u64, String)>) {
        let notes = Notes::default();
        let inner = std::io::BufReader::with_capacity(chunk, data);
        let mut r = Capped::new(inner, cap, Rc::clone(&notes));
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut r, &mut out).unwrap();
        assert!(
            r.buf.capacity() <= 2 * (cap + chunk) + 64,
            "held {} bytes for a cap of {cap}",
            r.buf.capacity()
        );
        let notes = notes.borrow().iter().cloned().collect();
        (out, notes)
    }

    #[test]
    fn capped_skips_long_lines_in_place_and_keeps_their_numbers() {
        let long = "x".repeat(5000);
        let data = format!("a\n{long}\nb\n{long}{long}\nc\n{long}");
        for chunk in [7, 64, 4096, 1 << 16] {
            let (out, notes) = through_cap(data.as_bytes(), 100, chunk);
            assert_eq!(out, b"a\n\nb\n\nc\n", "chunk {chunk}");
            let said = "line longer than 100 bytes skipped".to_string();
            assert_eq!(
                notes,
                vec![(2, said.clone()), (4, said.clone()), (6, said)],
                "chunk {chunk}"
            );
        }
        // A line of exactly the cap is kept.
        let (out, notes) = through_cap(format!("{}\n", "y".repeat(100)).as_bytes(), 100, 16);
        assert_eq!(out.len(), 101);
        assert!(notes.is_empty());
    }

    #[test]
    fn capped_leaves_out_nul_bytes_and_counts_them_once() {
        let mut data = b"one\ntwo 33.99".to_vec();
        data.extend(std::iter::repeat_n(0u8, 300_000));
        data.extend(b"\n\0\0\nthree");
        let (out, notes) = through_cap(&data, 1000, 4096);
        assert_eq!(out, b"one\ntwo 33.99\n\nthree");
        assert_eq!(
            notes,
            vec![(
                2,
                "300002 NUL bytes left out (the first on this line): a crashed logger's zero \
                 fill is no output"
                    .to_string()
            )]
        );
    }

    #[test]
    fn capped_hands_out_the_warnings_with_the_items() {
        let mut data = b"b\n".to_vec();
        data.extend(vec![b'z'; MAX_LINE + 1]);
        data.extend(b"\nb\nw\n");
        let items: Vec<_> = capped(toy, Box::new(&data[..]), MAX_LINE).collect();
        let warning = |line, message: &str| {
            Ok(Parsed::Warning {
                line,
                message: message.into(),
            })
        };
        assert_eq!(
            items,
            // The reader reads ahead a buffer at a time: line 2 was met while line 1 was read.
            vec![
                warning(2, "line longer than 1 MiB skipped"),
                Ok(block(1)),
                Ok(block(3)),
                warning(4, "w"),
                warning(4, "end"),
            ]
        );
    }

    fn toy<'a>(r: Box<dyn BufRead + 'a>) -> ParseIter<'a> {
        drive(r, Toy::default())
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
