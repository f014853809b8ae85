//! The one line-chart renderer behind the spectrum, curve, time-series, before/after
//! and history charts: axes with labelled ticks, shaded bands, lines with colour, dash
//! and markers, text notes and a legend, drawn with plotters' SVG backend into a
//! String. Inputs are already in axis space (see [`super::axis`]); nothing here knows
//! about runs or percentiles.

use super::axis::Axis;
use super::fmt;
use super::style::{self, Dash, Marker};
use anyhow::{Result, anyhow};
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::element::DashedPathElement;
use plotters::prelude::*;

/// Markers are drawn on at most this many points of a line; longer lines get every
/// n-th point marked so the SVG stays small.
const MAX_MARKERS: usize = 40;
/// Points of a line with a hover text, at most: every point of all but the longest
/// lines (decimated ones), so that an SVG stays under a megabyte.
const MAX_HOVER: usize = 300;

/// One polyline.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// Legend text; empty for no legend entry.
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub color: RGBColor,
    pub dash: Dash,
    pub marker: Marker,
    pub width: u32,
}

impl Line {
    /// A line in the `i`-th look of the palette.
    pub fn nth(i: usize, name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        let (color, dash, marker) = style::line_look(i);
        Line {
            name: name.into(),
            points,
            color,
            dash,
            marker,
            width: 2,
        }
    }

    /// An SLO limit: dashed, in the SLO colour.
    pub fn slo(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Line {
            name: name.into(),
            points,
            color: style::SLO,
            dash: Dash::Dashed(10, 4),
            marker: Marker::None,
            width: 2,
        }
    }
}

/// A shaded area between two lines that share their x positions.
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    /// Legend text; empty for no legend entry.
    pub name: String,
    pub upper: Vec<(f64, f64)>,
    pub lower: Vec<(f64, f64)>,
    pub color: RGBColor,
    pub opacity: f64,
}

/// A text note at a point (e.g. the knee).
#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    pub at: (f64, f64),
    pub text: String,
}

/// A complete line chart.
#[derive(Debug, Clone, PartialEq)]
pub struct LineChart {
    pub title: String,
    pub x: Axis,
    pub y: Axis,
    pub bands: Vec<Band>,
    pub lines: Vec<Line>,
    pub notes: Vec<Note>,
}

/// Height of one legend row under the plot, pixels.
const LEGEND_ROW: u32 = 22;
/// Legend names longer than this are cut with an ellipsis (the page lists them whole).
const LEGEND_CHARS: usize = 60;
/// Legend rows drawn at most; further entries are counted.
const LEGEND_MAX_ROWS: usize = 6;

pub(super) type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;
type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<Ticked, Ticked>>;

/// Draws one marker at a pixel position of a drawing area.
pub(super) fn draw_marker(
    area: &Area,
    at: (i32, i32),
    marker: Marker,
    color: RGBColor,
) -> Result<(), String> {
    let st = color.filled();
    let r = match marker {
        Marker::None => Ok(()),
        Marker::Circle => area.draw(&Circle::new(at, 3, st)),
        Marker::Triangle => area.draw(&TriangleMarker::new(at, 4, st)),
        Marker::Cross => area.draw(&Cross::new(at, 4, color.stroke_width(2))),
        Marker::Square => area.draw(&Rectangle::new(
            [(at.0 - 3, at.1 - 3), (at.0 + 3, at.1 + 3)],
            st,
        )),
    };
    r.map_err(|e| e.to_string())
}

/// Draws a line's markers in data space, every n-th point when the line is long.
fn draw_markers(chart: &mut Chart, line: &Line) -> Result<(), String> {
    let every = line.points.len().div_ceil(MAX_MARKERS).max(1);
    let pts = line.points.iter().step_by(every).copied();
    let (st, color) = (line.color.filled(), line.color);
    let r = match line.marker {
        Marker::None => return Ok(()),
        Marker::Circle => chart
            .draw_series(pts.map(|p| Circle::new(p, 3, st)))
            .map(|_| ()),
        Marker::Triangle => chart
            .draw_series(pts.map(|p| TriangleMarker::new(p, 4, st)))
            .map(|_| ()),
        Marker::Cross => chart
            .draw_series(pts.map(|p| Cross::new(p, 4, color.stroke_width(2))))
            .map(|_| ()),
        Marker::Square => chart
            .draw_series(pts.map(|p| EmptyElement::at(p) + Rectangle::new([(-3, -3), (3, 3)], st)))
            .map(|_| ()),
    };
    r.map_err(|e| e.to_string())
}

