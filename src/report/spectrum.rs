//! The percentile spectrum: latency against percentile on a log 1/(1−p) axis (as
//! HdrHistogram's plotter draws it), one line per run with the min–max band across
//! runs shaded, or, beyond [`MAX_RUN_LINES`] runs, the median with percentile bands;
//! a warm-up run dashed in grey, outside the band; an SLO drawn as a step line.

use super::axis::{PercentileAxis, value_axis};
use super::chart::{self, Band, Line, LineChart, Note};
use super::fmt;
use super::series::{by_percentile, quantile_sorted};
use super::style::{self, Dash, Marker, PALETTE};
pub use crate::analysis::charts::spectrum::SpectrumInput;
use anyhow::Result;

/// Above this many runs, lines give way to a median and bands.
pub const MAX_RUN_LINES: usize = 20;

/// Draws the chart.
pub fn render(input: &SpectrumInput) -> Result<String> {
    chart::render(&layout(input))
}

/// The chart in axis space.
pub fn layout(input: &SpectrumInput) -> LineChart {
    let ladders: Vec<&[(f64, f64)]> = input.runs.iter().map(|r| r.1.as_slice()).collect();
    let per_pct = by_percentile(ladders.iter().copied());
    // The band and the median leave the warm-up run out; the axes still show it.
    let measured: Vec<&[(f64, f64)]> = ladders
        .iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) != input.warm_up)
        .map(|(_, l)| *l)
        .collect();
    let band_pct = by_percentile(measured.iter().copied());
    let px = PercentileAxis::new(
        per_pct
            .iter()
            .map(|p| p.0)
            .chain(input.slo.iter().map(|s| s.0)),
    );
    let caption = if input.unit.trim().is_empty() {
        // hdr percentile dumps and .hlog files carry no unit: say so rather than guess.
        "Latency (unit not printed by the tool)".to_string()
    } else {
        fmt::axis_caption("Latency", &input.unit)
    };
    let y = value_axis(
        &caption,
        &input.unit,
        per_pct
            .iter()
            .flat_map(|p| p.1.iter().copied())
            .chain(input.slo.iter().map(|s| s.1)),
        true,
        true,
    );
    let at = |p: f64, v: f64| y.map(v).map(|yv| (px.map(p), yv));
    let ladder_points = |ladder: &[(f64, f64)]| {
        let mut pts: Vec<(f64, f64)> = ladder.iter().filter_map(|(p, v)| at(*p, *v)).collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        pts
    };
    // The band and the summary lines are taken where every run has the percentile,
    // so a short ladder does not pull the band in.
    let quant = |q: f64| -> Vec<(f64, f64)> {
        band_pct
            .iter()
            .filter_map(|(p, v)| quantile_sorted(v, q).and_then(|val| at(*p, val)))
            .collect()
    };
    let mut bands = Vec::new();
    let mut lines = Vec::new();
    let warm_up_note = if input.warm_up.is_some() {
        " (warm-up left out)"
    } else {
        ""
    };
    if input.runs.len() > MAX_RUN_LINES {
        let n = measured.len();
        bands.push(Band {
            name: format!("min–max of {n} runs{warm_up_note}"),
            upper: quant(1.0),
            lower: quant(0.0),
            color: PALETTE[0],
            opacity: 0.15,
        });
        bands.push(Band {
            name: "10th–90th pct of runs".to_string(),
            upper: quant(0.9),
            lower: quant(0.1),
            color: PALETTE[0],
            opacity: 0.3,
        });
        lines.push(Line {
            name: "median run".to_string(),
            points: quant(0.5),
            color: PALETTE[4],
            dash: Dash::Solid,
            marker: Marker::Circle,
            width: 2,
        });
    } else {
        if measured.len() > 1 {
            bands.push(Band {
                name: format!("min–max across runs{warm_up_note}"),
                upper: quant(1.0),
                lower: quant(0.0),
                color: style::GREY,
                opacity: 0.35,
            });
        }
        for (i, (name, ladder)) in input.runs.iter().enumerate() {
            if Some(i) != input.warm_up {
                lines.push(Line::nth(i, name.clone(), ladder_points(ladder)));
            }
        }
    }
    if let Some((name, ladder)) = input.warm_up.and_then(|i| input.runs.get(i)) {
        lines.push(Line {
            name: name.clone(),
            points: ladder_points(ladder),
            color: style::GREY,
            dash: Dash::Dashed(6, 4),
            marker: Marker::Circle,
            width: 1,
        });
    }
    let mut notes = Vec::new();
    if !input.slo.is_empty() {
        // Each step is labelled where it ends, so the legend needs only "SLO".
        for (p, v) in &input.slo {
            if let Some(yv) = y.map(*v) {
                notes.push(Note {
                    at: (px.map(*p), yv),
                    text: slo_term(*p, *v, &input.unit),
                });
            }
        }
        lines.push(Line::slo("SLO", slo_steps(&input.slo, &px, &y, px.axis.lo)));
    }
    LineChart {
        title: input.title.clone(),
        x: px.axis.clone(),
        y,
        bands,
        lines,
        notes,
    }
}

