//! `bench-db compare`: select both sides, compare, print. Exits 0 whatever the verdicts.

use super::select::{check_metrics, compare_options, parse_sides, select_some};
use crate::analysis::compare::compare;
use crate::cli::{CompareArgs, CompareFormat};
use crate::output;
use crate::store::Db;
use crate::store::url::Target;
use anyhow::Result;
use std::io::{IsTerminal, Write};

pub fn run(db: &Target, args: &CompareArgs) -> Result<u8> {
    let store = Db::open_read(db)?;
    // With the blocks' printed numbers, shown beside the comparison's own estimates.
    let sel = parse_sides(&args.sides)?;
    let base = select_some(&store, &sel.0, &args.sides.baseline, "--baseline")?;
    let cand = select_some(&store, &sel.1, &args.sides.candidate, "--candidate")?;
    check_metrics(&args.metric, &[&base, &cand])?;
    let opts = compare_options(&store, &sel, &args.warm_up, &base, &cand)?;
    let cells = compare(&base, &cand, &args.metric, &opts);
    for m in &args.metric {
        if !cells.iter().any(|c| &c.metric == m) {
            eprintln!("warning: metric {m:?} is not present on both sides");
        }
    }
    let text = match args.format() {
        CompareFormat::Json => output::compare::json(&cells),
        CompareFormat::Markdown => output::compare::markdown(&cells),
        CompareFormat::Text => output::compare::text(
            &cells,
            output::compare::WarmUpRuns::of(&[&base, &cand], args.warm_up.include_first),
            crate::cli::color_enabled(std::io::stdout().is_terminal()),
        ),
    };
    std::io::stdout().write_all(text.as_bytes())?;
    Ok(crate::exit::OK)
}
