//! `bench-db rm SELECTOR [--dry-run]`: remove the selected runs, and the sources left with
//! none, in one transaction; asks nothing and prints what it removed (`--dry-run`: what it
//! would remove, removing nothing).
//!
//! A selector that selects everything (empty or blank) is refused, as `label` refuses it:
//! there is no `--all`, a whole database is removed by deleting it. Plain terms (`run=`,
//! `suite=`, `label=`, `tag.`) are answered from the store's columns without decoding the
//! runs, so a run too damaged to read can still be removed by them (`rm 'run=17'`).

use crate::cli::RmArgs;
use crate::selector::Selector;
use crate::store::url::Target;
use crate::store::{Db, Removed};
use anyhow::{Result, bail};

pub fn run(db: &Target, args: &RmArgs) -> Result<u8> {
    let text = args.selector.as_str();
    let sel = Selector::parse(text)?;
    if sel.terms.is_empty() && sel.post.is_empty() {
        bail!(
            "the selector {text:?} is empty and would remove every run; name the runs to remove \
             (`bench-db runs` lists them)"
        );
    }
    // A dry run only reads: a role that may not delete (or write at all) can ask.
    let mut store = if args.dry_run {
        Db::open_read(db)?
    } else {
        Db::open_existing(db)?
    };
    let removed = store.remove(&sel, args.dry_run)?;
    if removed.runs.is_empty() {
        return Err(super::select::nothing_selected(&store, &sel, text, "selector")?.into());
    }
    if args.output.json() {
        let doc = serde_json::json!({
            "schema": 1,
            "dry_run": args.dry_run,
            "runs": removed.runs.len(),
            "run_ids": removed.runs,
            "sources_removed": removed.sources,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{}", summary(&removed, args.dry_run));
    }
    Ok(crate::exit::OK)
}

/// `removed 3 runs (ids 1..3) and 1 source left without runs:` and the sources' paths, one a line.
fn summary(r: &Removed, dry_run: bool) -> String {
    let verb = if dry_run { "would remove" } else { "removed" };
    let n = r.runs.len();
    let mut out = format!(
        "{verb} {n} run{} (id{} {})",
        if n == 1 { "" } else { "s" },
        if n == 1 { "" } else { "s" },
        id_ranges(&r.runs)
    );
    match r.sources.len() {
        0 => out.push_str("; no source is left without runs\n"),
        k => {
            out.push_str(&format!(
                " and {k} source{} left without runs:\n",
                if k == 1 { "" } else { "s" }
            ));
            for p in &r.sources {
                out.push_str(&format!("  {p}\n"));
            }
        }
    }
    if dry_run {
        out.push_str("nothing was removed (--dry-run)\n");
    }
    out
}

/// Ascending ids with their runs of consecutive ids as ranges: `1..3, 7, 9..10`.
fn id_ranges(ids: &[i64]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < ids.len() {
        let start = ids[i];
        while i + 1 < ids.len() && ids[i + 1] == ids[i] + 1 {
            i += 1;
        }
        parts.push(if ids[i] > start {
            format!("{start}..{}", ids[i])
        } else {
            start.to_string()
        });
        i += 1;
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_print_as_ranges() {
        assert_eq!(id_ranges(&[1, 2, 3, 7, 9, 10]), "1..3, 7, 9..10");
        assert_eq!(id_ranges(&[4]), "4");
        let r = Removed {
            runs: vec![1, 2],
            sources: vec!["a.txt".into()],
        };
        assert_eq!(
            summary(&r, true),
            "would remove 2 runs (ids 1..2) and 1 source left without runs:\n  a.txt\n\
             nothing was removed (--dry-run)\n"
        );
    }
}
