//! Prints the README's calibration table: for each noise model of
//! `bench_db::analysis::calibration`, the gate's A/A false-alarm rate and its power on
//! the model's change, next to a one-sided Mann–Whitney U at the same α on the same
//! replicates. Run in release:
//!
//! ```text
//! cargo run --release --example calibration -- 2000
//! ```

use bench_db::analysis::calibration::{Model, binomial_se, rates};
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
}
