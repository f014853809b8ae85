//! History: for each label, target rate and metric of a suite whose runs come from
//! several ingests (runs of different labels or rates are different experiments and never
//! share a line), the value
//! at each percentile run after run in ingest order, with a noise band (median ±
//! 2 robust standard deviations) so a step out of the band stands out.

use super::axis::{index_axis, nice_ticks, value_axis};
use super::chart::{self, Band, Line, LineChart};
use super::fmt;
use super::series::{MAX_POINTS, decimate};
pub use crate::analysis::charts::history::{HistoryInput, HistoryLine};
use anyhow::Result;

/// Draws the chart; each point's hover text says which run it is.
pub fn render(input: &HistoryInput) -> Result<String> {
    chart::render_with(&layout(input), &|x| {
        let k = x.round();
        (k >= 1.0 && (k - x).abs() < 1e-9)
            .then(|| input.runs.get(k as usize - 1).cloned())
            .flatten()
    })
}

/// The chart in axis space.
pub fn layout(input: &HistoryInput) -> LineChart {
    let n = input
        .lines
        .iter()
        .map(|l| l.values.len())
        .max()
        .unwrap_or(1)
        .max(2);
    let ticks = nice_ticks(1.0, n as f64, 8)
        .into_iter()
        .filter(|t| t.fract() == 0.0)
        .map(|t| (t, format!("{t}")))
        .collect();
    let x = index_axis("Run, in ingest order", n, ticks);
    let caption = fmt::axis_caption(&input.quantity, &input.unit);
    let y = value_axis(
        &caption,
        &input.unit,
        input.lines.iter().flat_map(|l| {
            l.values
                .iter()
                .flatten()
                .copied()
                .chain(l.band.into_iter().flat_map(|b| [b.0, b.1]))
        }),
        false,
        false,
    );
    let mut bands = Vec::new();
    let mut lines = Vec::new();
    for (i, l) in input.lines.iter().enumerate() {
        let pts: Vec<(f64, f64)> = l
            .values
            .iter()
            .enumerate()
            .filter_map(|(j, v)| v.map(|v| ((j + 1) as f64, v)))
            .collect();
        let line = Line::nth(i, l.name.clone(), decimate(&pts, MAX_POINTS));
        if let Some((lo, hi)) = l.band {
            bands.push(Band {
                name: if i == 0 {
                    "noise band (median ± 2σ)".to_string()
                } else {
                    String::new()
                },
                upper: vec![(x.lo, hi), (x.hi, hi)],
                lower: vec![(x.lo, lo), (x.hi, lo)],
                color: line.color,
                opacity: 0.12,
            });
        }
        lines.push(line);
    }
    LineChart {
        title: input.title.clone(),
        x,
        y,
        bands,
        lines,
        notes: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_histories_are_bounded() {
        let values = (0..10_000).map(|i| Some((i % 7) as f64)).collect();
        let input = HistoryInput {
            title: "h".into(),
            quantity: "p99".into(),
            unit: "us".into(),
            lines: vec![HistoryLine {
                name: "p99".into(),
                values,
                band: Some((1.0, 5.0)),
            }],
            runs: (0..10_000).map(|i| format!("run {i}")).collect(),
        };
        let c = layout(&input);
        assert!(c.lines[0].points.len() <= MAX_POINTS);
        let svg = render(&input).unwrap();
        assert!(svg.len() < 1_000_000);
        // Each drawn point says which run it is.
        assert!(
            svg.contains(" at 9499 · run 9498</title>"),
            "{}",
            &svg[svg.len() - 2000..]
        );
    }
}
