//! The one rule for a `--metric` that no selected run has, on every command that takes
//! one: an error (exit 2) naming the nearest stored names (`select::check_metric_names`).
//! Here: finding the metric names of a selection from the runs' heads (no points loaded),
//! for the commands that stream their runs (`variation`, `history`).

use super::select::check_metric_names;
use crate::selector::Selector;
use crate::store::{Db, Detail};
use anyhow::{Result, bail};

/// Errors on a name in `wanted` that no run of `sel` (a resolved selector) has; nothing
/// is read when `wanted` is empty.
pub fn check_selected(store: &Db, sel: &Selector, wanted: &[String]) -> Result<()> {
    if wanted.is_empty() {
        return Ok(());
    }
    let mut known: Vec<String> = Vec::new();
    let mut runs = 0usize;
    store.for_each_run(sel, Detail::Heads, |r| {
        runs += 1;
        for s in &r.run.series {
            if !known.contains(&s.metric) {
                known.push(s.metric.clone());
            }
        }
        Ok(())
    })?;
    if runs == 0 {
        bail!("--metric {:?}: the selection holds no run", wanted[0]);
    }
    check_metric_names(wanted, &known)
}
