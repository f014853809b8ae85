//! Before/after cells as the report shows them: the compare analysis' cells with the
//! metric's display name, in a plain struct the shift plot and the tables read.

use crate::analysis::compare::{self, Cell, CompareOptions};
use crate::dataset::StoredRun;

/// One compared cell.
#[derive(Debug, Clone, PartialEq)]
pub struct Delta {
    pub metric: String,
    /// Display name as printed by the tool.
    pub display: String,
    pub unit: String,
    /// Percentile for ladder cells.
    pub percentile: Option<f64>,
    pub baseline: Option<f64>,
    pub candidate: Option<f64>,
    /// `100 · (candidate / baseline − 1)`; `None` when undefined.
    pub delta_pct: Option<f64>,
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
    /// `better`, `worse`, `same`, `inconclusive` or `insufficient`.
    pub verdict: String,
    /// K/M/G as the tool printed the values.
    pub prefixes: super::fmt::Prefixes,
}

impl Delta {
    /// A value of this cell as people read it, in the tool's prefixes.
    pub fn human(&self, v: f64) -> String {
        super::fmt::human_in(v, &self.unit, 3, self.prefixes)
    }

    /// The row name: the display name, with the percentile for ladder cells.
    pub fn name(&self) -> String {
        match self.percentile {
            Some(p) => format!("{} {}", self.display, super::fmt::percentile_name(p)),
            None => self.display.clone(),
        }
    }

    /// The report's view of an analysis cell; `runs` supply the display name.
    pub fn from_cell(cell: &Cell, runs: &[&StoredRun]) -> Self {
        let display = runs
            .iter()
            .find_map(|r| r.series(&cell.metric))
            .map_or_else(|| cell.metric.clone(), |s| s.display.clone());
        Delta {
            metric: cell.metric.clone(),
            display,
            unit: cell.unit.clone(),
            percentile: cell.percentile,
            baseline: cell.baseline,
            candidate: cell.candidate,
            delta_pct: cell.delta_pct,
            ci_low: cell.ci_low_pct,
            ci_high: cell.ci_high_pct,
            verdict: cell.verdict.as_str().to_string(),
            prefixes: runs.first().map_or(super::fmt::Prefixes::Decimal, |r| {
                super::fmt::prefixes_of(&r.format)
            }),
        }
    }
}

/// Every cell present on both sides, compared with the analysis' default options
/// (fixed bootstrap seed, so the same runs give the same numbers).
pub fn compare(baseline: &[&StoredRun], candidate: &[&StoredRun]) -> Vec<Delta> {
    let owned = |runs: &[&StoredRun]| runs.iter().map(|r| (*r).clone()).collect::<Vec<_>>();
    compare::compare(
        &owned(baseline),
        &owned(candidate),
        &[],
        &CompareOptions::default(),
    )
    .iter()
    .map(|c| Delta::from_cell(c, baseline))
    .collect()
}

/// True when both groups have at least one metric in common.
pub fn share_metrics(a: &[&StoredRun], b: &[&StoredRun]) -> bool {
    a.iter()
        .flat_map(|r| r.run.series.iter())
        .any(|s| b.iter().any(|r| r.series(&s.metric).is_some()))
}
