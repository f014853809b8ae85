//! Pure renderers of compare, gate and curve results: each returns a `String` (text table,
//! JSON, Markdown, JUnit XML, GitHub workflow commands). No IO; colour only when asked;
//! text and Markdown show control characters from the input escaped ([`escape`]).

pub mod compare;
pub mod curve;
pub mod escape;
pub mod gate;
pub mod history;
pub mod table;

pub use crate::numfmt::{json_num, num, p, pct, percentile, plural};

/// ANSI colour around `text` when `color` is on.
pub fn paint(text: &str, code: &str, color: bool) -> String {
    if color && !code.is_empty() {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// Escapes a Markdown table cell: a line break becomes a space, other control
/// characters show as their escapes ([`escape::text`]).
pub fn md_cell(s: &str) -> String {
    escape::text(&s.replace('\n', " "))
        .replace('\\', "\\\\")
        .replace('|', "\\|")
}

/// What a side of a comparison counts once ([`crate::analysis::copies`]): `side` is
/// `baseline` or `candidate`.
pub fn copies_note(side: &str, c: &crate::analysis::copies::Copies) -> String {
    let n = c.blocks.len();
    match c.kind {
        crate::analysis::copies::Shared::Values if criterion_new_beside_its_baseline(c) => format!(
            "{side}: Criterion's `new` folder repeats the values of {} (the baseline saved beside it, from the same run): counted once",
            escape::text(&c.path),
        ),
        crate::analysis::copies::Shared::Values => format!(
            "{side}: {n} invocations repeat the values of {} in every run (copies of one output, ingested {n} times?): counted once, as a copy is no new measurement",
            escape::text(&c.path),
        ),
        crate::analysis::copies::Shared::Summary => format!(
            "{side}: {} print{} the summary of {} (its exports, or the terminal output beside it): one measurement, counted once as {}",
            crate::numfmt::plural(n - 1, "other output"),
            if n == 2 { "s" } else { "" },
            escape::text(&c.path),
            if n == 2 { "that output" } else { "it" },
        ),
    }
}

/// The notes on what a side counts once ([`crate::analysis::copies::find`]'s groups), in
/// the order of the blocks that count: one per source (its benchmarks' copies say the
/// same), and one for all outputs printing another's summary when more than two do.
pub fn copies_notes(side: &str, groups: &[crate::analysis::copies::Copies]) -> Vec<String> {
    use crate::analysis::copies::Shared;
    let (summaries, values): (Vec<_>, Vec<_>) =
        groups.iter().partition(|g| g.kind == Shared::Summary);
    let mut notes: std::collections::BTreeSet<(i64, String)> = values
        .iter()
        .map(|g| (g.blocks[0], copies_note(side, g)))
        .collect();
    if summaries.len() > 2 {
        notes.insert((i64::MAX, summaries_note(side, &summaries)));
    } else {
        notes.extend(
            summaries
                .iter()
                .map(|g| (g.blocks[0], copies_note(side, g))),
        );
    }
    let mut said = std::collections::HashSet::new();
    notes
        .into_iter()
        .filter(|(_, n)| said.insert(n.clone()))
        .map(|(_, n)| n)
        .collect()
}

/// Whether copies are Criterion's `new` folder beside a baseline it saved
/// (`--save-baseline`): sibling folders, the others named `new`.
fn criterion_new_beside_its_baseline(c: &crate::analysis::copies::Copies) -> bool {
    let parent = |p: &str| std::path::Path::new(p).parent().map(|d| d.to_path_buf());
    !c.others.is_empty()
        && c.others.iter().all(|o| {
            std::path::Path::new(o).file_name() == Some(std::ffi::OsStr::new("new"))
                && parent(o) == parent(&c.path)
        })
}

/// One note for many outputs of a side that each print the summary of another
/// ([`crate::analysis::copies::Shared::Summary`]), naming the first three kept.
pub fn summaries_note(side: &str, groups: &[&crate::analysis::copies::Copies]) -> String {
    let left_out: usize = groups.iter().map(|g| g.blocks.len() - 1).sum();
    let mut kept: Vec<String> = Vec::new();
    for g in groups {
        let path = escape::text(&g.path).into_owned();
        if !kept.contains(&path) {
            kept.push(path);
        }
    }
    format!(
        "{side}: {} print the summary of another output beside them (exports, or the terminal output of one run beside its files): one measurement each, counted once as {}",
        crate::numfmt::plural(left_out, "output"),
        crate::numfmt::first_names(&kept, 3),
    )
}

/// The warning when blocks of the candidate repeat blocks of the baseline exactly
/// ([`crate::analysis::copies::across`]); `None` when none does.
pub fn copies_across_warning(pairs: &[(i64, i64)]) -> Option<String> {
    let n = pairs.len();
    (n > 0).then(|| {
        format!(
            "{} of the candidate repeat{} the baseline's values exactly (copies of one output on both sides?): {} compared with {}, which shows no change whatever it holds",
            crate::numfmt::plural(n, "invocation"),
            if n == 1 { "s" } else { "" },
            if n == 1 { "it is" } else { "each is" },
            if n == 1 { "itself" } else { "its copy" },
        )
    })
}

/// The branches `history` or `curve` left out, each holding one commit beside a longer
/// history of the same `what` (`series`, `curve`), naming the first five; `None` when
/// none was.
pub fn one_commit_branches_note(branches: &[String], what: &str) -> Option<String> {
    let first = branches.first()?;
    let names = crate::numfmt::first_names(branches, 5);
    let n = branches.len();
    Some(format!(
        "{n} branch{} with one commit left out beside the longer history of the same {what} \
         ({names}); select one with tag.branch={first}",
        if n == 1 { "" } else { "es" }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markdown_cells() {
        assert_eq!(md_cell("a|b"), "a\\|b");
        assert_eq!(md_cell("a\\b\nc"), "a\\\\b c");
        assert_eq!(md_cell("t\x1b]0;x\x07"), "t\\\\x1b]0;x\\\\x07");
        assert_eq!(paint("x", "31", true), "\x1b[31mx\x1b[0m");
        assert_eq!(paint("x", "31", false), "x");
        assert_eq!(plural(1, "run"), "1 run");
        assert_eq!(plural(0, "run"), "0 runs");
        assert_eq!(plural(12, "change point"), "12 change points");
    }
}
