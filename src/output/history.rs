//! `history` as text: one compact table per series, change points marked on the first
//! point after the change with the step's size and p-value.

use crate::analysis::history::History;
use crate::numfmt::{fixed, table_decimals};
use crate::output::escape::text as esc;
use std::borrow::Cow;
use std::fmt::Write;

/// The human tables of `bench-db history`.
pub fn tables(series: &[History]) -> String {
    let mut out = String::new();
    for h in series {
        // The values keep their digits, one number of decimals a series, as `variation`
        // writes its tables (hyperfine's 0.01265 s, JGroups' 5333.33).
        let decimals = table_decimals(
            h.points
                .iter()
                .map(|p| p.value)
                .chain(h.change_points.iter().flat_map(|c| [c.before, c.after])),
        );
        let num = |v: f64| fixed(Some(v), decimals);
        let unit = if h.unit.is_empty() {
            String::new()
        } else {
            format!(" ({})", esc(&h.unit))
        };
        let means = if h.statistic == "mean" {
            ", values are means: an invocation printed only its mean"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "== {}{unit}: {}, {}{means}",
            esc(&h.name()),
            crate::numfmt::plural(h.points.len(), "point"),
            crate::numfmt::plural(h.change_points.len(), "change point")
        );
        let _ = writeln!(
            out,
            "{:>4}  {:<12} {:<20} {:>4} {:>14}  change",
            "#", "commit", "time", "runs", "value"
        );
        for (i, p) in h.points.iter().enumerate() {
            let commit: String = p
                .commit
                .as_deref()
                .map_or(Cow::Borrowed("-"), esc)
                .chars()
                .take(12)
                .collect();
            let change = match h.change_points.iter().find(|c| c.index == i) {
                Some(c) => format!(
                    "<< {:+.2}% ({} -> {}, p={:.2e})",
                    c.delta_pct,
                    num(c.before),
                    num(c.after),
                    c.p_value
                ),
                None => String::new(),
            };
            let _ = writeln!(
                out,
                "{i:>4}  {commit:<12} {:<20} {:>4} {:>14}  {change}",
                esc(p.time.as_deref().unwrap_or("-")),
                p.runs,
                num(p.value)
            );
        }
        out.push('\n');
    }
    if series.is_empty() {
        out.push_str("no runs with percentile or value series selected\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::history::{Change, Point};

    #[test]
    fn marks_change_points_on_their_row() {
        let point = |c: &str, v: f64| Point {
            commit: Some(c.into()),
            branch: None,
            time: Some("2024-01-01T00:00:00Z".into()),
            runs: 2,
            value: v,
            run_ids: vec![],
        };
        let h = History {
            bench: None,
            config: Default::default(),
            suite: "jlbh".into(),
            label: None,
            branch: None,
            metric: "end_to_end".into(),
            percentile: Some(99.0),
            unit: "us".into(),
            statistic: "median",
            points: vec![point("aaaa", 10.0), point("bbbb", 20.0)],
            change_points: vec![Change {
                index: 1,
                commit: Some("bbbb".into()),
                time: None,
                before: 10.0,
                after: 20.0,
                delta_pct: 100.0,
                p_value: 1e-5,
            }],
        };
        let t = tables(std::slice::from_ref(&h));
        assert!(t.starts_with("== jlbh / end_to_end p99 (us): 2 points, 1 change point\n"));
        let row = t.lines().find(|l| l.contains("bbbb")).unwrap();
        assert!(
            row.ends_with("<< +100.00% (10.00 -> 20.00, p=1.00e-5)"),
            "{row}"
        );
        // hyperfine's seconds (two-commands.json, `sleep 0.01` and its second export) keep
        // four significant digits, not 0.013 and 0.012.
        let seconds = History {
            points: vec![point("aaaa", 0.012654691), point("bbbb", 0.012292609)],
            change_points: Vec::new(),
            ..h
        };
        let t = tables(&[seconds]);
        assert!(
            t.contains(" 0.01265  \n") && t.contains(" 0.01229  \n"),
            "{t}"
        );
    }
}
