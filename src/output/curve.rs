//! Renders a throughput–latency curve: text and JSON.

use super::escape::text as esc;
use super::table::{Cell as T, render};
use super::{json_num, num, percentile};
use crate::analysis::curve::{Curve, CurveKey, CurvePoint};
use crate::analysis::samples::ConfigValue;
use crate::numfmt::{column_decimals, fixed};
use serde::Serialize;
use std::collections::BTreeMap;

/// Text of the curves: one as [`curve_text`]; several each under its suite, bench,
/// configuration and label.
pub fn text(curves: &[(CurveKey, Curve)]) -> String {
    if let [(_, c)] = curves {
        return curve_text(c);
    }
    let mut out = String::new();
    for (k, c) in curves {
        let title = k.title();
        let title = if title.is_empty() {
            String::new()
        } else {
            format!(" / {}", esc(&title))
        };
        out.push_str(&format!("== {}{title}\n", esc(&k.suite)));
        out.push_str(&curve_text(c));
        out.push('\n');
    }
    out
}

/// Text: one row per (throughput, percentile), then the knee and the SLO answer.
fn curve_text(c: &Curve) -> String {
    let unit = if c.unit.is_empty() {
        String::new()
    } else {
        format!(" ({})", esc(&c.unit))
    };
    let mut out = format!("{}{unit} by throughput (per second)\n\n", esc(&c.metric));
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
    // One number of decimals a column: a whole number prints as its neighbours do.
    let column = |f: fn(&CurvePoint) -> Option<f64>| {
        let decimals = column_decimals(c.points.iter().filter_map(f));
        move |p: &CurvePoint| fixed(f(p), decimals)
    };
    let throughput = column(|p| Some(p.throughput));
    let median = column(|p| Some(p.value));
    let min = column(|p| Some(p.min));
    let max = column(|p| Some(p.max));
    let concurrency = column(|p| p.concurrency);
    for p in &c.points {
        rows.push(vec![
            throughput(p).into(),
            percentile(p.percentile).into(),
            median(p).into(),
            min(p).into(),
            max(p).into(),
            p.runs.to_string().into(),
            concurrency(p).into(),
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
        None if !c.servers.is_empty() => out.push_str(&format!(
            "knee: none: its runs measured {} servers, not one benchmark\n",
            c.servers.len()
        )),
        None => {
            let mut rates: Vec<f64> = c.points.iter().map(|p| p.throughput).collect();
            rates.sort_by(f64::total_cmp);
            rates.dedup();
            let min = crate::analysis::curve::KNEE_MIN_RATES;
            if rates.len() < min {
                out.push_str(&format!(
                    "knee: none: {} measured, a knee needs at least {min}\n",
                    crate::numfmt::plural(rates.len(), "throughput")
                ));
            } else {
                out.push_str("knee: none among the measured throughputs\n");
            }
        }
    }
    if !c.slo.is_empty() {
        let terms: Vec<_> = c.slo.iter().map(|t| esc(&t.text)).collect();
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
            esc(&c.metric)
        ));
    }
    if let Some(note) = crate::analysis::curve::servers_note(&c.servers) {
        out.push_str(&format!("note: {}\n", esc(&note)));
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
struct JsonCurve<'a> {
    /// Version of this document's shape.
    schema: u32,
    /// The latency metric the curves draw and its unit (every curve draws the same one).
    metric: Option<String>,
    unit: Option<String>,
    points: Vec<JsonPoint>,
    knee: Option<f64>,
    max_throughput_within_slo: Option<f64>,
    /// One object per curve (a suite's or benchmark's runs), with the fields above.
    curves: Vec<JsonOneCurve<'a>>,
}

#[derive(Serialize)]
struct JsonOneCurve<'a> {
    suite: String,
    bench: Option<String>,
    /// The configuration other than the rate (see `CurveKey`), values as stored.
    config: BTreeMap<&'a str, &'a ConfigValue>,
    /// The label someone gave the runs (`null` when none was given).
    label: Option<String>,
    /// The runs' branch (`null` when they name none).
    branch: Option<String>,
    points: Vec<JsonPoint>,
    knee: Option<f64>,
    /// The percentile the knee was read on.
    knee_percentile: Option<f64>,
    max_throughput_within_slo: Option<f64>,
    /// The servers its runs measured (wrk's URL) when there are several; else empty.
    servers: &'a [String],
    /// Selected runs that are no point of any curve (no rate, or no such metric), counted
    /// on the first curve.
    skipped_runs: usize,
}

fn json_points(c: &Curve) -> Vec<JsonPoint> {
    c.points
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
        .collect()
}

