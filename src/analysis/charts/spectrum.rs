//! What a percentile spectrum draws: one ladder per run of one metric, with the SLO in
//! the metric's unit.

use crate::dataset::StoredRun;

/// What the spectrum chart draws.
#[derive(Debug, Clone, PartialEq)]
pub struct SpectrumInput {
    pub title: String,
    /// Unit of every value (`us`, `ms`, …).
    pub unit: String,
    /// One (name, ladder) per run; percentiles 0–100, worst = 100.
    pub runs: Vec<(String, Vec<(f64, f64)>)>,
    /// SLO limits as (percentile, value) in `unit`, drawn as a step line.
    pub slo: Vec<(f64, f64)>,
    /// The index in `runs` of a warm-up run (JLBH's run 1 beside later runs): drawn, but
    /// left out of the band across runs, as the analyses leave it out of the replicates.
    pub warm_up: Option<usize>,
}

/// Builds the spectrum of one ladder metric over the given runs (those without a
/// ladder for it are left out); `None` when no run has one.
pub fn from_runs(runs: &[&StoredRun], metric: &str, slo: &[(f64, f64)]) -> Option<SpectrumInput> {
    let mut out = Vec::new();
    let (mut unit, mut display) = (String::new(), metric.to_string());
    let one_label = runs.windows(2).all(|w| w[0].label == w[1].label);
    let mut warm_up = None;
    for r in runs {
        let Some(s) = r.series(metric) else { continue };
        let Some(ladder) = s.ladder() else { continue };
        unit.clone_from(&s.unit);
        display.clone_from(&s.display);
        let pts = ladder
            .iter()
            .filter_map(|p| p.value.map(|v| (p.percentile, v)))
            .collect();
        let mut name = if one_label || r.label.is_empty() {
            format!("run {}", r.run.index)
        } else {
            format!("{} · run {}", r.label, r.run.index)
        };
        if runs.len() > 1 && crate::analysis::warmup::is_warmup(r) {
            name.push_str(" (warm-up)");
            warm_up = Some(out.len());
        }
        out.push((name, pts));
    }
    if out.is_empty() {
        return None;
    }
    Some(SpectrumInput {
        title: format!("{display}: latency by percentile"),
        unit,
        runs: out,
        slo: slo.to_vec(),
        warm_up,
    })
}
