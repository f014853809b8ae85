//! What a throughput/latency chart draws: the curve analysis' points as one line per
//! percentile, its knee and the SLO in the latency's unit.

use crate::analysis::curve::Curve;
use std::collections::BTreeMap;

/// One measured point of a curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurvePoint {
    pub throughput: f64,
    pub value: f64,
    pub min: f64,
    pub max: f64,
}

/// The latency at one percentile across throughputs.
#[derive(Debug, Clone, PartialEq)]
pub struct CurveLine {
    pub percentile: f64,
    pub points: Vec<CurvePoint>,
}

/// What the curve chart draws.
#[derive(Debug, Clone, PartialEq)]
pub struct CurveInput {
    pub title: String,
    /// Throughput unit (`msg/s`).
    pub throughput_unit: String,
    /// What the throughput axis shows (`Achieved throughput`, `Target throughput`).
    pub throughput_caption: String,
    /// Latency unit.
    pub unit: String,
    pub lines: Vec<CurveLine>,
    /// Throughput where latency starts to grow faster than throughput.
    pub knee: Option<f64>,
    /// SLO limits as (percentile, value) in `unit`.
    pub slo: Vec<(f64, f64)>,
    /// Highest throughput meeting every SLO term.
    pub max_within_slo: Option<f64>,
}

/// The chart of a curve from the curve analysis, titled with the metric's display name
/// and the throughput unit; `None` when it spans fewer than two throughputs.
pub fn from_curve(c: &Curve, display: &str, throughput_unit: &str) -> Option<CurveInput> {
    let mut lines: BTreeMap<i64, CurveLine> = BTreeMap::new();
    for p in &c.points {
        let Some(pct) = p.percentile else { continue };
        lines
            .entry((pct * 1e6).round() as i64)
            .or_insert_with(|| CurveLine {
                percentile: pct,
                points: Vec::new(),
            })
            .points
            .push(CurvePoint {
                throughput: p.throughput,
                value: p.value,
                min: p.min,
                max: p.max,
            });
    }
    let lines: Vec<CurveLine> = lines
        .into_values()
        .filter(|l| l.points.len() >= 2)
        .collect();
    if lines.is_empty() {
        return None;
    }
    Some(CurveInput {
        title: format!("{display}: latency vs throughput"),
        throughput_unit: throughput_unit.to_string(),
        throughput_caption: "Throughput".to_string(),
        unit: c.unit.clone(),
        lines,
        knee: c.knee,
        slo: crate::analysis::slo::in_unit(&c.slo, &c.unit),
        max_within_slo: c.max_throughput_within_slo,
    })
}
