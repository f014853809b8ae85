//! The before/after shift (forest) plot: the change of every compared cell (per
//! percentile or per metric) as a point with its confidence-interval bar, coloured and
//! shaped by verdict, around a zero line. The change axis is log(candidate/baseline),
//! labelled in percent, so +100% and −50% sit equally far from zero and one huge change
//! does not flatten the others. Horizontal, so long names stay readable.

use super::axis::{Axis, Reading, Scale, log_ratio_axis};
use super::chart::{
    Area, LegendEntry, Ticked, add_hover, draw_legend, hover_target, legend_height,
};
use super::fmt;
use super::style::{self, Dash, Marker};
use crate::analysis::pairing::Delta;
use anyhow::{Result, anyhow};
use plotters::prelude::*;

/// Names longer than this are cut on the axis (tables show them whole).
const NAME_CHARS: usize = 48;

/// The position of a change in percent on the log-ratio axis; changes of −100% or
/// less (a ratio of zero or below) are pinned at the axis' low end.
fn pos(pct: f64, axis: &Axis) -> f64 {
    if pct > -100.0 {
        (1.0 + pct / 100.0).log10().max(axis.lo)
    } else {
        axis.lo
    }
}

/// One row of the plot.
#[derive(Debug, Clone, PartialEq)]
pub struct ShiftRow {
    pub name: String,
    pub delta_pct: Option<f64>,
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
    /// `better`, `worse`, `same`, `insufficient`, `n/a`.
    pub verdict: String,
}

/// What the shift plot draws.
#[derive(Debug, Clone, PartialEq)]
pub struct ShiftInput {
    pub title: String,
    pub rows: Vec<ShiftRow>,
}

impl ShiftInput {
    /// The plot of a list of deltas (cells without a delta are left out).
    pub fn from_deltas(title: impl Into<String>, deltas: &[Delta]) -> Self {
        let rows = deltas
            .iter()
            .filter(|d| d.delta_pct.is_some())
            .map(|d| ShiftRow {
                name: d.name(),
                delta_pct: d.delta_pct,
                ci_low: d.ci_low,
                ci_high: d.ci_high,
                verdict: d.verdict.clone(),
            })
            .collect();
        ShiftInput {
            title: title.into(),
            rows,
        }
    }
}

