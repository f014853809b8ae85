//! Pure renderers of compare, gate and curve results: each returns a `String` (text table,
//! JSON, Markdown, JUnit XML, GitHub workflow commands). No IO; colour only when asked.

pub mod compare;
pub mod curve;
pub mod gate;
pub mod history;
pub mod table;

pub use crate::display::{num, pct, plural};

/// A percentile column (`99.9`, `-` for none).
pub fn percentile(p: Option<f64>) -> String {
    p.map_or("-".to_string(), crate::analysis::compare::fmt_percentile)
}

/// A p-value column.
pub fn p(v: Option<f64>) -> String {
    v.map_or("-".to_string(), crate::analysis::compare::fmt_p)
}

/// Rounds to 15 significant digits (what an f64 holds exactly) for JSON, so binary
/// noise (`3.3880000000000003`)
/// does not leak into machine output.
pub fn json_num(v: Option<f64>) -> Option<f64> {
    let v = v.filter(|v| v.is_finite())?;
    if v == 0.0 {
        return Some(0.0);
    }
    format!("{v:.14e}").parse().ok()
}

/// ANSI colour around `text` when `color` is on.
pub fn paint(text: &str, code: &str, color: bool) -> String {
    if color && !code.is_empty() {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// Escapes a Markdown table cell.
pub fn md_cell(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_numbers() {
        assert_eq!(num(Some(3.388)), "3.388");
        assert_eq!(num(Some(2.961_818)), "2.962");
        assert_eq!(num(Some(68.36)), "68.36");
        assert_eq!(num(Some(13467.0)), "13467");
        assert_eq!(num(Some(0.012_34)), "0.01234");
        assert_eq!(num(None), "-");
        assert_eq!(pct(Some(-12.5834)), "-12.58%");
        assert_eq!(pct(Some(2.5)), "+2.50%");
        assert_eq!(json_num(Some(3.3880000000000003)), Some(3.388));
        assert_eq!(json_num(Some(f64::NAN)), None);
        assert_eq!(md_cell("a|b"), "a\\|b");
        assert_eq!(plural(1, "run"), "1 run");
        assert_eq!(plural(0, "run"), "0 runs");
        assert_eq!(plural(12, "change point"), "12 change points");
    }
}