/// One legend entry: a sample of the line (or a swatch for a band) and its name.
pub(super) struct LegendEntry<'a> {
    pub(super) name: &'a str,
    pub(super) color: RGBColor,
    pub(super) dash: Dash,
    pub(super) marker: Marker,
    /// Band swatch opacity; `None` for a line.
    pub(super) swatch: Option<f64>,
}

/// Entry positions of a legend laid out in rows under the plot: (row, x) per entry
/// drawn, and how many entries did not fit.
fn legend_layout(entries: &[LegendEntry], width: u32) -> (Vec<(usize, i32)>, usize) {
    let mut out = Vec::new();
    let (mut row, mut x) = (0usize, 12i32);
    for e in entries {
        // About 8 px per character at 15 px, plus the sample and a gap.
        let w = 34 + 6 + 8 * fmt::ellipsize(e.name, LEGEND_CHARS).chars().count() as i32 + 18;
        if x + w > width as i32 - 12 && x > 12 {
            row += 1;
            x = 12;
        }
        if row >= LEGEND_MAX_ROWS {
            break;
        }
        out.push((row, x));
        x += w;
    }
    let left = entries.len() - out.len();
    (out, left)
}

/// Height of the legend strip for these entries, pixels (0 without entries).
pub(super) fn legend_height(entries: &[LegendEntry], width: u32) -> u32 {
    if entries.is_empty() {
        return 0;
    }
    let (pos, left) = legend_layout(entries, width);
    let rows = pos.last().map_or(0, |p| p.0 + 1) + usize::from(left > 0);
    rows as u32 * LEGEND_ROW + 8
}

