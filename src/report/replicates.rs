//! The replicate strip of a microbenchmark suite: per benchmark (one group of runs), every
//! replicate as a dot, our quartiles as a box with the median, and the summary the tool
//! printed (JMH score ± error, hyperfine mean ± σ, Criterion's estimate and interval) as
//! a diamond with its interval, so ours and theirs are read on one axis. The value axis
//! starts at zero, or is logarithmic when the benchmarks differ by more than 10×. Every
//! mark has a `<title>` saying what it is. Hand-written SVG: rows of text and marks.

use super::axis::{Axis, log_axis, value_axis_in};
use super::fmt::{self, escape};
use super::style::{self, PALETTE};
pub use crate::analysis::site::{PrintedMark, ReplicatePoint, ReplicateRow, Replicates};

/// Benchmarks whose values differ by more than this factor share a log axis.
pub const LOG_RATIO: f64 = 10.0;

/// Height of one benchmark's row: its name, then its strip.
const ROW: f64 = 54.0;
/// Left and right ends of the plot, in SVG units.
const LEFT: f64 = 24.0;
const RIGHT: f64 = style::WIDTH as f64 - 36.0;
/// Top of the first row: under the title and the key.
const TOP: f64 = 64.0;
/// Room under the rows for the ticks and the axis caption.
const BOTTOM: f64 = 64.0;
/// Benchmark names longer than this are shortened in the middle (the table has them whole).
const NAME_CHARS: usize = 96;

/// The value axis of the chart: from zero, or log10 over the drawn values when they
/// span more than [`LOG_RATIO`].
pub fn axis(input: &Replicates) -> Axis {
    let values: Vec<f64> = input
        .rows
        .iter()
        .flat_map(|r| {
            r.points.iter().map(|p| p.value).chain(
                r.printed
                    .iter()
                    .flat_map(|m| [Some(m.value), m.low, m.high].into_iter().flatten()),
            )
        })
        .filter(|v| v.is_finite())
        .collect();
    let caption = fmt::axis_caption(&input.metric, &input.unit);
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if min > 0.0 && max / min > LOG_RATIO {
        let mut ax = log_axis(&caption, &input.unit, input.prefixes, min, max);
        ax.caption = format!("{caption}, log scale");
        ax
    } else {
        value_axis_in(&caption, &input.unit, input.prefixes, values, true, false)
    }
}

/// Tick font size, SVG units.
const TICK_FONT: f64 = 13.0;

/// The ticks drawn, as (x, label): every tick when their labels fit side by side; on a
/// log axis where they do not, powers of ten alone; then every other one until they fit.
fn tick_marks(ax: &Axis) -> Vec<(f64, String)> {
    let span = if ax.hi > ax.lo { ax.hi - ax.lo } else { 1.0 };
    let at = |pos: f64| LEFT + (pos - ax.lo) / span * (RIGHT - LEFT);
    // Sans-serif glyphs average about 0.55 em; 10 units between labels.
    let width = |t: &str| 0.55 * TICK_FONT * t.chars().count() as f64;
    let fits = |ticks: &[(f64, String)]| {
        ticks
            .windows(2)
            .all(|w| w[1].0 - w[0].0 >= (width(&w[0].1) + width(&w[1].1)) / 2.0 + 10.0)
    };
    let mut ticks: Vec<(f64, String)> = ax.ticks.iter().map(|(p, l)| (at(*p), l.clone())).collect();
    if !fits(&ticks) && ax.scale == super::axis::Scale::Log10 {
        let decades: Vec<(f64, String)> = ax
            .ticks
            .iter()
            .filter(|(p, _)| (p - p.round()).abs() < 1e-9)
            .map(|(p, l)| (at(*p), l.clone()))
            .collect();
        if decades.len() >= 2 {
            ticks = decades;
        }
    }
    while !fits(&ticks) && ticks.len() > 2 {
        ticks = ticks.into_iter().step_by(2).collect();
    }
    ticks
}

/// A small deterministic vertical offset for the `i`-th dot of a row, so equal values
/// stay visible as several dots.
fn jitter(i: usize) -> f64 {
    const OFFSETS: [f64; 7] = [0.0, -5.0, 5.0, -2.5, 2.5, -7.0, 7.0];
    OFFSETS[i % OFFSETS.len()]
}

