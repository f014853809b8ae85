//! `bench-db copy --from DB --to DB [SELECTOR]`: copy runs between two stores of either
//! kind; a source the target already holds (same content hash) is skipped, so a copy can be
//! repeated and a job can ingest locally and push once at the end.

use crate::cli::CopyArgs;
use crate::output::escape::text as esc;
use crate::output::plural;
use crate::selector::Selector;
use crate::store::Db;
use crate::store::copy::copy;
use crate::store::url::Target;
use anyhow::{Result, bail};
use serde::Serialize;

/// A source copied, in `--json`.
#[derive(Serialize)]
struct CopiedSource {
    source: String,
    runs: usize,
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
    let mut target = Db::open(&to)?;
    let mut copied = Vec::new();
    let mut present = Vec::new();
    let done = copy(&source, &mut target, &sel, |record, runs| {
        match (runs, json) {
            (Some(n), false) => println!("copied {}: {}", esc(&record.path), plural(n, "run")),
            (None, false) => println!("present {}", esc(&record.path)),
            (Some(n), true) => copied.push(CopiedSource {
                source: record.path.clone(),
                runs: n,
            }),
            (None, true) => present.push(record.path.clone()),
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
            "copied": copied,
            "already_present": present,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        println!(
            "{} copied ({}), {} already present, from {from} to {to}",
            plural(done.sources, "source"),
            plural(done.runs, "run"),
            done.present
        );
    }
    Ok(crate::exit::OK)
}
