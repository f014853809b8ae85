//! The shared un-wrapping pass: takes off, one line at a time, what people wrap around a
//! tool's output when they keep it (markdown code fences and pipe tables, blockquotes, HTML
//! `<pre>`/`<br>` tags and entities, Java comments with `//` label lines, Python triple
//! quotes, Hugo `{{< text >}}` shortcodes, a `# comment` after a value, trailing spaces).
//!
//! Every format sees lines through this pass, so no parser special-cases a wrapper: line
//! formats through [`crate::lines::LineReader`] (JLBH through its own fast reader), formats
//! read whole through [`crate::document::Document::lines`], sniffers through [`unwrapped`]
//! (called by [`crate::registry::claims`]). Two exports read whole are read without it, as
//! their own layout is what it takes off: hyperfine's markdown table and CSV, and k6's
//! summary (blank lines stand inside it, so the fence around it is what ends it).
//!
//! It never joins or splits lines: a line is either kept (maybe rewritten) or dropped, and
//! the reader keeps counting, so errors still name the original line. A plain tool output
//! passes through unchanged and without copying. Readers hand it lines already cleaned
//! ([`crate::text::clean_line`]); the sniffers' head has only its `\r`s taken off.
//!
//! It must not change what a line means: indentation is kept (parsers trim it), shell
//! prompts and host names stay (they are good block labels), and `#` at a line's start
//! (HdrHistogram's `#[Mean = …]`, markdown headings) is never a comment.

use std::borrow::Cow;

/// The state of the pass across lines (whether a Java block comment is open).
#[derive(Debug, Default, Clone)]
pub struct Unwrapper {
    in_block_comment: bool,
}

/// Whether a line may carry a wrapper; a line for which this is false is passed through
/// as is, without copying (every JLBH probe and table line: this is the hot path).
/// Wrappers are marked by one of `|<&`~"'{#>` anywhere, a trailing space, or a line
/// starting with `/` or `*` (comments).
fn may_be_wrapped(line: &str) -> bool {
    let b = line.as_bytes();
    let marked = b.iter().fold(false, |seen, &c| {
        seen | matches!(
            c,
            b'|' | b'<' | b'&' | b'`' | b'~' | b'"' | b'\'' | b'{' | b'#' | b'>'
        )
    });
    marked
        || matches!(b.last(), Some(b' ' | b'\t'))
        || matches!(
            b.iter().find(|&&c| c != b' ' && c != b'\t'),
            Some(b'/' | b'*')
        )
}

/// HTML tags taken off a line (lowercase names; attributes allowed on opening tags).
const HTML_TAGS: &[&str] = &[
    "pre",
    "br",
    "p",
    "code",
    "tt",
    "b",
    "i",
    "em",
    "strong",
    "span",
    "div",
    "font",
    "samp",
    "kbd",
    "blockquote",
];

impl Unwrapper {
    pub fn new() -> Self {
        Self::default()
    }

