//! What a history over commits draws: per suite, metric and the usual percentiles, the
//! history analysis' series of runs that carry commits, with the noise band of each
//! series' last segment.

use super::history::noise_band;
use crate::analysis::history::{History, HistoryOptions, history};
use crate::dataset::{PERCENTILE_TOLERANCE, StoredRun};

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

/// The series of a suite's runs worth drawing: runs that carry commits, two or more
/// commits, the usual percentiles.
pub fn series_of(runs: &[&StoredRun]) -> Vec<ChangeSeries> {
    let with_commit: Vec<&StoredRun> = runs
        .iter()
        .copied()
        .filter(|r| r.run.tags.contains_key("commit"))
        .collect();
    let Ok(all) = history(&with_commit, &HistoryOptions::default()) else {
        return Vec::new();
    };
    all.into_iter()
        .filter(|h| h.points.len() >= 2)
        .filter(|h| {
            h.percentile.is_none_or(|p| {
                PERCENTILES
                    .iter()
                    .any(|q| (q - p).abs() < PERCENTILE_TOLERANCE)
            })
        })
        .map(ChangeSeries::new)
        .collect()
}
