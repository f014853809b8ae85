//! Prints the README's calibration table: for each noise model of
//! `bench_db::analysis::calibration`, the gate's A/A false-alarm rate and its power on
//! the model's change, next to a one-sided Mann–Whitney U at the same α on the same
//! replicates. Run in release:
//!
//! ```text
//! cargo run --release --example calibration -- 2000
//! ```

use bench_db::analysis::calibration::{Model, SeriesPlan, binomial_se, rates, series_rate};
use bench_db::stats::autocorr::{ESS_FLOOR, RHO_MARGIN};
use bench_db::stats::shift::Plan;

fn main() {
    let trials: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1000);
    let plan = Plan::default();
    println!("| model | change | gate A/A | gate power | Mann–Whitney A/A | Mann–Whitney power |");
    println!("|---|---|---:|---:|---:|---:|");
    for (i, model) in Model::ALL.iter().enumerate() {
        let seed = 1000 + 10 * i as u64;
        let aa = rates(*model, false, trials, seed, &plan);
        let power = rates(*model, true, trials, seed + 1, &plan);
        let pct = |r: f64| {
            format!(
                "{:.1}% ± {:.2}",
                100.0 * r,
                100.0 * binomial_se(r.max(0.5 / trials as f64), trials)
            )
        };
        println!(
            "| {} | {} | {} | {} | {} | {} |",
            model.name(),
            model.change(),
            pct(aa.gate),
            pct(power.gate),
            pct(aa.mann_whitney),
            pct(power.mann_whitney)
        );
    }
    println!("\n{trials} pairs per cell; ± one binomial standard error.");
    // The series test alone (one run a side, 30 minutes): A/A across autocorrelations
    // and power on +25% at a 5% CV, for margins on the autocorrelation estimate, with
    // and without the cap on the variance factor.
    let pairs = 10 * trials;
    let shift = 1.25f64.ln() / 0.05;
    let rhos = [0.0, 0.5, 0.8, 0.85, 0.9];
    let head: Vec<String> = rhos.iter().map(|r| format!("A/A rho {r}")).collect();
    println!(
        "\n| margin on rho | cap (samples) | {} | power rho 0.8 |",
        head.join(" | ")
    );
    println!("|---:|---:|{}---:|", "---:|".repeat(rhos.len()));
    let shipped = SeriesPlan {
        pairs,
        ..SeriesPlan::default()
    };
    for (margin, ess_floor) in [
        (1.0, 1.0),
        (1.5, 1.0),
        (1.0, ESS_FLOOR),
        (RHO_MARGIN, ESS_FLOOR),
        (2.0, ESS_FLOOR),
    ] {
        let plan = SeriesPlan {
            margin,
            ess_floor,
            ..shipped
        };
        let aa: Vec<String> = rhos
            .iter()
            .map(|&rho| format!("{:.2}%", 100.0 * series_rate(rho, 0.0, &plan, 7)))
            .collect();
        let power = series_rate(0.8, shift, &plan, 8);
        let cap = if ess_floor > 1.0 {
            ess_floor.to_string()
        } else {
            "none".to_string()
        };
        println!(
            "| {margin} | {cap} | {} | {:.1}% |",
            aa.join(" | "),
            100.0 * power
        );
    }
    println!("\n{pairs} pairs per cell, one-sided at 1%.");
}
