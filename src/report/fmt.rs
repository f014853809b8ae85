//! Text for pages: HTML escaping, ellipsis and file-name slugs, plus the display
//! formatting of numbers, units, percentiles and percentages from [`crate::numfmt`]
//! (re-exported here). Pure string functions; no drawing here.

pub use crate::numfmt::*;

/// Escapes text for HTML element content and quoted attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `text` cut to at most `max` characters by dropping its middle, so both the start
/// and the distinctive end (`…ServerStats@time`, `…with patch v11jp`) stay readable.
pub fn ellipsize(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max || max < 5 {
        return text.to_string();
    }
    let head = (max - 1) / 3;
    let tail = max - 1 - head;
    let mut out: String = text.chars().take(head).collect();
    out.push('…');
    out.extend(text.chars().skip(n - tail));
    out
}

/// A file-name-safe slug: lower-case ASCII letters, digits and `-`.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-').to_string();
    if out.is_empty() {
        "suite".to_string()
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape("<script>alert('x')&\"</script>"),
            "&lt;script&gt;alert(&#39;x&#39;)&amp;&quot;&lt;/script&gt;"
        );
    }

    #[test]
    fn ellipsis_keeps_both_ends() {
        assert_eq!(
            ellipsize("@org.apache.zookeeper.server.ServerStats@time", 20),
            "@org.a…verStats@time"
        );
        assert_eq!(ellipsize("short", 20), "short");
    }

    #[test]
    fn slugs_are_file_safe() {
        assert_eq!(slug("JLBH / TCP loopback"), "jlbh-tcp-loopback");
        assert_eq!(slug("<script>"), "script");
        assert_eq!(slug("时间"), "suite");
    }
}
