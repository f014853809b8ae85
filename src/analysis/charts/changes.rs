//! What a history over commits draws: per suite, metric and the usual percentiles, the
//! history analysis' series of runs that carry commits, with the noise band of each
//! series' last segment.

use super::history::noise_band;
use crate::analysis::history::{
    History, HistoryBuilder, HistoryOptions, leave_out_one_commit_branches,
};
use crate::dataset::{PERCENTILE_TOLERANCE, StoredRun};
use std::collections::HashSet;

/// Percentiles drawn (when present); single values are always drawn.
const PERCENTILES: [f64; 5] = [50.0, 90.0, 99.0, 99.9, 100.0];

/// One series over commits and the noise band (median ± 2σ) of its last segment.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangeSeries {
    pub series: History,
    pub band: Option<(f64, f64)>,
}

impl ChangeSeries {
    /// The series with the band of its points after the last change point.
    pub fn new(series: History) -> Self {
        let values: Vec<f64> = series.last_segment().iter().map(|p| p.value).collect();
        ChangeSeries {
            band: noise_band(&values),
            series,
        }
    }
}

/// The series worth drawing, and the branches left out of them: each held one commit
/// beside a longer history of the same series (a pull request's commit beside `main`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Drawn {
    pub series: Vec<ChangeSeries>,
    pub left_out: Vec<String>,
}

/// The series of a suite's runs worth drawing: runs that carry commits, two or more
/// commits, the usual percentiles.
pub fn series_of(runs: &[&StoredRun]) -> Drawn {
    let opts = HistoryOptions::default();
    let mut later_runs = HashSet::new();
    for r in runs {
        note_later_run(&mut later_runs, r);
    }
    let mut b = Changes::new(&opts, later_runs);
    for r in runs {
        b.add(r);
    }
    b.finish()
}

/// Records that `r`'s block has a run after run 1 among the runs with a commit: the
/// history's warm-up rule, which [`Changes`] needs before the runs come.
pub fn note_later_run(later_runs: &mut HashSet<i64>, r: &StoredRun) {
    if r.run.tags.contains_key("commit") && r.run.index > 1 {
        later_runs.insert(r.block_id);
    }
}

/// [`series_of`] one run at a time (in the order `series_of` would see them): per
/// series it keeps each commit's values, never the runs.
pub struct Changes<'o> {
    builder: HistoryBuilder<'o>,
    /// Blocks with a later run than run 1 (see [`note_later_run`]).
    later_runs: HashSet<i64>,
}

impl<'o> Changes<'o> {
    /// `opts` are the default history options, kept by the caller.
    pub fn new(opts: &'o HistoryOptions, later_runs: HashSet<i64>) -> Self {
        Changes {
            builder: HistoryBuilder::new(opts),
            later_runs,
        }
    }

    /// Adds one run when it has a commit and counts in a history
    /// ([`crate::analysis::history::counted`]).
    pub fn add(&mut self, r: &StoredRun) {
        if r.run.tags.contains_key("commit")
            && crate::analysis::history::counted(r, self.later_runs.contains(&r.block_id))
        {
            self.builder.add(r);
        }
    }

    /// The series worth drawing, and the one-commit branches left out of them.
    pub fn finish(self) -> Drawn {
        let Ok(mut all) = self.builder.finish() else {
            return Drawn::default();
        };
        let left_out = leave_out_one_commit_branches(&mut all);
        let series = all
            .into_iter()
            .filter(|h| h.points.len() >= 2)
            .filter(|h| {
                h.percentile.is_none_or(|p| {
                    PERCENTILES
                        .iter()
                        .any(|q| (q - p).abs() < PERCENTILE_TOLERANCE)
                })
            })
            .map(ChangeSeries::new)
            .collect();
        Drawn { series, left_out }
    }
}
