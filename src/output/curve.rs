//! Renders a throughput–latency curve: text and JSON.

use super::table::{Cell as T, render};
use super::{json_num, num, percentile};
use crate::analysis::curve::Curve;
use serde::Serialize;

/// Text: one row per (throughput, percentile), then the knee and the SLO answer.
pub fn text(c: &Curve) -> String {
    let unit = if c.unit.is_empty() {
        String::new()
    } else {
        format!(" ({})", c.unit)
    };
    let mut out = format!("{}{unit} by throughput (per second)\n\n", c.metric);
    let mut rows: Vec<Vec<T>> = vec![
        [
            "throughput",
            "pct",
            "median",
            "min",
            "max",
            "runs",
            "concurrency",
        ]
        .into_iter()
        .map(T::from)
        .collect(),
    ];
    for p in &c.points {
        rows.push(vec![
            num(Some(p.throughput)).into(),
            percentile(p.percentile).into(),
            num(Some(p.value)).into(),
            num(Some(p.min)).into(),
            num(Some(p.max)).into(),
            p.runs.to_string().into(),
            num(p.concurrency).into(),
        ]);
    }
    out.push_str(&render(rows, false));
    out.push('\n');
    match c.knee {
        Some(k) => out.push_str(&format!(
            "knee: {}/s (p{}: highest throughput/latency; latency grows faster than throughput beyond it)\n",
            num(Some(k)),
            percentile(c.knee_percentile)
        )),
        None => out.push_str("knee: none among the measured throughputs\n"),
    }
    if !c.slo.is_empty() {
        let terms: Vec<&str> = c.slo.iter().map(|t| t.text.as_str()).collect();
        match c.max_throughput_within_slo {
            Some(t) => out.push_str(&format!(
                "max throughput within SLO {}: {}/s\n",
                terms.join(", "),
                num(Some(t))
            )),
            None => out.push_str(&format!(
                "max throughput within SLO {}: none of the measured throughputs meets it\n",
                terms.join(", ")
            )),
        }
    }
    if c.points.iter().any(|p| p.concurrency.is_some()) {
        out.push_str(
            "concurrency = throughput × mean latency (Little's law: requests in flight)\n",
        );
    }
    if c.skipped_runs > 0 {
        out.push_str(&format!(
            "{} skipped: no throughput or no {}\n",
            super::plural(c.skipped_runs, "run"),
            c.metric
        ));
    }
    out
}

#[derive(Serialize)]
struct JsonPoint {
    throughput: Option<f64>,
    percentile: Option<f64>,
    value: Option<f64>,
    min: Option<f64>,
    max: Option<f64>,
    runs: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    concurrency: Option<f64>,
}

#[derive(Serialize)]
struct JsonCurve {
    /// Version of this document's shape.
    schema: u32,
    points: Vec<JsonPoint>,
    knee: Option<f64>,
    max_throughput_within_slo: Option<f64>,
}

/// `{"schema":1,"points":[{"throughput","percentile","value","min","max","runs"}],"knee","max_throughput_within_slo"}`
/// (points also carry `concurrency` when a mean latency is known).
pub fn json(c: &Curve) -> String {
    let doc = JsonCurve {
        schema: 1,
        points: c
            .points
            .iter()
            .map(|p| JsonPoint {
                throughput: json_num(Some(p.throughput)),
                percentile: p.percentile,
                value: json_num(Some(p.value)),
                min: json_num(Some(p.min)),
                max: json_num(Some(p.max)),
                runs: p.runs,
                concurrency: json_num(p.concurrency),
            })
            .collect(),
        knee: c.knee,
        max_throughput_within_slo: c.max_throughput_within_slo,
    };
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".to_string());
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::curve::curve;
    use crate::analysis::testdata::*;

    fn sweep() -> Vec<crate::dataset::StoredRun> {
        let mut runs = rate_runs(
            5000.0,
            "end_to_end",
            &[(90.0, &[60.0, 62.46, 64.0]), (99.0, &[90.0, 95.0, 99.0])],
            1,
        );
        runs.extend(rate_runs(
            20_000.0,
            "end_to_end",
            &[
                (90.0, &[300.0, 450.0, 390.0]),
                (99.0, &[900.0, 1100.0, 1000.0]),
            ],
            4,
        ));
        runs.extend(rate_runs(
            10_000.0,
            "end_to_end",
            &[(90.0, &[70.0, 75.0, 80.0]), (99.0, &[120.0, 130.0, 150.0])],
            7,
        ));
        runs
    }

    #[test]
    fn text_and_json_snapshots() {
        let c = curve(&sweep(), None, &[90.0, 99.0], Some("p99<=200us")).unwrap();
        insta::assert_snapshot!(text(&c));
        let j = json(&c);
        insta::assert_snapshot!(j);
        let v: serde_json::Value = serde_json::from_str(&j).unwrap();
        assert_eq!(v["knee"], 10000.0);
        assert_eq!(v["max_throughput_within_slo"], 10000.0);
        assert_eq!(v["schema"], 1);
        assert_eq!(v["points"][0]["value"], 62.46);
    }

    #[test]
    fn tsar_curve_shows_concurrency() {
        let mut runs = seed003_master();
        runs.extend(seed003_patch());
        let c = curve(&runs, Some("ts.rt"), &[99.0], None).unwrap();
        insta::assert_snapshot!(text(&c));
    }
}