/// Draws the plot; an empty plot when no row has a delta.
pub fn render(input: &ShiftInput) -> Result<String> {
    let rows: Vec<&ShiftRow> = input
        .rows
        .iter()
        .filter(|r| r.delta_pct.is_some())
        .collect();
    let n = rows.len().max(1);
    let height = (90 + 26 * n as u32).max(200);
    let x = log_ratio_axis(
        "Change, candidate against baseline (log scale)",
        rows.iter()
            .flat_map(|r| [r.delta_pct, r.ci_low, r.ci_high])
            .flatten(),
    );
    let name_chars = rows
        .iter()
        .map(|r| r.name.chars().count().min(NAME_CHARS))
        .max()
        .unwrap_or(4) as u32;
    let ticks = rows
        .iter()
        .enumerate()
        .map(|(i, r)| ((n - 1 - i) as f64, fmt::ellipsize(&r.name, NAME_CHARS)))
        .collect();
    let y = Axis {
        caption: String::new(),
        lo: -0.7,
        hi: n as f64 - 0.3,
        ticks,
        scale: Scale::Linear,
        reading: Reading::Plain,
    };
    let mut verdicts: Vec<&str> = rows.iter().map(|r| r.verdict.as_str()).collect();
    verdicts.sort_unstable();
    verdicts.dedup();
    let entries: Vec<LegendEntry> = verdicts
        .iter()
        .map(|v| {
            let (color, marker) = style::verdict_look(v);
            LegendEntry {
                name: v,
                color,
                dash: Dash::Solid,
                marker,
                swatch: None,
            }
        })
        .collect();
    let legend_h = legend_height(&entries, style::WIDTH);
    let mut hover = Vec::new();

    let mut svg = String::new();
    {
        let err = |e: String| anyhow!("drawing chart {:?}: {e}", input.title);
        let root = SVGBackend::with_string(&mut svg, (style::WIDTH, height + legend_h))
            .into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
        let (plot, legend_area) = root.split_vertically(height);
        let mut chart = ChartBuilder::on(&plot)
            .caption(
                fmt::ellipsize(&input.title, style::TITLE_CHARS),
                (style::FONT, 20),
            )
            .margin(12)
            .margin_right(36)
            .x_label_area_size(52)
            .y_label_area_size(24 + 8 * name_chars)
            .build_cartesian_2d(Ticked::of(&x), Ticked::of(&y))
            .map_err(|e| err(e.to_string()))?;
        let xl = |v: &f64| x.label(*v);
        let yl = |v: &f64| y.label(*v);
        chart
            .configure_mesh()
            .x_desc(x.caption.as_str())
            .x_label_formatter(&xl)
            .y_label_formatter(&yl)
            .label_style((style::FONT, 15))
            .axis_desc_style((style::FONT, 16))
            .bold_line_style(RGBColor(230, 230, 230))
            .draw()
            .map_err(|e| err(e.to_string()))?;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(0.0, y.lo), (0.0, y.hi)],
                style::GREY.stroke_width(1),
            )))
            .map_err(|e| err(e.to_string()))?;
        let font = (style::FONT, 14).into_font().color(&BLACK);
        for (i, r) in rows.iter().enumerate() {
            let yv = (n - 1 - i) as f64;
            let (color, marker) = style::verdict_look(&r.verdict);
            if let (Some(lo), Some(hi)) = (r.ci_low, r.ci_high) {
                let (lo, hi) = (pos(lo, &x), pos(hi, &x));
                let st = color.stroke_width(2);
                let cap = |xv: f64| {
                    EmptyElement::at((xv, yv)) + PathElement::new(vec![(0, -6), (0, 6)], st)
                };
                chart
                    .draw_series([PathElement::new(vec![(lo, yv), (hi, yv)], st)])
                    .map_err(|e| err(e.to_string()))?;
                chart
                    .draw_series([cap(lo), cap(hi)])
                    .map_err(|e| err(e.to_string()))?;
            }
            let Some(pct) = r.delta_pct else { continue };
            let d = pos(pct, &x);
            let at = (d, yv);
            let ci = match (r.ci_low, r.ci_high) {
                (Some(lo), Some(hi)) => {
                    format!(", 95% CI {} … {}", fmt::signed_pct(lo), fmt::signed_pct(hi))
                }
                _ => String::new(),
            };
            hover.push(hover_target(
                chart.backend_coord(&at),
                &format!("{}: {}{ci}, {}", r.name, fmt::signed_pct(pct), r.verdict),
            ));
            let st = color.filled();
            match marker {
                Marker::Triangle => chart
                    .draw_series([TriangleMarker::new(at, 6, st)])
                    .map(|_| ()),
                Marker::Square => chart
                    .draw_series([EmptyElement::at(at) + Rectangle::new([(-5, -5), (5, 5)], st)])
                    .map(|_| ()),
                _ => chart.draw_series([Circle::new(at, 5, st)]).map(|_| ()),
            }
            .map_err(|e| err(e.to_string()))?;
            // The value is written right of the point and its interval, clear of both.
            let right = r.ci_high.map_or(d, |hi| pos(hi, &x).max(d));
            let label = EmptyElement::at((right, yv))
                + Text::new(fmt::signed_pct(pct), (9, -7), font.clone());
            chart.draw_series([label]).map_err(|e| err(e.to_string()))?;
        }
        draw_legend(&legend_area as &Area, &entries).map_err(err)?;
        root.present().map_err(|e| err(e.to_string()))?;
    }
    add_hover(&mut svg, &hover);
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_rows_bars_and_escaped_names() {
        let input = ShiftInput {
            title: "after vs before".into(),
            rows: vec![
                ShiftRow {
                    name: "<script>alert(1)</script>".into(),
                    delta_pct: Some(-12.58),
                    ci_low: Some(-15.0),
                    ci_high: Some(-10.0),
                    verdict: "better".into(),
                },
                ShiftRow {
                    name: "cpu.util".into(),
                    delta_pct: Some(2.51),
                    ci_low: None,
                    ci_high: None,
                    verdict: "worse".into(),
                },
            ],
        };
        let svg = render(&input).unwrap();
        assert!(!svg.contains("<script>"));
        assert!(svg.contains("&lt;script&gt;"));
        assert!(svg.contains("−12.6%"));
        assert!(svg.contains("+2.5%"));
    }
}
