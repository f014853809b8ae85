//! Time-series charts: one metric's values over time (tsar minutes, benchmark
//! intervals), several lines per chart (runs, or before and after). Before/after
//! sides recorded on different days are drawn on elapsed time so they overlap.

use super::axis::{Reading, time_axis, value_axis_in};
use super::chart::{self, Line, LineChart};
use super::fmt;
use super::series::{MAX_POINTS, decimate};
pub use crate::analysis::charts::timeseries::TimeSeriesInput;
use anyhow::Result;

/// The time axis of a tool that prints wall-clock times with no zone (tsar).
const LOCAL_TIME: &str = "Local time (as printed, no time zone)";

/// Draws the chart.
pub fn render(input: &TimeSeriesInput) -> Result<String> {
    chart::render(&layout(input))
}

/// The chart in axis space.
pub fn layout(input: &TimeSeriesInput) -> LineChart {
    let lines: Vec<(String, Vec<(f64, f64)>)> = input
        .lines
        .iter()
        .map(|(name, pts)| {
            let t0 = if input.elapsed {
                pts.first().map_or(0.0, |p| p.0)
            } else {
                0.0
            };
            let shifted: Vec<(f64, f64)> = pts.iter().map(|(t, v)| (t - t0, *v)).collect();
            (name.clone(), decimate(&shifted, MAX_POINTS))
        })
        .collect();
    let mut x = time_axis(lines.iter().flat_map(|l| l.1.iter().map(|p| p.0)));
    if input.elapsed {
        x.caption = "Elapsed time".to_string();
    } else if input.local_time && x.caption != "Time" {
        x.caption = LOCAL_TIME.to_string();
        x.reading = Reading::LocalTime;
    }
    let caption = fmt::axis_caption(&input.quantity, &input.unit);
    let y = value_axis_in(
        &caption,
        &input.unit,
        input.prefixes,
        lines.iter().flat_map(|l| l.1.iter().map(|p| p.1)),
        false,
        false,
    );
    let lines = lines
        .into_iter()
        .enumerate()
        .map(|(i, (name, pts))| Line::nth(i, name, pts))
        .collect();
    LineChart {
        title: input.title.clone(),
        x,
        y,
        bands: Vec::new(),
        lines,
        notes: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elapsed_overlays_sides_and_long_lines_are_bounded() {
        let before: Vec<(f64, f64)> = (0..5000).map(|i| (1e9 + 60.0 * i as f64, 3.0)).collect();
        let after: Vec<(f64, f64)> = (0..10).map(|i| (2e9 + 60.0 * i as f64, 2.0)).collect();
        let c = layout(&TimeSeriesInput {
            title: "rt".into(),
            quantity: "rt".into(),
            unit: "ms".into(),
            lines: vec![("before".into(), before.clone()), ("after".into(), after)],
            elapsed: true,
            prefixes: fmt::Prefixes::Decimal,
            local_time: true,
        });
        assert_eq!(c.lines[1].points[0].0, 0.0);
        assert_eq!(c.lines[0].points[0].0, 0.0);
        assert!(c.lines[0].points.len() <= MAX_POINTS);
        assert_eq!(c.x.caption, "Elapsed time");
        // The value axis names its quantity (a time unit is on its ticks).
        assert_eq!(c.y.caption, "rt");
        assert!(
            c.y.ticks.iter().any(|t| t.1.contains("ms")),
            "{:?}",
            c.y.ticks
        );
        // tsar's times are local as printed: not called UTC.
        let minutes: Vec<(f64, f64)> = (0..10)
            .map(|i| (1_365_898_860.0 + 60.0 * i as f64, 3.0))
            .collect();
        let local = |local_time| {
            layout(&TimeSeriesInput {
                title: "rt".into(),
                quantity: "rt".into(),
                unit: "ms".into(),
                lines: vec![("before".into(), minutes.clone())],
                elapsed: false,
                prefixes: fmt::Prefixes::Decimal,
                local_time,
            })
            .x
        };
        assert_eq!(local(true).caption, LOCAL_TIME);
        assert_eq!(local(false).caption, "Time (UTC)");
        // The values read back as the clock printed them, not as UTC.
        assert_eq!(local(true).read(1_365_898_860.0), "2013-04-14 00:21:00");
        assert_eq!(
            local(false).read(1_365_898_860.0),
            "2013-04-14 00:21:00 UTC"
        );
    }
}
