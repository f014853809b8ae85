//! `bench-db copy --from DB --to DB [SELECTOR]`: copy runs between two stores of either
//! kind; a run the target already holds is not copied again and a source it holds in part
//! is completed, so a copy can be repeated and a job can ingest locally and push once at
//! the end.

use crate::cli::CopyArgs;
use crate::output::escape::text as esc;
use crate::output::plural;
use crate::selector::Selector;
use crate::store::Db;
use crate::store::copy::{SourceCopied, copy};
use crate::store::url::Target;
use anyhow::{Result, bail};
use serde::Serialize;

/// A source copied, in `--json`.
#[derive(Serialize)]
struct CopiedSource {
    source: String,
    runs: usize,
    /// The target held some of the source's runs already; these were added to them.
    completed: bool,
}

pub fn run(args: &CopyArgs) -> Result<u8> {
    let from = Target::parse(&args.from)?;
    let to = Target::parse(&args.to)?;
    if from == to {
        bail!("--from and --to name the same store ({from})");
    }
    let json = args.output.json();
    let sel = Selector::parse_opt(args.selector.as_deref())?;
    let source = Db::open_read(&from)?;
    // A selector that selects nothing is a mistake, as for the other commands taking one:
    // exit 2 before the target is opened, which would create it.
    if let Some(text) = args.selector.as_deref()
        && source.select_ids(&sel)?.is_empty()
    {
        return Err(super::select::nothing_selected(&source, &sel, text, "the selector")?.into());
    }
    let mut target = Db::open(&to)?;
    let mut copied = Vec::new();
    let mut present = Vec::new();
    let done = copy(&source, &mut target, &sel, |record, outcome| {
        let (runs, completed) = match outcome {
            SourceCopied::New(n) => (n, false),
            SourceCopied::Completed(n) => (n, true),
            SourceCopied::Present if json => return present.push(record.path.clone()),
            SourceCopied::Present => return println!("present {}", esc(&record.path)),
        };
        if json {
            copied.push(CopiedSource {
                source: record.path.clone(),
                runs,
                completed,
            });
        } else {
            let verb = if completed { "completed" } else { "copied" };
            println!("{verb} {}: {}", esc(&record.path), plural(runs, "run"));
        }
    })?;
    if json {
        // The stores are shown as everywhere else: a PostgreSQL password masked.
        let doc = serde_json::json!({
            "schema": 1,
            "from": from.to_string(),
            "to": to.to_string(),
            "sources": done.sources,
            "runs": done.runs,
            "present": done.present,
            "completed": done.completed,
            "copied": copied,
            "already_present": present,
            "other_label": done.other_label,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        let completed = match done.completed {
            0 => String::new(),
            n => format!(", {n} of them completed"),
        };
        println!(
            "{} copied ({}){completed}, {} already present, from {from} to {to}",
            plural(done.sources, "source"),
            plural(done.runs, "run"),
            done.present
        );
    }
    if let Some((here, there)) = &done.other_label_example {
        eprintln!(
            "note: {} the target holds already carry another label there (as {} here, {} \
             there); copy keeps the target's labels: `bench-db --db {to} label SELECTOR \
             LABEL` changes them",
            plural(done.other_label, "selected run"),
            esc(&format!("{here:?}")),
            esc(&format!("{there:?}")),
        );
    }
    Ok(crate::exit::OK)
}