/// Draws the legend in rows across the strip under the plot, so the plot keeps the
/// chart's whole width.
pub(super) fn draw_legend(area: &Area, entries: &[LegendEntry]) -> Result<(), String> {
    let font = (style::FONT, 15).into_font().color(&BLACK);
    let width = area.dim_in_pixel().0;
    let (pos, left) = legend_layout(entries, width);
    for (e, (row, x)) in entries.iter().zip(&pos) {
        let y = 12 + (LEGEND_ROW as i32) * *row as i32;
        let (x0, x1) = (*x, *x + 26);
        let st = e.color.stroke_width(2);
        let drawn = if let Some(opacity) = e.swatch {
            area.draw(&Rectangle::new(
                [(x0, y - 5), (x1, y + 5)],
                e.color.mix(opacity).filled(),
            ))
        } else {
            match e.dash {
                Dash::Solid => area.draw(&PathElement::new(vec![(x0, y), (x1, y)], st)),
                Dash::Dashed(len, gap) => area.draw(&DashedPathElement::new(
                    vec![(x0, y), (x1, y)],
                    len,
                    gap,
                    st,
                )),
            }
        };
        drawn.map_err(|e| e.to_string())?;
        draw_marker(area, ((x0 + x1) / 2, y), e.marker, e.color)?;
        let name = fmt::ellipsize(e.name, LEGEND_CHARS);
        area.draw(&Text::new(name, (x1 + 6, y - 7), font.clone()))
            .map_err(|e| e.to_string())?;
    }
    if left > 0 {
        let more = format!("… and {left} more");
        let y = 12 + (LEGEND_ROW as i32) * pos.last().map_or(0, |p| p.0 as i32 + 1);
        area.draw(&Text::new(more, (12, y - 7), font))
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// An invisible target over a point whose `<title>` the browser shows on hover.
pub(super) fn hover_target(at: (i32, i32), text: &str) -> String {
    format!(
        "<circle cx=\"{}\" cy=\"{}\" r=\"7\" fill=\"#000\" fill-opacity=\"0\" pointer-events=\"all\"><title>{}</title></circle>\n",
        at.0,
        at.1,
        fmt::escape(text)
    )
}

/// Inserts hover targets at the end of an SVG document, above everything drawn.
pub(super) fn add_hover(svg: &mut String, targets: &[String]) {
    if targets.is_empty() {
        return;
    }
    if let Some(end) = svg.rfind("</svg>") {
        svg.insert_str(end, &targets.concat());
    }
}

/// A linear coordinate whose tick marks are exactly the axis' ticks. plotters' own
/// key-point binding drops the f64 label formatter, so this small `Ranged` stands in.
#[derive(Debug, Clone)]
pub struct Ticked {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
}

impl Ticked {
    /// The coordinate of an axis.
    pub fn of(axis: &Axis) -> Self {
        let (lo, hi) = if axis.hi > axis.lo {
            (axis.lo, axis.hi)
        } else {
            (axis.lo, axis.lo + 1.0)
        };
        Ticked {
            lo,
            hi,
            ticks: axis.tick_positions(),
        }
    }
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let frac = (value - self.lo) / (self.hi - self.lo);
        let px = limit.0 as f64 + frac * (limit.1 - limit.0) as f64;
        // Far outliers are pinned just outside the plot instead of overflowing i32.
        px.clamp(-1e6, 1e6).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            return Vec::new();
        }
        self.ticks
            .iter()
            .copied()
            .filter(|t| *t >= self.lo && *t <= self.hi)
            .collect()
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

/// Draws the chart; the SVG as a String. Every drawn point of a line with markers (every
/// n-th past [`MAX_HOVER`]) has a hover `<title>`: the line, the value with its unit and
/// the x position.
pub fn render(c: &LineChart) -> Result<String> {
    render_with(c, &|_| None)
}

/// [`render`], with `about(x)` adding what the point at `x` is (a run, a commit) to its
/// hover text.
pub fn render_with(c: &LineChart, about: &dyn Fn(f64) -> Option<String>) -> Result<String> {
    let mut svg = String::new();
    let hover = draw(c, about, &mut svg)?;
    add_hover(&mut svg, &hover);
    Ok(svg)
}

/// Draws the chart; returns the hover targets of its points.
fn draw(
    c: &LineChart,
    about: &dyn Fn(f64) -> Option<String>,
    svg: &mut String,
) -> Result<Vec<String>> {
    let err = |e: String| anyhow!("drawing chart {:?}: {e}", c.title);
    let mut legend: Vec<LegendEntry> = Vec::new();
    for b in c.bands.iter().filter(|b| !b.name.is_empty()) {
        legend.push(LegendEntry {
            name: &b.name,
            color: b.color,
            dash: Dash::Solid,
            marker: Marker::None,
            swatch: Some(b.opacity),
        });
    }
    for l in c.lines.iter().filter(|l| !l.name.is_empty()) {
        legend.push(LegendEntry {
            name: &l.name,
            color: l.color,
            dash: l.dash,
            marker: l.marker,
            swatch: None,
        });
    }
    let legend_h = legend_height(&legend, style::WIDTH);
    let root =
        SVGBackend::with_string(svg, (style::WIDTH, style::HEIGHT + legend_h)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let (plot_area, legend_area) = if legend.is_empty() {
        (root.clone(), None)
    } else {
        let (p, l) = root.split_vertically(style::HEIGHT);
        (p, Some(l))
    };
    let mut chart = ChartBuilder::on(&plot_area)
        .caption(
            fmt::ellipsize(&c.title, style::TITLE_CHARS),
            (style::FONT, 20),
        )
        .margin(12)
        .margin_right(36)
        .x_label_area_size(52)
        .y_label_area_size(96)
        .build_cartesian_2d(Ticked::of(&c.x), Ticked::of(&c.y))
        .map_err(|e| err(e.to_string()))?;
    let x_label = |v: &f64| c.x.label(*v);
    let y_label = |v: &f64| c.y.label(*v);
    chart
        .configure_mesh()
        .x_desc(c.x.caption.as_str())
        .y_desc(c.y.caption.as_str())
        .x_label_formatter(&x_label)
        .y_label_formatter(&y_label)
        .label_style((style::FONT, 15))
        .axis_desc_style((style::FONT, 16))
        .bold_line_style(RGBColor(225, 225, 225))
        .draw()
        .map_err(|e| err(e.to_string()))?;

    for band in &c.bands {
        let mut outline = band.upper.clone();
        outline.extend(band.lower.iter().rev().copied());
        let fill = band.color.mix(band.opacity).filled();
        chart
            .draw_series(std::iter::once(Polygon::new(outline, fill)))
            .map_err(|e| err(e.to_string()))?;
    }

    for line in &c.lines {
        let st = line.color.stroke_width(line.width);
        match line.dash {
            Dash::Solid => chart
                .draw_series(std::iter::once(PathElement::new(line.points.clone(), st)))
                .map(|_| ()),
            Dash::Dashed(len, gap) => chart
                .draw_series(std::iter::once(DashedPathElement::new(
                    line.points.clone(),
                    len,
                    gap,
                    st,
                )))
                .map(|_| ()),
        }
        .map_err(|e| err(e.to_string()))?;
        draw_markers(&mut chart, line).map_err(err)?;
    }

    for note in &c.notes {
        let text = Text::new(
            note.text.clone(),
            note.at,
            (style::FONT, 14).into_font().color(&BLACK),
        );
        chart
            .draw_series(std::iter::once(text))
            .map_err(|e| err(e.to_string()))?;
    }
    let mut hover = Vec::new();
    for line in c.lines.iter().filter(|l| l.marker != Marker::None) {
        let every = line.points.len().div_ceil(MAX_HOVER).max(1);
        for p in line.points.iter().step_by(every) {
            let mut text = format!(
                "{}{}{} at {}",
                line.name,
                if line.name.is_empty() { "" } else { ": " },
                c.y.read(p.1),
                c.x.read(p.0)
            );
            if let Some(a) = about(p.0) {
                text.push_str(" · ");
                text.push_str(&a);
            }
            hover.push(hover_target(chart.backend_coord(p), &text));
        }
    }
    if let Some(area) = legend_area {
        draw_legend(&area, &legend).map_err(err)?;
    }
    root.present().map_err(|e| err(e.to_string()))?;
    Ok(hover)
}

#[cfg(test)]
mod tests {
    use super::super::{curve, history, shift, spectrum, timeseries};

    /// Degenerate inputs draw (possibly empty) charts instead of failing or panicking.
    #[test]
    fn degenerate_inputs_draw() {
        let nan = f64::NAN;
        let spec = spectrum::SpectrumInput {
            title: String::new(),
            unit: "us".into(),
            runs: vec![
                ("a".into(), vec![]),
                (
                    "b".into(),
                    vec![(50.0, nan), (100.0, -1.0), (99.0, f64::INFINITY)],
                ),
            ],
            slo: vec![(99.0, 0.0)],
            warm_up: Some(1),
        };
        assert!(spectrum::render(&spec).is_ok());
        let ts = timeseries::TimeSeriesInput {
            title: "t".into(),
            quantity: "t".into(),
            unit: String::new(),
            lines: vec![("x".into(), vec![]), ("y".into(), vec![(5.0, 1.0)])],
            elapsed: true,
            prefixes: super::super::fmt::Prefixes::Decimal,
            local_time: false,
        };
        assert!(timeseries::render(&ts).is_ok());
        let sh = shift::ShiftInput {
            title: "s".into(),
            rows: vec![],
        };
        assert!(shift::render(&sh).is_ok());
        let h = history::HistoryInput {
            title: "h".into(),
            quantity: "h".into(),
            unit: "ms".into(),
            lines: vec![],
            runs: vec![],
        };
        assert!(history::render(&h).is_ok());
        let c = curve::CurveInput {
            title: "c".into(),
            throughput_unit: String::new(),
            throughput_caption: String::new(),
            unit: "us".into(),
            lines: vec![],
            knee: Some(nan),
            slo: vec![],
            max_within_slo: None,
        };
        assert!(curve::render(&c).is_ok());
    }
}
