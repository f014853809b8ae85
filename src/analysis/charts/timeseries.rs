//! What a time-series chart draws: one metric's (t, value) points, one line per run or
//! per side.

use crate::dataset::StoredRun;
use crate::numfmt as fmt;

/// What a time-series chart draws.
#[derive(Debug, Clone, PartialEq)]
pub struct TimeSeriesInput {
    pub title: String,
    /// What the values are (the metric's display name): the value axis' caption.
    pub quantity: String,
    /// Unit of every value.
    pub unit: String,
    /// One (name, points (t seconds, value)) per line.
    pub lines: Vec<(String, Vec<(f64, f64)>)>,
    /// Shift every line to start at t = 0 (elapsed time), for overlaying sides.
    pub elapsed: bool,
    /// K/M/G as the tool printed them.
    pub prefixes: fmt::Prefixes,
    /// The times are local wall-clock times as the tool printed them, with no zone.
    pub local_time: bool,
}

/// One chart of `metric` with a line per run (named by label and run index).
pub fn from_runs(runs: &[&StoredRun], metric: &str, elapsed: bool) -> Option<TimeSeriesInput> {
    let mut lines = Vec::new();
    let (mut unit, mut display) = (String::new(), metric.to_string());
    let prefixes = runs
        .first()
        .map_or(fmt::Prefixes::Decimal, |r| fmt::prefixes_of(&r.format));
    for r in runs {
        let Some(pts) = r.time_points(metric) else {
            continue;
        };
        if let Some(s) = r.series(metric) {
            unit.clone_from(&s.unit);
            display.clone_from(&s.display);
        }
        let name = if r.label.is_empty() {
            format!("run {}", r.run.index)
        } else {
            r.label.clone()
        };
        lines.push((name, pts));
    }
    if lines.is_empty() {
        return None;
    }
    Some(TimeSeriesInput {
        title: format!("{display} over time"),
        quantity: display,
        unit,
        lines,
        elapsed,
        prefixes,
        local_time: runs.iter().all(|r| fmt::local_times_of(&r.format)),
    })
}