/// `{"schema":1,"metric","unit","points":[{"throughput","percentile","value","min","max","runs"}],"knee","max_throughput_within_slo","curves":[…]}`
/// (points also carry `concurrency` when a mean latency is known). `curves` holds one
/// object per curve (suite, bench, configuration less the rate, label, branch) with the same fields and `suite`, `bench`, `config`,
/// `label`, `branch`, `knee_percentile`, `servers`, `skipped_runs`; with several, the top-level `points` is empty and `knee` null.
pub fn json(curves: &[(CurveKey, Curve)]) -> String {
    let one = match curves {
        [(_, c)] => Some(c),
        _ => None,
    };
    let first = curves.first().map(|(_, c)| c);
    let doc = JsonCurve {
        schema: 1,
        metric: first.map(|c| c.metric.clone()),
        unit: first.map(|c| c.unit.clone()),
        points: one.map(json_points).unwrap_or_default(),
        knee: one.and_then(|c| c.knee),
        max_throughput_within_slo: one.and_then(|c| c.max_throughput_within_slo),
        curves: curves
            .iter()
            .map(|(k, c)| JsonOneCurve {
                suite: k.suite.clone(),
                bench: k.bench.clone(),
                config: k.config.iter().map(|(key, v)| (key.as_str(), v)).collect(),
                label: k.label.clone(),
                branch: k.branch.clone(),
                points: json_points(c),
                knee: c.knee,
                knee_percentile: c.knee_percentile,
                max_throughput_within_slo: c.max_throughput_within_slo,
                servers: &c.servers,
                skipped_runs: c.skipped_runs,
            })
            .collect(),
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
        runs.extend(rate_runs(
            40_000.0,
            "end_to_end",
            &[
                (90.0, &[900.0, 1000.0, 950.0]),
                (99.0, &[2900.0, 3000.0, 3100.0]),
            ],
            10,
        ));
        runs
    }

    #[test]
    fn text_and_json_snapshots() {
        let runs = sweep();
        let c = curve(&runs, None, &[90.0, 99.0], Some("p99<=200us")).unwrap();
        let one = [(CurveKey::of(&runs[0]), c)];
        insta::assert_snapshot!(text(&one));
        let j = json(&one);
        insta::assert_snapshot!(j);
        let v: serde_json::Value = serde_json::from_str(&j).unwrap();
        assert_eq!(v["knee"], 10000.0);
        assert_eq!(v["max_throughput_within_slo"], 10000.0);
        assert_eq!(v["schema"], 1);
        assert_eq!(v["points"][0]["value"], 62.46);
        // What the curve draws, and where its knee was read.
        assert_eq!(
            (&v["metric"], &v["unit"]),
            (&"end_to_end".into(), &"us".into())
        );
        assert_eq!(v["curves"][0]["knee_percentile"], 99.0);
    }

    #[test]
    fn tsar_curve_shows_concurrency() {
        let mut runs = seed003_master();
        runs.extend(seed003_patch());
        let c = curve(&runs, Some("ts.rt"), &[99.0], None).unwrap();
        insta::assert_snapshot!(text(&[(CurveKey::of(&runs[0]), c)]));
    }

    #[test]
    fn suites_and_benchmarks_are_never_joined_on_one_curve() {
        use crate::analysis::curve::CurvesBuilder;
        let mut runs = sweep();
        let mut other = sweep();
        for r in &mut other {
            r.id += 100;
            r.suite = "sockperf".into();
        }
        runs.extend(other);
        let mut b = CurvesBuilder::new("end_to_end".into(), &[90.0, 99.0], None).unwrap();
        for r in &runs {
            b.add(r).unwrap();
        }
        let curves = b.finish().unwrap();
        assert_eq!(curves.len(), 2);
        let v: serde_json::Value = serde_json::from_str(&json(&curves)).unwrap();
        assert_eq!(v["points"].as_array().unwrap().len(), 0);
        assert!(v["knee"].is_null());
        let cs = v["curves"].as_array().unwrap();
        assert_eq!(cs.len(), 2);
        for c in cs {
            // Each curve holds its own suite's runs only: 3 runs at each of 4 rates.
            assert_eq!(c["knee"], 10000.0, "{c}");
            assert!(
                c["points"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|p| p["runs"] == 3),
                "{c}"
            );
            // The test runs carry the given label `runs`.
            assert!(c["bench"].is_null() && c["label"] == "runs", "{c}");
        }
        assert_eq!(cs[0]["suite"], runs[0].suite.as_str());
        assert_eq!(cs[1]["suite"], "sockperf");
        assert!(text(&curves).contains("== sockperf / (runs)\n"));
    }
}