/// The SLO as a step function: each limit holds from the previous term's percentile up
/// to its own (HdrHistogram's SLA step lines).
fn slo_steps(
    slo: &[(f64, f64)],
    px: &PercentileAxis,
    y: &super::axis::Axis,
    x0: f64,
) -> Vec<(f64, f64)> {
    let mut pts = Vec::new();
    let mut x = x0;
    for (p, v) in slo {
        let Some(yv) = y.map(*v) else { continue };
        pts.push((x, yv));
        x = px.map(*p);
        pts.push((x, yv));
    }
    pts
}

fn slo_term(p: f64, v: f64, unit: &str) -> String {
    format!("{} ≤ {}", fmt::percentile_name(p), fmt::human(v, unit))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ladder(scale: f64) -> Vec<(f64, f64)> {
        [
            (50.0, 30.0),
            (90.0, 60.0),
            (99.0, 200.0),
            (99.9, 900.0),
            (100.0, 2000.0),
        ]
        .iter()
        .map(|(p, v)| (*p, v * scale))
        .collect()
    }

    #[test]
    fn few_runs_get_one_line_each_and_a_band() {
        let input = SpectrumInput {
            title: "t".into(),
            unit: "us".into(),
            runs: vec![("run 1".into(), ladder(1.0)), ("run 2".into(), ladder(1.2))],
            slo: vec![(99.0, 500.0)],
            warm_up: None,
        };
        let c = layout(&input);
        assert_eq!(c.lines.len(), 3);
        assert_eq!(c.bands.len(), 1);
        assert_eq!(c.bands[0].upper.len(), 5);
        // 90% sits at x = 1 on the 1/(1-p) axis.
        assert!((c.lines[0].points[1].0 - 1.0).abs() < 1e-12);
        assert_eq!(c.lines[2].name, "SLO");
        assert_eq!(c.notes[0].text, "99% ≤ 500 µs");
    }

    #[test]
    fn the_warm_up_run_is_drawn_apart_from_the_band() {
        let input = SpectrumInput {
            title: "t".into(),
            unit: "us".into(),
            runs: vec![
                ("run 1 (warm-up)".into(), ladder(5.0)),
                ("run 2".into(), ladder(1.0)),
                ("run 3".into(), ladder(1.2)),
            ],
            slo: vec![],
            warm_up: Some(0),
        };
        let c = layout(&input);
        // The band spans runs 2 and 3 only: 30 and 36 at the median, not run 1's 150.
        let at_median = |v: f64| c.y.map(v).unwrap();
        assert_eq!(c.bands[0].upper[0].1, at_median(36.0));
        assert_eq!(c.bands[0].lower[0].1, at_median(30.0));
        assert_eq!(c.bands[0].name, "min–max across runs (warm-up left out)");
        // Run 1 is still drawn (last, dashed grey), and the axis reaches its 10,000 µs.
        let warm = c.lines.last().unwrap();
        assert_eq!(warm.name, "run 1 (warm-up)");
        assert_eq!(warm.dash, Dash::Dashed(6, 4));
        assert_eq!(warm.points[4].1, at_median(10_000.0));
        assert_eq!(c.lines.len(), 3);
    }

    #[test]
    fn many_runs_get_median_and_bands() {
        let runs = (0..50)
            .map(|i| (format!("run {i}"), ladder(1.0 + i as f64 / 100.0)))
            .collect();
        let c = layout(&SpectrumInput {
            title: "t".into(),
            unit: "us".into(),
            runs,
            slo: vec![],
            warm_up: None,
        });
        assert_eq!(c.lines.len(), 1);
        assert_eq!(c.bands.len(), 2);
        let svg = render(&SpectrumInput {
            title: "t".into(),
            unit: "us".into(),
            runs: (0..50).map(|i| (format!("r{i}"), ladder(1.0))).collect(),
            slo: vec![],
            warm_up: None,
        })
        .unwrap();
        assert!(svg.contains("median run"));
    }
}
