//! Text helpers shared by every format: line cleaning ([`clean_line`]: `\r`, ANSI
//! escapes), block labels from lead lines, metric-name normalisation, and source-written
//! regular expressions. Pure string functions; reading an input is left to
//! [`crate::lines`] and [`crate::document`].

use std::borrow::Cow;

/// A pattern written in the source: compiled once (behind a `LazyLock`) and valid by
/// construction, so a failure is a bug.
pub fn re(pattern: &str) -> regex::Regex {
    regex::Regex::new(pattern).expect("valid regex")
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
/// block's start ([`take_for_block`](Self::take_for_block), or [`label`](Self::label)).
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

    /// The label for a block starting now, leaving the tracker as it is: a short line
    /// directly before the block labels it (the block's first line plays the part of the
    /// closing blank line) and, standing alone after a blank line, the blocks after it too.
    /// For formats where one lead line heads a series of outputs (Arthas, JGroups); the
    /// others ask [`take_for_block`](Self::take_for_block).
    pub fn label(&self) -> Option<String> {
        self.direct
            .clone()
            .or_else(|| self.pending_short.clone())
            .or_else(|| self.label.clone())
    }

    /// The label for a block starting now, as [`label`](Self::label), except that a short
    /// line directly before the block labels that block only: the blocks after it fall
    /// back to the label before it rather than inherit it (`// -Dthroughput=500000` above
    /// one output of a sweep says nothing of the unmarked output after it).
    pub fn take_for_block(&mut self) -> Option<String> {
        let label = self.label();
        if self.direct.take().is_some() {
            self.pending_short = None;
        }
        label
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
/// `[root@db1 ~]# tsar --live`, `user@host:~$ echo srvr | nc …`, `db1.example tsar $ tsar
/// -li1`): it says how the output was made, not what it is, so it is not a label (a host
/// name alone on its line is).
/// A bare command with options (`wrk2 -t2 -c16 …`) counts as one too.
fn is_command(t: &str) -> bool {
    static PROMPT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"^(?:[$%>➜❯]|[\w.@\-]*[@\[][^\s$#]*(?:\s[^\s$#]*)?\]?[$#]|[\w.\-]+[$#]|[\w@\-]*[\d.][\w.@\-]*\s[\w.~/\-]+\s\$)\s+\S|^[\w./][\w./\-]*\s+-{1,2}[A-Za-z]")
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
    fn prompts_with_a_host_and_a_folder_are_commands() {
        // /work/shared/samples/tsar: `module004033.sqa.cm4 tsar $ tsar --nginx_ups -li1`.
        assert!(is_command(
            "module004033.sqa.cm4 tsar $ tsar --nginx_ups -li1"
        ));
        assert!(is_command("db1.example ~ $ tsar -l"));
        assert!(!is_command("Cost in $ 5"));
        assert!(!is_command("Round 2 # tuned"));
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
    fn a_line_directly_before_a_block_labels_that_block_only() {
        let mut t = LabelTracker::new();
        t.observe("Results:");
        t.observe("");
        t.observe("-Dthroughput=150000");
        assert_eq!(t.take_for_block().as_deref(), Some("-Dthroughput=150000"));
        t.observe("");
        assert_eq!(t.take_for_block().as_deref(), Some("Results"));
        t.observe("");
        t.observe("TCP");
        t.observe("");
        assert_eq!(t.take_for_block().as_deref(), Some("TCP"));
        t.observe("");
        assert_eq!(t.take_for_block().as_deref(), Some("TCP"));
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
}
