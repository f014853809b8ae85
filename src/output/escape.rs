//! What text meant for a terminal may carry from the input: every label, benchmark,
//! metric, tag and echoed line that a tool or a user wrote goes through [`text`] before a
//! text renderer prints it, so that an escape sequence hidden in a benchmark name (an OSC
//! title, a BEL, a cursor move) is shown, not run. Error and warning lines also go through
//! [`bounded`], so that a 1 MB token in a file gives a line of a few hundred characters.
//!
//! JSON and CSV are data, not text for a terminal: they never come here.

use std::borrow::Cow;

/// How many characters of a message (what follows `path:line:` in an error or a warning)
/// are printed; the rest is counted, not shown.
pub const MAX_MESSAGE: usize = 400;

/// `s` with its control characters (C0, DEL, C1, ESC among them) written as escapes the
/// way ripgrep shows them: `\t`, `\n`, `\r`, `\x1b` for the ASCII ones, `\u{9b}` for
/// C1. Every other character, CJK and emoji included, is kept. Borrowed when there is
/// nothing to escape.
pub fn text(s: &str) -> Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        push_escaped(&mut out, c);
    }
    Cow::Owned(out)
}

/// `s` escaped as [`text`] does and cut after `max` characters of the escaped text, at a
/// character boundary, with `… (N more bytes)` saying how much of `s` was left out.
pub fn bounded(s: &str, max: usize) -> Cow<'_, str> {
    let mut shown = 0;
    for (i, c) in s.char_indices() {
        let width = if c.is_control() { escaped_len(c) } else { 1 };
        if shown + width > max {
            let mut out = String::with_capacity(i + 32);
            for c in s[..i].chars() {
                push_escaped(&mut out, c);
            }
            out.push_str(&format!("… ({} more bytes)", s.len() - i));
            return Cow::Owned(out);
        }
        shown += width;
    }
    text(s)
}

/// `s` cut after `max` characters at a character boundary with `… (N more bytes)`, not
/// escaped: for a JSON field, which escapes on its own.
pub fn cut(s: &str, max: usize) -> Cow<'_, str> {
    match s.char_indices().nth(max) {
        Some((i, _)) => Cow::Owned(format!("{}… ({} more bytes)", &s[..i], s.len() - i)),
        None => Cow::Borrowed(s),
    }
}

/// A message for a warning or an error line: escaped and at most [`MAX_MESSAGE`]
/// characters.
pub fn message(s: &str) -> Cow<'_, str> {
    bounded(s, MAX_MESSAGE)
}

/// A message of several lines, an error and its hints, as an error: its line breaks are
/// its own, while a line break inside one of its lines came with a value and is escaped
/// like any control character. Shown with [`Lines::escaped`]; `Display` gives the lines
/// as they are. Either way each line after the first is indented under the first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lines(pub Vec<String>);

/// What joins the lines of [`Lines`]: a line break and the hints' indent.
const HINT_BREAK: &str = "\n  ";

impl Lines {
    /// Each line as [`message`] shows it, joined with [`HINT_BREAK`].
    pub fn escaped(&self) -> String {
        let lines: Vec<Cow<'_, str>> = self.0.iter().map(|l| message(l)).collect();
        lines.join(HINT_BREAK)
    }
}

impl std::fmt::Display for Lines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.join(HINT_BREAK))
    }
}

impl std::error::Error for Lines {}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\t' => out.push_str("\\t"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        c if (c as u32) < 0x80 && c.is_control() => {
            out.push_str(&format!("\\x{:02x}", c as u32));
        }
        c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        c => out.push(c),
    }
}

fn escaped_len(c: char) -> usize {
    match c {
        '\t' | '\n' | '\r' => 2,
        c if (c as u32) < 0x80 => 4,
        _ => 6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keep_their_own_breaks_and_escape_those_of_values() {
        let l = Lines(vec![
            "selects no run".to_string(),
            "no run has label=a\nb\x1b[2J".to_string(),
        ]);
        assert_eq!(
            l.escaped(),
            "selects no run\n  no run has label=a\\nb\\x1b[2J"
        );
        assert_eq!(
            l.to_string(),
            "selects no run\n  no run has label=a\nb\x1b[2J"
        );
    }

    #[test]
    fn control_characters_are_shown_and_other_text_kept() {
        // An OSC title sequence ended by BEL, as a Go benchmark name can carry it.
        assert_eq!(
            text("BenchmarkX\x1b]0;owned\x07-8"),
            "BenchmarkX\\x1b]0;owned\\x07-8"
        );
        assert_eq!(text("a\tb\nc\rd\x7f"), "a\\tb\\nc\\rd\\x7f");
        assert_eq!(text("csi\u{9b}31m"), "csi\\u{9b}31m");
        assert_eq!(text("\0"), "\\x00");
        assert!(matches!(
            text("测试 🚀 p99.9 µs"),
            Cow::Borrowed("测试 🚀 p99.9 µs")
        ));
    }

    #[test]
    fn bounded_cuts_at_a_character_boundary_and_counts_the_rest() {
        let long = "é".repeat(1000);
        let b = bounded(&long, 10);
        assert_eq!(b, format!("{}… (1980 more bytes)", "é".repeat(10)));
        assert_eq!(bounded("short", 10), "short");
        // An escape is never cut in half: `\x1b` takes four of the ten.
        assert_eq!(bounded("abcdefg\x1bz", 10), "abcdefg… (2 more bytes)");
        assert_eq!(bounded("abcdef\x1bz", 10), "abcdef\\x1b… (1 more bytes)");
        let megabyte = "x".repeat(1 << 20);
        let m = message(&megabyte);
        assert_eq!(
            m.chars().count(),
            MAX_MESSAGE + "… (1048176 more bytes)".len() - 2
        );
        assert_eq!(cut("日本語です", 2), "日本… (9 more bytes)");
        assert_eq!(cut("\x1b", 2), "\x1b");
    }
}