    /// The line as the tool printed it, or `None` when the whole line is table markup
    /// (a rule row, a row of empty cells) and should be skipped. Fences and shortcodes
    /// become blank lines: they end what they enclose.
    pub fn line<'a>(&mut self, raw: &'a str) -> Option<Cow<'a, str>> {
        if !self.in_block_comment && !may_be_wrapped(raw) {
            return Some(Cow::Borrowed(raw));
        }
        let mut s: Cow<'a, str> = Cow::Borrowed(raw.trim_end());
        let t = s.trim_start();
        // Markdown fences and Hugo shortcodes are wrapping lines of their own.
        if t.starts_with("```") || t.starts_with("~~~") {
            return Some(Cow::Borrowed(""));
        }
        if (t.starts_with("{{<") && t.ends_with(">}}"))
            || (t.starts_with("{{%") && t.ends_with("%}}"))
        {
            return Some(Cow::Borrowed(""));
        }
        if t.contains('<') || t.contains('&') {
            s = Cow::Owned(strip_html(&s));
        }
        s = self.java_comment(s);
        s = triple_quotes(s);
        let t = s.trim_start();
        if let Some(rest) = t.strip_prefix('>') {
            // A markdown blockquote (`> 50: …`); `>>` and `> ` alike.
            s = Cow::Owned(rest.trim_start_matches('>').trim_start().to_string());
        }
        if s.trim_start().starts_with('|') {
            match pipe_row(&s) {
                Some(row) => s = Cow::Owned(row),
                None => return None,
            }
        }
        if let Some(cut) = trailing_comment(&s) {
            s = Cow::Owned(s[..cut].trim_end().to_string());
        }
        if s.ends_with([' ', '\t']) {
            s = Cow::Owned(s.trim_end().to_string());
        }
        Some(s)
    }

    /// Takes off Java comment markers: `/*`, `*/`, a leading `*` inside a block
    /// comment, and `//` at the start of a line (its text becomes a plain lead line).
    fn java_comment<'a>(&mut self, s: Cow<'a, str>) -> Cow<'a, str> {
        let t = s.trim_start();
        let indent = s.len() - t.len();
        if let Some(rest) = t.strip_prefix("//") {
            return Cow::Owned(rest.trim_start_matches('/').trim_start().to_string());
        }
        let mut out: Option<String> = None;
        if let Some(rest) = t.strip_prefix("/*") {
            let rest = rest.trim_start_matches('*');
            self.in_block_comment = true;
            out = Some(format!("{}{}", &s[..indent], rest.trim_start()));
        } else if let Some(rest) = t
            .strip_prefix('*')
            .filter(|r| self.in_block_comment && !r.starts_with('/'))
        {
            out = Some(format!(
                "{}{}",
                &s[..indent],
                rest.strip_prefix(' ').unwrap_or(rest)
            ));
        }
        let cur = out.as_deref().unwrap_or(&s);
        if let Some(i) = cur.find("*/").filter(|_| self.in_block_comment) {
            self.in_block_comment = false;
            let mut owned = String::with_capacity(cur.len());
            owned.push_str(cur[..i].trim_end_matches('*'));
            owned.push_str(&cur[i + 2..]);
            out = Some(owned);
        }
        match out {
            Some(o) => Cow::Owned(o),
            None => s,
        }
    }
}

/// `text` after the un-wrapping pass, line for line (skipped lines are left out), as
/// the sniffers see a head; borrowed when the pass changed nothing.
pub fn unwrapped(text: &str) -> Cow<'_, str> {
    let mut u = Unwrapper::new();
    // Built from the first line the pass changes: a head it leaves as it is (most heads)
    // is not copied.
    let mut out: Option<String> = None;
    let mut done = 0;
    for raw in text.split('\n') {
        let start = done;
        done += raw.len() + 1;
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let line = u.line(raw);
        if out.is_none() && matches!(&line, Some(Cow::Borrowed(l)) if l.len() == raw.len()) {
            continue;
        }
        let out = out.get_or_insert_with(|| unchanged_lines(&text[..start]));
        if let Some(l) = line {
            out.push_str(&l);
            out.push('\n');
        }
    }
    match out {
        Some(out) => Cow::Owned(out),
        None => Cow::Borrowed(text),
    }
}

/// The lines of `text` (each ended by `\n`) as [`unwrapped`] writes lines the pass
/// leaves as they are: without a trailing `\r`, each followed by `\n`.
fn unchanged_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for raw in text.split_terminator('\n') {
        out.push_str(raw.strip_suffix('\r').unwrap_or(raw));
        out.push('\n');
    }
    out
}

