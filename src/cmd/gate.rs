//! `bench-db gate`: policy + `--max` terms, both sides selected, verdict rendered and
//! written; the exit code is the outcome (0 pass, 1 regression, 3 cannot decide; errors 2).

use crate::analysis::compare::CompareOptions;
use crate::analysis::gate::{Policy, gate};
use crate::cli::{GateArgs, GateFormat};
use crate::output;
use crate::selector::Selector;
use crate::store::Db;
use crate::store::url::Target;
use anyhow::{Context, Result};
use std::io::{IsTerminal, Write};

pub fn run(db: &Target, args: &GateArgs) -> Result<u8> {
    let policy = match &args.policy {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading the policy {}", path.display()))?;
            Policy::from_toml(&text).with_context(|| format!("policy {}", path.display()))?
        }
        None => Policy::default(),
    };
    let policy = policy.with_max(&args.max)?;
    let store = Db::open_read(db)?;
    let base = store
        .select(&Selector::parse(&args.baseline).context("--baseline")?)
        .context("selecting the baseline runs")?;
    let cand = store
        .select(&Selector::parse(&args.candidate).context("--candidate")?)
        .context("selecting the candidate runs")?;
    let report = gate(&base, &cand, &policy, &CompareOptions::default())?;
    let color = args.out.is_none() && std::io::stdout().is_terminal();
    let text = match args.format {
        GateFormat::Text => output::gate::text(&report, color),
        GateFormat::Json => output::gate::json(&report),
        GateFormat::Markdown => output::gate::markdown(&report),
        GateFormat::Junit => output::gate::junit(&report),
        GateFormat::Github => output::gate::github(&report),
    };
    match &args.out {
        Some(path) => {
            std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
            eprintln!("bench-db gate: {}", report.summary);
        }
        None => std::io::stdout().write_all(text.as_bytes())?,
    }
    Ok(report.outcome.exit_code())
}
