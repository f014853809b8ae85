//! History over commits in the report: per suite, metric and percentile, the values over
//! commits (x = commit order, short hashes as tick labels), the change points Apache
//! Otava's method finds (marked with their delta), and the latest point against the
//! last segment's noise band; plus the index's list of the most recent change points
//! across suites. Draws [`ChangeSeries`] computed by the analysis; returns HTML/SVG
//! strings.

use super::axis::{index_axis, value_axis};
use super::chart::{self, Band, Line, LineChart, Note};
use super::fmt::{self, escape, human, signed_pct};
use super::style::{self, Dash, Marker};
pub use crate::analysis::charts::changes::ChangeSeries;
use crate::analysis::history::Change;
use crate::analysis::site::RecentChange;
use anyhow::Result;

/// Tick labels on the commit axis at most.
const MAX_TICKS: usize = 10;
/// Change points listed on the index.
pub const RECENT_CHANGES: usize = 12;

/// The suite page's section (empty when no series has commits).
pub fn section(series: &[ChangeSeries]) -> String {
    if series.is_empty() {
        return String::new();
    }
    let mut h = String::from("<h2>History over commits</h2>\n");
    h.push_str("<p class=\"muted\">One point per commit (the median of its runs), change points as Apache Otava finds them (window 50, p &lt; 0.001), the shaded band is the last segment's noise (median ± 2σ).</p>\n");
    for cs in series {
        let s = &cs.series;
        h.push_str(&format!("<h3>{}</h3>\n", escape(&s.name())));
        h.push_str(&match render(cs) {
            Ok(svg) => format!("<figure>{svg}</figure>\n"),
            Err(e) => format!(
                "<p class=\"note\">Chart not drawn: {}</p>\n",
                escape(&e.to_string())
            ),
        });
        if !s.change_points.is_empty() {
            h.push_str("<table><tr><th class=\"text\">commit</th><th class=\"text\">time</th><th>before</th><th>after</th><th>change</th><th>p</th></tr>\n");
            for c in s.change_points.iter().rev() {
                h.push_str(&change_row(c, &s.unit));
            }
            h.push_str("</table>\n");
        }
    }
    h
}

fn short(commit: Option<&str>) -> String {
    commit.map_or_else(|| "–".to_string(), |c| c.chars().take(7).collect())
}

fn change_row(c: &Change, unit: &str) -> String {
    format!(
        "<tr><td class=\"text\">{}</td><td class=\"text\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1e}</td></tr>\n",
        escape(&short(c.commit.as_deref())),
        escape(c.time.as_deref().unwrap_or("–")),
        human(c.before, unit),
        human(c.after, unit),
        signed_pct(c.delta_pct),
        c.p_value
    )
}

/// The index's list: the most recent change points across every suite, newest first.
/// `suites` gives each suite's name, page name and change points.
pub fn recent(suites: &[(&str, &str, &[RecentChange])]) -> String {
    let mut all: Vec<(&str, &str, &RecentChange)> = Vec::new();
    for (suite, page, changes) in suites {
        for c in changes.iter() {
            all.push((suite, page, c));
        }
    }
    if all.is_empty() {
        return String::new();
    }
    all.sort_by(|a, b| {
        b.2.change
            .time
            .cmp(&a.2.change.time)
            .then(a.2.series.cmp(&b.2.series))
    });
    let mut h = String::from(
        "<h2>Recent change points</h2>\n<table><tr><th>suite</th><th class=\"text\">series</th><th class=\"text\">commit</th><th class=\"text\">time</th><th>before</th><th>after</th><th>change</th><th>p</th></tr>\n",
    );
    for (suite, page, c) in all.iter().take(RECENT_CHANGES) {
        let row = change_row(&c.change, &c.unit);
        h.push_str(&format!(
            "<tr><th><a href=\"{}\">{}</a></th><td class=\"text\">{}</td>{}",
            escape(page),
            escape(suite),
            escape(&c.series),
            row.trim_start_matches("<tr>")
        ));
    }
    if all.len() > RECENT_CHANGES {
        h.push_str(&format!(
            "<tr><td colspan=\"8\" class=\"muted\">… and {} more on the suite pages</td></tr>\n",
            all.len() - RECENT_CHANGES
        ));
    }
    h.push_str("</table>\n");
    h
}

/// Draws one series.
pub fn render(s: &ChangeSeries) -> Result<String> {
    chart::render(&layout(s))
}

