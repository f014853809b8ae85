//! Line-level helpers shared by every format: a reusable-buffer line reader that strips
//! `\r` and ANSI escapes, block labels from lead lines, and metric-name normalisation.

use crate::error::ParseError;
use crate::format::ParseIter;
use crate::model::{Block, Parsed};
use crate::unwrap::Unwrapper;
use std::borrow::Cow;
use std::collections::VecDeque;
use std::io::BufRead;

/// A pattern written in the source: compiled once (behind a `LazyLock`) and valid by
/// construction, so a failure is a bug.
pub fn re(pattern: &str) -> regex::Regex {
    regex::Regex::new(pattern).expect("valid regex")
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

/// A line as the tool printed it: without the `\r`s a CRLF file leaves at its end and
/// without ANSI escape sequences (colours, bold). Borrowed when there is nothing to take off.
pub fn clean_line(line: &str) -> Cow<'_, str> {
    let line = line.trim_end_matches('\r');
    if line.contains('\x1b') {
        Cow::Owned(strip_ansi(line))
    } else {
        Cow::Borrowed(line)
    }
}

/// Removes ANSI CSI escape sequences (`ESC [ … final-byte`) and lone ESC characters.
pub fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        if chars.peek() == Some(&'[') {
            chars.next();
            // Parameter and intermediate bytes, then one final byte in '@'..='~'.
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        }
    }
    out
}

/// Normalises a printed name into a metric name: lowercased, each run of characters
/// other than letters and digits turned into `_`, trimmed of `_`.
/// `End to End:` → `end_to_end`, `server2clientProbe` → `server2clientprobe`.
pub fn metric_name(display: &str) -> String {
    let mut out = String::with_capacity(display.len());
    let mut pending = false;
    for c in display.chars() {
        if c.is_alphanumeric() {
            if pending && !out.is_empty() {
                out.push('_');
            }
            pending = false;
            out.extend(c.to_lowercase());
        } else {
            pending = true;
        }
    }
    out
}

/// Tracks the lead line that labels the next result block.
///
/// A block's label is the nearest preceding prose line that is a heading (`#`, asciidoc
/// `=`), a line ending in `:` or `：`, or a short line (≤ 80 characters, not a shell
/// command) directly before the block or standing alone between blank lines; trimmed of
/// `#`, `=`, `>`, `*` and the colon. Lines of markup only (`----`, fences) are transparent.
/// Feed it every line that is not part of a block ([`observe`](Self::observe)); ask it at a
/// block's start ([`label`](Self::label)).
#[derive(Debug, Default, Clone)]
pub struct LabelTracker {
    label: Option<String>,
    pending_short: Option<String>,
    /// The short line just observed, with no blank line after it yet.
    direct: Option<String>,
    prev_blank: bool,
    seen_any: bool,
}

impl LabelTracker {
    pub fn new() -> Self {
        LabelTracker {
            prev_blank: true,
            ..Default::default()
        }
    }

    /// Takes note of one line that is outside any block.
    pub fn observe(&mut self, line: &str) {
        let t = line.trim();
        if t.is_empty() {
            if let Some(p) = self.pending_short.take() {
                self.label = Some(p);
            }
            self.direct = None;
            self.prev_blank = true;
            return;
        }
        let cleaned = clean_label(t);
        if cleaned.is_empty() || !cleaned.chars().any(char::is_alphanumeric) {
            return;
        }
        self.pending_short = None;
        self.direct = None;
        let was_blank = self.prev_blank || !self.seen_any;
        self.prev_blank = false;
        self.seen_any = true;
        let heading = t.starts_with('#') || t.starts_with("==");
        let colon = t.ends_with(':') || t.ends_with('：');
        if heading || colon {
            self.label = Some(cleaned);
        } else if t.chars().count() <= 80 && !is_command(t) {
            if was_blank {
                self.pending_short = Some(cleaned.clone());
            }
            // A sentence (`… the metrics.`) under a heading is prose, not a label.
            if !t.ends_with(['.', '。']) && !is_log_line(t) {
                self.direct = Some(cleaned);
            }
        }
    }

