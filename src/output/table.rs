//! Aligned plain-text tables whose cells may carry colour codes that take no width.

/// One cell: the visible text and an optional ANSI colour code.
pub struct Cell {
    pub text: String,
    pub color: &'static str,
}

impl From<String> for Cell {
    fn from(text: String) -> Self {
        Cell { text, color: "" }
    }
}

impl From<&str> for Cell {
    fn from(text: &str) -> Self {
        Cell::from(text.to_string())
    }
}

/// Renders rows (the first is the header) with columns padded to their widest cell and
/// two spaces between columns; numbers are not special-cased so the output stays stable.
pub fn render(rows: Vec<Vec<Cell>>, color: bool) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut width = vec![0; cols];
    for row in &rows {
        for (i, c) in row.iter().enumerate() {
            width[i] = width[i].max(c.text.chars().count());
        }
    }
    let mut out = String::new();
    for row in &rows {
        let mut line = String::new();
        for (i, c) in row.iter().enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            let pad = width[i] - c.text.chars().count();
            line.push_str(&super::paint(&c.text, c.color, color));
            if i + 1 < row.len() {
                line.push_str(&" ".repeat(pad));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
