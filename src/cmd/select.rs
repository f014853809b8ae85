//! Selecting runs for a command: `source=` terms matched by the stored path, a path
//! suffix (`seeds/000.txt`) or a relative path from the current directory; and, for
//! commands that need runs, an error naming near matches when a selector selects none.

use crate::dataset::StoredRun;
use crate::selector::{Selector, Term, near_matches};
use crate::store::{Db, Detail};
use anyhow::{Result, bail};
use std::path::Path;

/// The runs `sel` selects.
pub fn select(store: &Db, sel: &Selector) -> Result<Vec<StoredRun>> {
    store.select(&resolve(store, sel)?)
}

/// The runs `sel` selects as the analyses read them: series and points, without the
/// blocks' printed numbers (see [`Detail::Series`]).
pub fn select_series(store: &Db, sel: &Selector) -> Result<Vec<StoredRun>> {
    let mut out = Vec::new();
    store.for_each_run(&resolve(store, sel)?, Detail::Series, |r| {
        out.push(r);
        Ok(())
    })?;
    Ok(out)
}

/// `sel` with its `source=` terms (suffixes and relative paths, see [`source_matches`])
/// turned into the ids of the runs they match, found from the runs' heads (no points
/// loaded): a selector the store answers by itself, streaming.
pub fn resolve(store: &Db, sel: &Selector) -> Result<Selector> {
    let (sources, others): (Vec<&Term>, Vec<&Term>) =
        sel.terms.iter().partition(|t| matches!(t, Term::Source(_)));
    if sources.is_empty() {
        return Ok(sel.clone());
    }
    let rest = Selector {
        terms: others.into_iter().cloned().collect(),
        post: Vec::new(),
    };
    let cwd = std::env::current_dir().ok();
    let mut ids = Vec::new();
    store.for_each_run(&rest, Detail::Heads, |r| {
        let keep = sources.iter().all(|t| match t {
            Term::Source(want) => source_matches(&r.source, want, cwd.as_deref()),
            _ => true,
        });
        if keep {
            ids.push(r.id);
        }
        Ok(())
    })?;
    let mut narrowed = Selector::from_ids(ids);
    narrowed.post = sel.post.clone();
    Ok(narrowed)
}

/// The heads (no points) of the runs `sel` selects.
pub fn select_heads(store: &Db, sel: &Selector) -> Result<Vec<StoredRun>> {
    let mut out = Vec::new();
    store.for_each_run(&resolve(store, sel)?, Detail::Heads, |r| {
        out.push(r);
        Ok(())
    })?;
    Ok(out)
}

/// Whether a stored source path is the one a `source=` term names: the same text, a
/// suffix of whole path components, or the same file reached from `cwd`.
pub fn source_matches(stored: &str, want: &str, cwd: Option<&Path>) -> bool {
    let want_clean = want.trim_start_matches("./");
    if stored == want || stored.trim_start_matches("./") == want_clean {
        return true;
    }
    if !want_clean.is_empty() && stored.ends_with(&format!("/{want_clean}")) {
        return true;
    }
    let absolute = |p: &str| -> Option<std::path::PathBuf> {
        let p = Path::new(p);
        let p = if p.is_absolute() {
            p.to_path_buf()
        } else {
            cwd?.join(p)
        };
        p.canonicalize().ok()
    };
    matches!((absolute(stored), absolute(want)), (Some(a), Some(b)) if a == b)
}

/// The runs `text` selects; none is an error (exit 2) that names the option, the terms
/// that match nothing on their own and the nearest values stored.
pub fn select_some(store: &Db, text: &str, what: &str) -> Result<Vec<StoredRun>> {
    let sel = Selector::parse(text)?;
    let runs = select(store, &sel)?;
    if !runs.is_empty() {
        return Ok(runs);
    }
    bail!("{}", nothing_selected(store, &sel, text, what)?)
}

