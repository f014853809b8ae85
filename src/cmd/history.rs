//! `bench-db history`: values over commits with their change points, as tables or JSON.

use crate::analysis::history::{HistoryOptions, history};
use crate::cli::HistoryArgs;
use crate::dataset::StoredRun;
use crate::output;
use crate::selector::Selector;
use crate::stats::change_point::Options;
use crate::store::url::Target;
use crate::store::{Db, Detail};
use anyhow::{Context, Result};
use bench_db_parsers::Data;

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
    let sel = super::select::resolve(&store, &Selector::parse_opt(args.selector.as_deref())?)?;
    let mut runs = Vec::new();
    store.for_each_run(&sel, Detail::Series, |r| {
        runs.push(slim(r, &opts));
        Ok(())
    })?;
    let series = history(&runs, &opts).context("change points")?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&series)?);
    } else {
        print!("{}", output::history::tables(&series));
    }
    Ok(crate::exit::OK)
}

/// What the history reads of a run: its identity, tags and the followed metrics' values
/// (at the followed percentiles); parameters, printed names and statistics dropped, so
/// the selection held in memory is a fraction of the runs.
fn slim(mut r: StoredRun, opts: &HistoryOptions) -> StoredRun {
    r.run.params = Default::default();
    r.source = String::new();
    r.run
        .series
        .retain(|s| opts.metrics.is_empty() || opts.metrics.contains(&s.metric));
    for s in &mut r.run.series {
        s.display = String::new();
        s.stats = Default::default();
        if let Data::Histogram { intervals, .. } = &mut s.data {
            *intervals = Vec::new();
        }
        if opts.percentiles.is_empty() {
            continue;
        }
        if let Data::Ladder { points, .. } | Data::Histogram { points, .. } = &mut s.data {
            points.retain(|p| {
                opts.percentiles
                    .iter()
                    .any(|q| (q - p.percentile).abs() < 1e-9)
            });
        }
    }
    r
}
