//! Throughput against latency: one line per percentile (median over the runs at each
//! rate, min–max as a band), the knee and the highest throughput within the SLO marked
//! as vertical lines, SLO limits as horizontal ones.

use super::axis::value_axis;
use super::chart::{self, Band, Line, LineChart, Note};
use super::fmt;
use super::style::{self, Dash, Marker};
pub use crate::analysis::charts::curve::{CurveInput, CurveLine, CurvePoint};
use anyhow::Result;

/// Draws the chart.
pub fn render(input: &CurveInput) -> Result<String> {
    chart::render(&layout(input))
}

/// The chart in axis space.
pub fn layout(input: &CurveInput) -> LineChart {
    let x = value_axis(
        &fmt::axis_caption(&input.throughput_caption, &input.throughput_unit),
        &input.throughput_unit,
        input
            .lines
            .iter()
            .flat_map(|l| l.points.iter().map(|p| p.throughput))
            .chain(input.knee),
        true,
        false,
    );
    let y = value_axis(
        "Latency",
        &input.unit,
        input
            .lines
            .iter()
            .flat_map(|l| l.points.iter().flat_map(|p| [p.min, p.max, p.value]))
            .chain(input.slo.iter().map(|s| s.1)),
        true,
        true,
    );
    let mut bands = Vec::new();
    let mut lines = Vec::new();
    for (i, l) in input.lines.iter().enumerate() {
        let mut pts = l.points.clone();
        pts.sort_by(|a, b| a.throughput.total_cmp(&b.throughput));
        let map = |v: f64, t: f64| y.map(v).map(|yv| (t, yv));
        let line = Line::nth(
            i,
            format!(
                "p{}",
                fmt::percentile_name(l.percentile).trim_end_matches('%')
            ),
            pts.iter()
                .filter_map(|p| map(p.value, p.throughput))
                .collect(),
        );
        if pts.iter().any(|p| p.max > p.min) {
            bands.push(Band {
                name: String::new(),
                upper: pts
                    .iter()
                    .filter_map(|p| map(p.max, p.throughput))
                    .collect(),
                lower: pts
                    .iter()
                    .filter_map(|p| map(p.min, p.throughput))
                    .collect(),
                color: line.color,
                opacity: 0.15,
            });
        }
        lines.push(line);
    }
    let mut notes = Vec::new();
    let mut vertical = |at: f64, name: String, color| {
        lines.push(Line {
            name: name.clone(),
            points: vec![(at, y.lo), (at, y.hi)],
            color,
            dash: Dash::Dashed(6, 4),
            marker: Marker::None,
            width: 1,
        });
        notes.push(Note {
            at: (at, y.hi),
            text: format!(" {name}"),
        });
    };
    if let Some(k) = input.knee {
        vertical(k, format!("knee {}", fmt::human(k, "")), style::GREY);
    }
    if let Some(m) = input.max_within_slo {
        vertical(m, format!("max in SLO {}", fmt::human(m, "")), style::SLO);
    }
    for (p, v) in &input.slo {
        if let Some(yv) = y.map(*v) {
            lines.push(Line::slo(
                format!(
                    "SLO {}≤{}",
                    fmt::percentile_name(*p),
                    fmt::human(*v, &input.unit)
                ),
                vec![(x.lo, yv), (x.hi, yv)],
            ));
        }
    }
    LineChart {
        title: input.title.clone(),
        x,
        y,
        bands,
        lines,
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_knee_and_slo() {
        let pt = |t: f64, v: f64| CurvePoint {
            throughput: t,
            value: v,
            min: v * 0.9,
            max: v * 1.1,
        };
        let input = CurveInput {
            title: "curve".into(),
            throughput_unit: "msg/s".into(),
            throughput_caption: "Throughput".into(),
            unit: "us".into(),
            lines: vec![CurveLine {
                percentile: 90.0,
                points: vec![pt(5000.0, 62.46), pt(10000.0, 70.0), pt(20000.0, 400.0)],
            }],
            knee: Some(10000.0),
            slo: vec![(90.0, 200.0)],
            max_within_slo: Some(10000.0),
        };
        let c = layout(&input);
        let names: Vec<&str> = c.lines.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(
            names,
            ["p90", "knee 10K", "max in SLO 10K", "SLO 90%≤200 µs"]
        );
        assert_eq!(c.bands.len(), 1);
        let svg = render(&input).unwrap();
        assert!(svg.contains("knee 10K"));
    }
}