    /// The label for a block starting now. A short line directly before the block
    /// labels it (the block's first line plays the part of the closing blank line), so
    /// a host name echoed before an output labels that output, not the next one.
    pub fn label(&self) -> Option<String> {
        self.direct
            .clone()
            .or_else(|| self.pending_short.clone())
            .or_else(|| self.label.clone())
    }
}

/// Whether a line is a log record (`2021-05-04 10:00:01.123 [main] INFO …`): what a
/// program logged before its output, not what the output is.
fn is_log_line(t: &str) -> bool {
    static LOG: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"^\[?\d{2,4}[-/.]\d{2}[-/.]\d{2}[ T]\d|\b(?:INFO|WARN|WARNING|DEBUG|ERROR|TRACE)\b",
        )
        .expect("valid regex")
    });
    LOG.is_match(t)
}

/// Whether a line is a command typed at a shell prompt (`$ wrk -t4 …`,
/// `[root@db1 ~]# tsar --live`, `user@host:~$ echo srvr | nc …`): it says how the output
/// was made, not what it is, so it is not a label (a host name alone on its line is).
/// A bare command with options (`wrk2 -t2 -c16 …`) counts as one too.
fn is_command(t: &str) -> bool {
    static PROMPT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"^(?:[$%>➜❯]|[\w.@\-]*[@\[][^\s$#]*(?:\s[^\s$#]*)?\]?[$#]|[\w.\-]+[$#])\s+\S|^[\w./][\w./\-]*\s+-{1,2}[A-Za-z]")
            .expect("valid regex")
    });
    PROMPT.is_match(t)
}

/// Trims a lead line of markup: leading `#`, `>`, `*`, whitespace; trailing colon, `*`.
pub fn clean_label(line: &str) -> String {
    let t = line
        .trim()
        .trim_start_matches(['#', '=', '>', '*', ' ', '\t']);
    let t = t.trim_end_matches([':', '：', '*', ' ', '\t']);
    t.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metric_names() {
        assert_eq!(metric_name("End to End:"), "end_to_end");
        assert_eq!(metric_name("client2server"), "client2server");
        assert_eq!(metric_name("server2clientProbe"), "server2clientprobe");
        assert_eq!(metric_name("OS Jitter"), "os_jitter");
        assert_eq!(metric_name("  a--b  "), "a_b");
    }

    #[test]
    fn labels_from_lead_lines() {
        let mut t = LabelTracker::new();
        t.observe("   ### Before this changes:");
        t.observe("   Use Alibaba/Arthas to get the metrics.");
        assert_eq!(t.label().as_deref(), Some("Before this changes"));
        t.observe("the current master with patch version v11jp:");
        assert_eq!(
            t.label().as_deref(),
            Some("the current master with patch version v11jp")
        );
        t.observe("");
        t.observe("TCP");
        assert_eq!(t.label().as_deref(), Some("TCP"));
        t.observe("");
        assert_eq!(t.label().as_deref(), Some("TCP"));
        t.observe("A long paragraph line that goes on and on");
        t.observe("and continues here");
        t.observe("");
        assert_eq!(t.label().as_deref(), Some("TCP"));
        t.observe("以下是以20,000次迭代/秒的吞吐量運(yùn)行時的結(jié)果：");
        assert_eq!(
            t.label().as_deref(),
            Some("以下是以20,000次迭代/秒的吞吐量運(yùn)行時的結(jié)果")
        );
    }

    #[test]
    fn clean_line_takes_off_carriage_returns_and_escapes_only() {
        assert!(matches!(
            clean_line("  50: 1.0  "),
            Cow::Borrowed("  50: 1.0  ")
        ));
        assert!(matches!(clean_line("a\r\r"), Cow::Borrowed("a")));
        assert_eq!(clean_line("\x1b[32mok\x1b[0m\r"), "ok");
        assert_eq!(clean_line("a\rb"), "a\rb");
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
