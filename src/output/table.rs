//! Aligned plain-text tables whose cells may carry colour codes that take no width.
//! Widths are terminal columns (`unicode-width`: a CJK character takes two), and cells
//! wider than their column's limit wrap onto further lines instead of being cut, so
//! every label and path can still be read and copied whole. Control characters in a cell
//! are shown escaped, never sent to the terminal.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

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
    render_wrapped(rows, &[], color)
}

/// [`render`] with a line of text under data row `k` where `under[k]` holds one (the row
/// after the header is row 0), indented by two spaces and escaped as cells are.
pub fn render_with_lines(rows: Vec<Vec<Cell>>, under: &[Option<String>], color: bool) -> String {
    let mut layout = Layout::new(&[]);
    for row in &rows {
        layout.measure(row);
    }
    let mut out = String::new();
    for (i, row) in rows.iter().enumerate() {
        layout.write_row(row, color, &mut out);
        if let Some(Some(line)) = i.checked_sub(1).and_then(|k| under.get(k)) {
            out.push_str("  ");
            out.push_str(&super::escape::text(line));
            out.push('\n');
        }
    }
    out
}

/// [`render`] with a width limit per column (`0` or absent: none); longer cells wrap,
/// at spaces where they can, and the row takes as many lines as its tallest cell.
pub fn render_wrapped(rows: Vec<Vec<Cell>>, limits: &[usize], color: bool) -> String {
    let mut layout = Layout::new(limits);
    for row in &rows {
        layout.measure(row);
    }
    let mut out = String::new();
    for row in &rows {
        layout.write_row(row, color, &mut out);
    }
    out
}

/// Column widths measured one row at a time, so that a table can be measured in one pass
/// over its rows and written in a second without holding them all.
pub struct Layout {
    limits: Vec<usize>,
    width: Vec<usize>,
}

impl Layout {
    /// A layout with a width limit per column (`0` or absent: none).
    pub fn new(limits: &[usize]) -> Self {
        Layout {
            limits: limits.to_vec(),
            width: Vec::new(),
        }
    }

    /// A cell's text as printed: control characters escaped ([`super::escape::text`]:
    /// every cell may hold a name from the input), then wrapped to its column's limit.
    fn lines(&self, i: usize, text: &str) -> Vec<String> {
        let text = super::escape::text(text);
        match self.limits.get(i).copied().filter(|l| *l > 0) {
            Some(l) => wrap(&text, l),
            None => vec![text.into_owned()],
        }
    }

    /// Widens the columns to fit `row`.
    pub fn measure(&mut self, row: &[Cell]) {
        if self.width.len() < row.len() {
            self.width.resize(row.len(), 0);
        }
        for (i, c) in row.iter().enumerate() {
            for l in self.lines(i, &c.text) {
                self.width[i] = self.width[i].max(l.width());
            }
        }
    }

    /// Appends `row` to `out`, padded to the measured widths, on as many lines as its
    /// tallest cell.
    pub fn write_row(&self, row: &[Cell], color: bool, out: &mut String) {
        let cells: Vec<Vec<String>> = row
            .iter()
            .enumerate()
            .map(|(i, c)| self.lines(i, &c.text))
            .collect();
        let height = cells.iter().map(Vec::len).max().unwrap_or(1);
        for k in 0..height {
            let mut line = String::new();
            for (i, (c, lines)) in row.iter().zip(&cells).enumerate() {
                if i > 0 {
                    line.push_str("  ");
                }
                let text = lines.get(k).map_or("", String::as_str);
                line.push_str(&super::paint(text, c.color, color));
                if i + 1 < row.len() {
                    let w = self.width.get(i).copied().unwrap_or(0);
                    line.push_str(&" ".repeat(w.saturating_sub(text.width())));
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
}

/// Splits `text` into lines of at most `limit` columns, breaking after a space (or
/// `,`, `/`) where one falls in the line, else anywhere.
pub fn wrap(text: &str, limit: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = String::new();
    let mut w = 0;
    // Byte offset just after the last break opportunity in `line`, and its width there.
    let mut brk: Option<(usize, usize)> = None;
    for ch in text.chars() {
        let cw = ch.width().unwrap_or(0);
        if w + cw > limit && !line.is_empty() {
            match brk {
                Some((at, bw)) if at < line.len() => {
                    let rest = line.split_off(at);
                    out.push(std::mem::take(&mut line));
                    line = rest;
                    w -= bw;
                }
                _ => {
                    out.push(std::mem::take(&mut line));
                    w = 0;
                }
            }
            brk = None;
        }
        line.push(ch);
        w += cw;
        if matches!(ch, ' ' | ',' | '/' | ';' | '-' | '_') {
            brk = Some((line.len(), w));
        }
    }
    if !line.is_empty() || out.is_empty() {
        out.push(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_at_spaces_and_keeps_every_character() {
        let text = "A 20 million message test was also run to ensure no leaks";
        let lines = wrap(text, 20);
        assert!(lines.iter().all(|l| l.width() <= 20), "{lines:?}");
        assert_eq!(lines.concat(), text);
        assert_eq!(lines[0], "A 20 million ");
        // No break opportunity: cut anywhere, nothing lost.
        assert_eq!(wrap("abcdefgh", 3), ["abc", "def", "gh"]);
    }

    #[test]
    fn control_characters_in_cells_are_escaped_and_measured_escaped() {
        let rows = vec![
            vec![Cell::from("label"), Cell::from("n")],
            vec![Cell::from("a\x1b]0;t\x07"), Cell::from("1")],
        ];
        let out = render(rows, false);
        assert_eq!(out, "label          n\na\\x1b]0;t\\x07  1\n");
    }

    #[test]
    fn wide_characters_align() {
        let rows = vec![
            vec![Cell::from("label"), Cell::from("n")],
            vec![Cell::from("测试结果如下"), Cell::from("1")],
            vec![Cell::from("TCP"), Cell::from("2")],
        ];
        let out = render_wrapped(rows, &[8], false);
        let lines: Vec<&str> = out.lines().collect();
        // 测试结果如下 is 12 columns: wrapped to 8 + 4, and the second column lines up.
        assert_eq!(lines[1], "测试结果  1");
        assert_eq!(lines[2], "如下");
        let col = |l: &str| l.find(['1', '2', 'n']).map(|i| l[..i].width());
        assert_eq!(col(lines[0]), col(lines[1]));
        assert_eq!(col(lines[1]), col(lines[3]));
    }
}