/// The chart in axis space: x = 1..n in commit order.
pub fn layout(cs: &ChangeSeries) -> LineChart {
    let s = &cs.series;
    let n = s.points.len();
    let every = n.div_ceil(MAX_TICKS).max(1);
    let ticks = (0..n)
        .step_by(every)
        .map(|i| ((i + 1) as f64, short(s.points[i].commit.as_deref())))
        .collect();
    let x = index_axis("Commit, in time order", n, ticks);
    let seg_from = n - s.last_segment().len();
    let band = cs.band;
    let quantity = match s.percentile {
        Some(p) => format!("{} {}", s.metric, crate::numfmt::percentile_name(p)),
        None => s.metric.clone(),
    };
    let caption = fmt::axis_caption(&quantity, &s.unit);
    let y = value_axis(
        &caption,
        &s.unit,
        s.points
            .iter()
            .map(|p| p.value)
            .chain(band.into_iter().flat_map(|b| [b.0, b.1])),
        false,
        false,
    );
    let pts: Vec<(f64, f64)> = s
        .points
        .iter()
        .enumerate()
        .map(|(i, p)| ((i + 1) as f64, p.value))
        .collect();
    let mut lines = vec![Line::nth(0, "median per commit", pts)];
    for (k, c) in s.change_points.iter().enumerate() {
        let at = c.index as f64 + 0.5;
        lines.push(Line {
            name: if k == 0 {
                "change point".to_string()
            } else {
                String::new()
            },
            points: vec![(at, y.lo), (at, y.hi)],
            color: style::PALETTE[1],
            dash: Dash::Dashed(6, 4),
            marker: Marker::None,
            width: 1,
        });
    }
    if let Some(last) = s.points.last() {
        lines.push(Line {
            name: format!("latest: {}", human(last.value, &s.unit)),
            points: vec![(n as f64, last.value)],
            color: style::PALETTE[4],
            dash: Dash::Solid,
            marker: Marker::Square,
            width: 2,
        });
    }
    let bands = band
        .map(|(lo, hi)| Band {
            name: "last segment ± 2σ".to_string(),
            upper: vec![(seg_from as f64 + 0.5, hi), (n as f64 + 0.5, hi)],
            lower: vec![(seg_from as f64 + 0.5, lo), (n as f64 + 0.5, lo)],
            color: style::PALETTE[2],
            opacity: 0.15,
        })
        .into_iter()
        .collect();
    let notes = s
        .change_points
        .iter()
        .map(|c| Note {
            at: (c.index as f64 + 0.5, y.hi),
            text: signed_pct(c.delta_pct),
        })
        .collect();
    LineChart {
        title: format!("{}: {} commits", s.name(), n),
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
    use crate::analysis::history::{Cell, History, Point};

    fn series() -> ChangeSeries {
        let points: Vec<Point> = (0..30)
            .map(|i| Point {
                commit: Some(format!("{i:02}abcdef0123")),
                branch: Some("main".into()),
                time: Some(format!("2024-01-01T00:{i:02}:00Z")),
                runs: 1,
                value: if i < 20 { 100.0 } else { 130.0 } + (i % 3) as f64,
                run_ids: vec![i],
            })
            .collect();
        let cell = Cell {
            bench: None,
            config: Default::default(),
            suite: "jlbh".into(),
            label: None,
            branch: None,
            metric: "end_to_end".into(),
            percentile: Some(99.0),
            unit: "us".into(),
        };
        ChangeSeries::new(History::from_points(cell, points, &Default::default()).unwrap())
    }

    #[test]
    fn chart_marks_changes_and_the_last_segment() {
        let s = series();
        assert_eq!(s.series.change_points.len(), 1);
        let c = layout(&s);
        assert_eq!(c.x.ticks[0].1, "00abcde");
        assert_eq!(c.notes.len(), 1);
        assert_eq!(c.notes[0].at.0, 20.5);
        assert!(c.notes[0].text.starts_with('+'));
        // The band covers the 10 commits after the change, around 131.
        assert_eq!(c.bands[0].upper[0].0, 20.5);
        assert!(c.bands[0].lower[0].1 < 131.0 && c.bands[0].upper[0].1 > 131.0);
        assert_eq!(c.lines.last().unwrap().points, vec![(30.0, 132.0)]);
        let svg = render(&s).unwrap();
        assert!(svg.contains("<svg") && svg.contains("change point"));
        insta::assert_snapshot!("changes_chart", svg);
    }
}