/// [`select_some`] as the analyses read runs ([`select_series`]).
pub fn select_some_series(store: &Db, text: &str, what: &str) -> Result<Vec<StoredRun>> {
    let sel = Selector::parse(text)?;
    let runs = select_series(store, &sel)?;
    if !runs.is_empty() {
        return Ok(runs);
    }
    bail!("{}", nothing_selected(store, &sel, text, what)?)
}

/// The message for a selector that selects no run.
pub fn nothing_selected(store: &Db, sel: &Selector, text: &str, what: &str) -> Result<String> {
    let all = select_heads(store, &Selector::all())?;
    let mut msg = format!("{what} {text:?} selects no run");
    if all.is_empty() {
        msg.push_str(" (the database holds no runs: `bench-db ingest PATH` first)");
        return Ok(msg);
    }
    for term in &sel.terms {
        let alone = Selector {
            terms: vec![term.clone()],
            post: Vec::new(),
        };
        // A lone plain term is answered by the database alone: ids, no runs loaded.
        if !store.select_ids(&resolve(store, &alone)?)?.is_empty() {
            continue;
        }
        let (key, want, stored): (String, &str, Vec<&str>) = match term {
            Term::Label(v) => (
                "label".into(),
                v,
                all.iter().map(|r| r.label.as_str()).collect(),
            ),
            Term::Suite(v) => (
                "suite".into(),
                v,
                all.iter().map(|r| r.suite.as_str()).collect(),
            ),
            Term::Source(v) => (
                "source".into(),
                v,
                all.iter().map(|r| r.source.as_str()).collect(),
            ),
            Term::Tag(k, v) => (
                format!("tag.{k}"),
                v,
                all.iter()
                    .filter_map(|r| r.run.tags.get(k).map(String::as_str))
                    .collect(),
            ),
            Term::Runs(_) => {
                msg.push_str("\n  no run has those ids (`bench-db runs` lists them)");
                continue;
            }
        };
        let near = near_matches(want, &stored, 5);
        if near.is_empty() {
            msg.push_str(&format!("\n  no run has {key}={want}"));
        } else {
            let near: Vec<String> = near.iter().map(|n| format!("{key}={n}")).collect();
            msg.push_str(&format!(
                "\n  no run has {key}={want}; near matches: {}",
                near.join(" | ")
            ));
        }
    }
    Ok(msg)
}

/// Errors on a `--metric` that no selected run has, naming the nearest metrics.
pub fn check_metrics(wanted: &[String], sides: &[&[StoredRun]]) -> Result<()> {
    let mut known: Vec<String> = Vec::new();
    for r in sides.iter().flat_map(|s| s.iter()) {
        for s in &r.run.series {
            if !known.contains(&s.metric) {
                known.push(s.metric.clone());
            }
        }
    }
    check_metric_names(wanted, &known)
}

/// [`check_metrics`] against the metric names of the selection, in first-seen order.
pub fn check_metric_names(wanted: &[String], known: &[String]) -> Result<()> {
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
    for m in wanted {
        if known.contains(&m.as_str()) {
            continue;
        }
        let near = near_matches(m, &known, 5);
        if near.is_empty() {
            let mut all = known.clone();
            all.sort_unstable();
            all.truncate(12);
            bail!(
                "--metric {m:?}: no selected run has it (metrics: {})",
                all.join(", ")
            );
        }
        bail!(
            "--metric {m:?}: no selected run has it; did you mean {}?",
            near.join(" or ")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_match_by_suffix_and_relative_path() {
        let stored = "/work/shared/seeds/000_6d13.txt";
        assert!(source_matches(stored, stored, None));
        assert!(source_matches(stored, "seeds/000_6d13.txt", None));
        assert!(source_matches(stored, "000_6d13.txt", None));
        // A suffix must be whole components.
        assert!(!source_matches(stored, "6d13.txt", None));
        assert!(source_matches("./logs/a.txt", "logs/a.txt", None));
        // The same file reached from another directory.
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("logs")).unwrap();
        let file = dir.path().join("logs/run.txt");
        std::fs::write(&file, "x").unwrap();
        assert!(source_matches(
            &file.display().to_string(),
            "../logs/run.txt",
            Some(&dir.path().join("logs"))
        ));
    }
}