/// Takes off Python triple quotes at either end of a line (`"""`, `'''`, `r"""`). Code
/// before opening quotes (`NAME = """`, `print("""`) is not output; text after them on
/// the same line is (`NAME = """zk_version\t3.4.0` holds the output's first line).
fn triple_quotes(s: Cow<'_, str>) -> Cow<'_, str> {
    if !s.contains("\"\"\"") && !s.contains("'''") {
        return s;
    }
    let mut out = s.into_owned();
    for q in ["\"\"\"", "'''"] {
        if let Some(i) = out.find(q) {
            let before = out[..i].trim_end_matches(['r', 'b', 'f']).trim();
            if before.is_empty() || before.ends_with(['=', '(']) {
                out = out[i + q.len()..].to_string();
            }
        }
        if let Some(rest) = out.trim_end().strip_suffix(q) {
            out = rest.to_string();
        }
    }
    out.into()
}

/// A markdown pipe-table row as whitespace-separated cells (`| 50: | 0.11 |` →
/// `50:   0.11`); `None` for a rule row (`|---|:--:|`) or a row of empty cells.
fn pipe_row(s: &str) -> Option<String> {
    let t = s.trim();
    if t.chars()
        .all(|c| matches!(c, '|' | '-' | ':' | ' ' | '\t' | '+' | '='))
    {
        return None;
    }
    let body = t.strip_prefix('|').unwrap_or(t);
    let body = body.strip_suffix('|').unwrap_or(body);
    let cells: Vec<&str> = body.split('|').map(str::trim).collect();
    if cells.iter().all(|c| c.is_empty()) {
        return None;
    }
    Some(
        cells
            .iter()
            .filter(|c| !c.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join("   "),
    )
}

/// Where an author's `# note` after a value starts (`Mode: follower<TAB># note`): a `#`
/// after a TAB or two spaces (or `##` after one: `Mode: leader ## Leader`), then
/// whitespace and words, with text before it. A lone `#` after one space is part of the
/// text (`Test Run #`).
fn trailing_comment(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    for i in 2..b.len().saturating_sub(2) {
        if b[i] != b'#' || b[i - 1] == b'#' || !(b[i - 1] == b' ' || b[i - 1] == b'\t') {
            continue;
        }
        let hashes = b[i..].iter().take_while(|&&c| c == b'#').count();
        let after = i + hashes;
        let wide_gap = b[i - 1] == b'\t' || b[i - 2] == b' ' || b[i - 2] == b'\t';
        if (wide_gap || hashes >= 2)
            && after < b.len()
            && (b[after] == b' ' || b[after] == b'\t')
            && s[after..].trim_start().starts_with(char::is_alphanumeric)
        {
            let before = s[..i].trim();
            if !before.is_empty()
                && !before.chars().all(|c| c == '#')
                && !before.ends_with(['$', '#', '>'])
            {
                return Some(i);
            }
        }
    }
    None
}

/// Removes known HTML tags and decodes the common entities.
fn strip_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        match html_tag_len(tail) {
            Some(n) => rest = &tail[n..],
            None => {
                out.push('<');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    if out.contains('&') {
        for (e, c) in [
            ("&lt;", "<"),
            ("&gt;", ">"),
            ("&quot;", "\""),
            ("&#39;", "'"),
            ("&nbsp;", " "),
            ("&amp;", "&"),
        ] {
            if out.contains(e) {
                out = out.replace(e, c);
            }
        }
    }
    out
}

/// The length of a known HTML tag at the start of `s` (`<pre>`, `</pre>`, `<br/>`,
/// `<pre class="x">`), or `None`.
fn html_tag_len(s: &str) -> Option<usize> {
    let end = s.find('>')?;
    let inner = &s[1..end];
    let inner = inner.strip_prefix('/').unwrap_or(inner);
    let inner = inner.strip_suffix('/').unwrap_or(inner).trim_end();
    let name_end = inner.find([' ', '\t']).unwrap_or(inner.len());
    let name = inner[..name_end].to_ascii_lowercase();
    HTML_TAGS.contains(&name.as_str()).then_some(end + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// `unwrapped` is the pass line for line: the text itself when the pass borrows
        /// every line whole, else every line it keeps followed by `\n` (a `\r` before a
        /// `\n` taken off).
        #[test]
        fn unwrapped_is_the_pass_line_for_line(
            lines in proptest::collection::vec(
                "[a-c0-9 |<>&#/*`~'\"{}:\r-]{0,12}", 0..12),
            last_newline in any::<bool>(),
        ) {
            let mut text = lines.join("\n");
            if last_newline {
                text.push('\n');
            }
            let mut u = Unwrapper::new();
            let mut kept = String::new();
            let mut changed = false;
            for raw in text.split('\n') {
                let raw = raw.strip_suffix('\r').unwrap_or(raw);
                match u.line(raw) {
                    Some(l) => {
                        changed |= matches!(l, Cow::Owned(_)) || l.len() != raw.len();
                        kept.push_str(&l);
                        kept.push('\n');
                    }
                    None => changed = true,
                }
            }
            let want = if changed { kept } else { text.clone() };
            let got = unwrapped(&text);
            prop_assert_eq!(&*got, want.as_str());
            prop_assert_eq!(matches!(got, Cow::Borrowed(_)), !changed);
        }
    }

    fn all(text: &str) -> Vec<Option<String>> {
        let mut u = Unwrapper::new();
        text.lines()
            .map(|l| u.line(l).map(Cow::into_owned))
            .collect()
    }

    #[test]
    fn plain_lines_pass_unchanged_and_borrowed() {
        let mut u = Unwrapper::new();
        for l in [
            "50:     0.11    0.12",
            "    Latency   1.2ms",
            "#[Mean    =  1.0]",
            "",
        ] {
            assert!(matches!(u.line(l), Some(Cow::Borrowed(x)) if x == l), "{l}");
        }
        assert_eq!(u.line("# Title").as_deref(), Some("# Title"));
    }

    #[test]
    fn fences_tables_and_html() {
        let got = all(
            "```text\n| 50: | 0.11 | 0.12 |\n|---|:--:|---|\n|  |  |\n```\n<pre>-- results:<br></pre>\n<br>a &lt;b&gt; &amp; c",
        );
        assert_eq!(
            got,
            vec![
                Some("".into()),
                Some("50:   0.11   0.12".into()),
                None,
                None,
                Some("".into()),
                Some("-- results:".into()),
                Some("a <b> & c".into()),
            ]
        );
    }

    #[test]
    fn comments_quotes_and_shortcodes() {
        let got = all(
            "/*\n * 50: 1.0\n// -Dthroughput=100\n*/\nx = \"\"\"\nMode: follower\t# note\n\"\"\"\n{{< text >}}\n$ echo stat  # shell\n> 99: 2",
        );
        assert_eq!(
            got,
            vec![
                Some("".into()),
                Some(" 50: 1.0".into()),
                Some("-Dthroughput=100".into()),
                Some("".into()),
                Some("".into()),
                Some("Mode: follower".into()),
                Some("".into()),
                Some("".into()),
                Some("$ echo stat".into()),
                Some("99: 2".into()),
            ]
        );
    }

    /// `zookeeper-contrib-monitoring-test.py.txt` line 26 opens its string on the line of
    /// the assignment: the text after the quotes is the output's first line.
    #[test]
    fn text_after_opening_quotes_is_output() {
        let got = all(
            "ZK_MNTR_OUTPUT = \"\"\"zk_version\\t3.4.0--1, built on 06/19/2010 15:07 GMT\nzk_avg_latency\\t1\n\"\"\"\nprint(r'''Mode: leader\nsay \"\"\"",
        );
        assert_eq!(
            got,
            vec![
                Some("zk_version\\t3.4.0--1, built on 06/19/2010 15:07 GMT".into()),
                Some("zk_avg_latency\\t1".into()),
                Some("".into()),
                Some("Mode: leader".into()),
                Some("say".into()),
            ]
        );
    }

    #[test]
    fn a_comment_marker_is_not_a_value() {
        let mut u = Unwrapper::new();
        assert_eq!(
            u.line("[root@host ~]# tsar").as_deref(),
            Some("[root@host ~]# tsar")
        );
        assert_eq!(u.line("### Results #").as_deref(), Some("### Results #"));
        assert_eq!(u.line("Test Run #  1").as_deref(), Some("Test Run #  1"));
        assert_eq!(
            u.line("Mode: leader ## Leader").as_deref(),
            Some("Mode: leader")
        );
        assert_eq!(
            u.line("a <not a tag> b").as_deref(),
            Some("a <not a tag> b")
        );
    }
    /// Random and damaged wrapped lines through the pass and through every format's
    /// detection and parser: nothing panics, and blocks come in source order.
    #[test]
    fn damaged_wrapped_inputs_never_panic() {
        let pieces: &[&str] = &[
            "```",
            "~~~",
            "| 50: | 0.11 |",
            "|---|",
            "<pre>",
            "</pre>",
            "<br>",
            "&lt;",
            "&amp",
            "/*",
            "*/",
            " * ",
            "// ",
            "\"\"\"",
            "'''",
            "{{< text >}}",
            "$ ",
            "\t# note",
            "  ## x",
            "> ",
            "é",
            "\u{fffd}",
            "<",
            "&",
            "#",
            "|",
            "*",
            "`",
            "50:",
            "worst:",
        ];
        let mut rng = crate::testutil::Rng(42);
        let mut inputs = Vec::new();
        for _ in 0..200 {
            let mut text = String::new();
            for _ in 0..rng.next() % 40 {
                for _ in 0..rng.next() % 6 {
                    text.push_str(pieces[(rng.next() % pieces.len() as u64) as usize]);
                }
                text.push(if rng.next().is_multiple_of(7) {
                    '\r'
                } else {
                    '\n'
                });
            }
            let mut u = Unwrapper::new();
            for l in text.lines() {
                let _ = u.line(l);
            }
            inputs.push(text.into_bytes());
        }
        for bytes in &inputs {
            let text = String::from_utf8_lossy(bytes);
            let head = crate::Head {
                file_name: "x.txt",
                text: &text,
                complete: true,
            };
            let _ = crate::detect(&head);
            for f in crate::formats() {
                let mut last = 0;
                for item in (f.parse)(Box::new(&bytes[..])) {
                    if let Ok(crate::Parsed::Block(b)) = item {
                        assert!(b.first_line <= b.last_line, "{}", f.name);
                        assert!(b.first_line >= last, "{}", f.name);
                        last = b.first_line;
                    }
                }
            }
        }
    }
}