fn rgb(c: plotters::style::RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

/// Draws the chart.
pub fn render(input: &Replicates) -> String {
    let ax = axis(input);
    let width = style::WIDTH as f64;
    let height = TOP + ROW * input.rows.len() as f64 + BOTTOM;
    let to_x = |v: f64| -> Option<f64> {
        let m = ax.map(v)?;
        let span = if ax.hi > ax.lo { ax.hi - ax.lo } else { 1.0 };
        Some(LEFT + (m - ax.lo) / span * (RIGHT - LEFT))
    };
    let read = |v: f64| fmt::human_in(v, &input.unit, 4, input.prefixes);
    let (ours, theirs) = (rgb(PALETTE[0]), rgb(PALETTE[1]));
    let mut s = format!(
        "<svg width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" xmlns=\"http://www.w3.org/2000/svg\" font-family=\"{}\">\n<rect x=\"0\" y=\"0\" width=\"{width}\" height=\"{height}\" fill=\"#FFFFFF\"/>\n",
        style::FONT
    );
    s.push_str(&format!(
        "<text x=\"{}\" y=\"24\" text-anchor=\"middle\" font-size=\"18\">{}</text>\n",
        width / 2.0,
        escape(&fmt::ellipsize(
            &format!("{}: every replicate per benchmark", input.metric),
            style::TITLE_CHARS
        ))
    ));
    // The key: what each mark is.
    s.push_str(&format!(
        "<g font-size=\"13\"><circle cx=\"{}\" cy=\"44\" r=\"3\" fill=\"{ours}\" fill-opacity=\"0.55\"/><text x=\"{}\" y=\"48\">replicate (one run)</text>\
         <rect x=\"{}\" y=\"38\" width=\"22\" height=\"12\" fill=\"{ours}\" fill-opacity=\"0.18\" stroke=\"{ours}\"/><line x1=\"{}\" y1=\"38\" x2=\"{}\" y2=\"50\" stroke=\"{ours}\" stroke-width=\"2.5\"/><text x=\"{}\" y=\"48\">our median and quartiles</text>\
         <path d=\"M{} 38 l6 6 l-6 6 l-6 -6 z\" fill=\"{theirs}\"/><text x=\"{}\" y=\"48\">the tool's printed estimate and interval</text></g>\n",
        LEFT + 4.0,
        LEFT + 12.0,
        LEFT + 150.0,
        LEFT + 161.0,
        LEFT + 161.0,
        LEFT + 178.0,
        LEFT + 360.0,
        LEFT + 372.0,
    ));
    // Grid and ticks.
    let bottom = TOP + ROW * input.rows.len() as f64;
    for (x, label) in tick_marks(&ax) {
        s.push_str(&format!(
            "<line x1=\"{x:.1}\" y1=\"{TOP}\" x2=\"{x:.1}\" y2=\"{bottom}\" stroke=\"#E1E1E1\"/>\n<text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"{TICK_FONT}\">{}</text>\n",
            bottom + 18.0,
            escape(&label)
        ));
    }
    s.push_str(&format!(
        "<line x1=\"{LEFT}\" y1=\"{bottom}\" x2=\"{RIGHT}\" y2=\"{bottom}\" stroke=\"#000000\"/>\n<text x=\"{}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"14\">{}</text>\n",
        (LEFT + RIGHT) / 2.0,
        bottom + 44.0,
        escape(&ax.caption)
    ));
    for (k, row) in input.rows.iter().enumerate() {
        let top = TOP + ROW * k as f64;
        let mid = top + 30.0;
        s.push_str(&format!(
            "<text x=\"{LEFT}\" y=\"{:.1}\" font-size=\"14\">{}</text>\n",
            top + 14.0,
            escape(&fmt::ellipsize(&row.bench, NAME_CHARS))
        ));
        let (q1, med, q3) = row.quartiles;
        if let (Some(a), Some(m), Some(b)) = (to_x(q1), to_x(med), to_x(q3)) {
            s.push_str(&format!(
                "<g><title>{}</title><rect x=\"{a:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"16\" fill=\"{ours}\" fill-opacity=\"0.18\" stroke=\"{ours}\"/><line x1=\"{m:.1}\" y1=\"{:.1}\" x2=\"{m:.1}\" y2=\"{:.1}\" stroke=\"{ours}\" stroke-width=\"2.5\"/></g>\n",
                escape(&format!(
                    "{}: ours, median {}, quartiles {} – {}, {}",
                    row.bench,
                    read(med),
                    read(q1),
                    read(q3),
                    fmt::plural(row.points.len(), "run")
                )),
                mid - 8.0,
                (b - a).max(0.0),
                mid - 10.0,
                mid + 10.0
            ));
        }
        for (i, p) in row.points.iter().enumerate() {
            let Some(x) = to_x(p.value) else { continue };
            s.push_str(&format!(
                "<circle cx=\"{x:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{ours}\" fill-opacity=\"0.55\"><title>{}</title></circle>\n",
                mid + jitter(i),
                escape(&format!("{}: {} · {}", row.bench, read(p.value), p.about))
            ));
        }
        if let Some(m) = &row.printed {
            let y = mid + 12.0;
            let mut g = format!("<g><title>{}</title>", escape(&m.text));
            if let (Some(lo), Some(hi)) = (m.low.and_then(to_x), m.high.and_then(to_x)) {
                g.push_str(&format!(
                    "<path d=\"M{lo:.1} {:.1} v6 M{lo:.1} {y:.1} H{hi:.1} M{hi:.1} {:.1} v6\" stroke=\"{theirs}\" stroke-width=\"2\" fill=\"none\"/>",
                    y - 3.0,
                    y - 3.0
                ));
            }
            if let Some(x) = to_x(m.value) {
                g.push_str(&format!(
                    "<path d=\"M{x:.1} {:.1} l5 5 l-5 5 l-5 -5 z\" fill=\"{theirs}\"/>",
                    y - 5.0
                ));
            }
            g.push_str("</g>\n");
            s.push_str(&g);
        }
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::axis::Scale;

    fn row(bench: &str, values: &[f64], printed: Option<(f64, f64)>) -> ReplicateRow {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let q = |p| crate::report::series::quantile_sorted(&sorted, p).unwrap();
        ReplicateRow {
            bench: bench.into(),
            points: values
                .iter()
                .enumerate()
                .map(|(i, v)| ReplicatePoint {
                    value: *v,
                    about: format!("run {} (id {})", i + 1, 100 + i),
                })
                .collect(),
            quartiles: (q(0.25), q(0.5), q(0.75)),
            printed: printed.map(|(v, e)| PrintedMark {
                value: v,
                low: Some(v - e),
                high: Some(v + e),
                text: format!("JMH score {v} ± {e} ns/op"),
            }),
        }
    }

    #[test]
    fn every_replicate_and_the_printed_summary_are_drawn_and_titled() {
        let input = Replicates {
            metric: "score".into(),
            unit: "ns/op".into(),
            prefixes: fmt::Prefixes::Decimal,
            rows: vec![
                row("a", &[10.0, 11.0, 12.0], Some((11.0, 1.5))),
                row("b", &[20.0, 21.0], None),
            ],
        };
        let svg = render(&input);
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let dots: Vec<_> = doc
            .descendants()
            .filter(|n| n.has_tag_name("circle") && n.children().any(|c| c.has_tag_name("title")))
            .collect();
        assert_eq!(dots.len(), 5);
        assert!(svg.contains("a: 12 ns/op · run 3 (id 102)"), "{svg}");
        assert!(svg.contains("<title>JMH score 11 ± 1.5 ns/op</title>"));
        assert!(
            svg.contains("a: ours, median 11 ns/op, quartiles 10.5 ns/op – 11.5 ns/op, 3 runs")
        );
        // Within 10×: a linear axis from zero.
        let ax = axis(&input);
        assert_eq!((ax.scale, ax.lo), (Scale::Linear, 0.0));
    }

    #[test]
    fn benchmarks_apart_by_orders_share_a_log_axis() {
        let input = Replicates {
            metric: "time".into(),
            unit: "ns".into(),
            prefixes: fmt::Prefixes::Decimal,
            rows: vec![
                row("fib 10", &[480.0, 500.0], None),
                row("fib 20", &[60_000.0], None),
            ],
        };
        let ax = axis(&input);
        assert_eq!(ax.scale, Scale::Log10);
        assert!(ax.caption.ends_with("log scale"), "{}", ax.caption);
        let svg = render(&input);
        // Both rows land inside the plot.
        let xs: Vec<f64> = roxmltree::Document::parse(&svg)
            .unwrap()
            .descendants()
            .filter(|n| n.has_tag_name("circle") && n.children().any(|c| c.has_tag_name("title")))
            .map(|n| n.attribute("cx").unwrap().parse().unwrap())
            .collect();
        assert!(xs.iter().all(|x| (LEFT..=RIGHT).contains(x)), "{xs:?}");
        assert!(xs[2] - xs[0] > 0.5 * (RIGHT - LEFT), "{xs:?}");
    }
}
