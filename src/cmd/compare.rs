//! `bench-db compare`: select both sides, compare, print. Exits 0 whatever the verdicts.

use crate::analysis::compare::{CompareOptions, compare};
use crate::cli::CompareArgs;
use crate::output;
use crate::selector::Selector;
use crate::store::Db;
use crate::store::url::Target;
use anyhow::{Context, Result, bail};
use std::io::{IsTerminal, Write};

pub fn run(db: &Target, args: &CompareArgs) -> Result<u8> {
    let store = Db::open_read(db)?;
    let base = store
        .select(&Selector::parse(&args.baseline).context("--baseline")?)
        .context("selecting the baseline runs")?;
    let cand = store
        .select(&Selector::parse(&args.candidate).context("--candidate")?)
        .context("selecting the candidate runs")?;
    if base.is_empty() {
        bail!("--baseline {:?} selects no run", args.baseline);
    }
    if cand.is_empty() {
        bail!("--candidate {:?} selects no run", args.candidate);
    }
    let opts = CompareOptions {
        include_first: args.include_first,
        ..CompareOptions::default()
    };
    let cells = compare(&base, &cand, &args.metric, &opts);
    for m in &args.metric {
        if !cells.iter().any(|c| &c.metric == m) {
            eprintln!("bench-db: warning: metric {m:?} is not present on both sides");
        }
    }
    let text = if args.json {
        output::compare::json(&cells)
    } else if args.markdown {
        output::compare::markdown(&cells)
    } else {
        output::compare::text(&cells, std::io::stdout().is_terminal())
    };
    std::io::stdout().write_all(text.as_bytes())?;
    Ok(crate::exit::OK)
}
