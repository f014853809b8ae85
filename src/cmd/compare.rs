//! `bench-db compare`: select both sides, compare, print. Exits 0 whatever the verdicts.

use super::select::{
    check_metrics, compare_options, count_copies_once, parse_sides, select_some, warn_shared_runs,
};
use crate::analysis::compare::{compare, one_sided, unpaired};
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
    let mut base = select_some(&store, &sel.0, &args.sides.baseline, "--baseline")?;
    let mut cand = select_some(&store, &sel.1, &args.sides.candidate, "--candidate")?;
    check_metrics(&args.metric, &[&base, &cand])?;
    warn_shared_runs(&base, &cand);
    count_copies_once(&store, &mut base, &mut cand)?;
    let opts = compare_options(&store, &sel, &args.warm_up, &base, &cand)?;
    let cells = compare(&base, &cand, &args.metric, &opts);
    for line in output::compare::one_sided_text(&one_sided(&base, &cand, &args.metric, &opts)) {
        eprintln!("note: {line}");
    }
    let missing: Vec<&String> = args
        .metric
        .iter()
        .filter(|m| !cells.iter().any(|c| &c.metric == *m))
        .collect();
    // Metrics both sides hold whose configurations do not pair: say why.
    let unpaired = if cells.is_empty() || !missing.is_empty() {
        unpaired(&base, &cand, &args.metric, &opts)
    } else {
        Vec::new()
    };
    for m in missing {
        match unpaired.iter().find(|u| &u.metric == m) {
            Some(u) => eprintln!("warning: {}", output::compare::unpaired_text(u)),
            None => eprintln!("warning: metric {m:?} is not present on both sides"),
        }
    }
    let text_out = args.format() == CompareFormat::Text;
    if cells.is_empty() && args.metric.is_empty() && !text_out {
        // The text output says why itself; the others have no room for it.
        for u in &unpaired {
            eprintln!("warning: {}", output::compare::unpaired_text(u));
        }
    }
    let text = match args.format() {
        CompareFormat::Text if cells.is_empty() && !unpaired.is_empty() => {
            output::compare::nothing_paired(&unpaired)
        }
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
