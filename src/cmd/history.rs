//! `bench-db history`: values over commits with their change points, as tables or JSON.

use crate::analysis::history::{HistoryBuilder, HistoryOptions, leave_out_one_commit_branches};
use crate::cli::HistoryArgs;
use crate::output;
use crate::selector::Selector;
use crate::stats::change_point::Options;
use crate::store::url::Target;
use crate::store::{Db, Detail};
use anyhow::{Context, Result};

pub fn run(db: &Target, args: &HistoryArgs) -> Result<u8> {
    let opts = HistoryOptions {
        metrics: args.metric.clone(),
        percentiles: args.percentile.clone(),
        by_label: args.by.is_some(),
        change_points: Options {
            window_len: args.window,
            max_pvalue: args.p_value,
            min_magnitude: args.magnitude,
        },
    };
    let store = Db::open_read(db)?;
    let sel = Selector::parse_opt(args.selector.as_deref())?;
    super::variation::check_selects_some(&store, &sel, args.selector.as_deref())?;
    super::metrics::check_selected(&store, &sel, &args.metric)?;
    // Block by block: the warm-up rule needs a block's runs together; the builder keeps
    // their values, not the runs.
    let mut builder = HistoryBuilder::new(&opts);
    super::variation::for_each_block(&store, &sel, Detail::Points, |runs| {
        builder.add_blocks(runs);
        Ok(())
    })?;
    let (mut series, copies) = builder.finish_with_copies().context("change points")?;
    for note in output::copies_notes("history", &copies) {
        eprintln!("note: {note}");
    }
    if series.is_empty() && !args.percentile.is_empty() {
        let asked: Vec<String> = args.percentile.iter().map(|p| p.to_string()).collect();
        eprintln!(
            "note: --percentile {}: no selected series has it (`history` without \
             --percentile lists the series and their percentiles)",
            asked.join(", ")
        );
    }
    let left_out = leave_out_one_commit_branches(&mut series);
    if let Some(note) = output::one_commit_branches_note(&left_out, "series") {
        eprintln!("note: {note}");
    }
    if args.output.json() {
        println!("{}", serde_json::to_string_pretty(&series)?);
    } else {
        print!("{}", output::history::tables(&series));
    }
    Ok(crate::exit::OK)
}
