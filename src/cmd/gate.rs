//! `bench-db gate`: policy + `--max` terms, both sides selected, verdict rendered and
//! written; the exit code is the outcome (0 pass, 1 regression, 3 cannot decide; errors 2).

use super::select::{
    compare_options, nothing_selected, parse_sides, select_series, select_some_series,
    unknown_tag_keys,
};
use crate::analysis::gate::{Policy, gate};
use crate::cli::{GateArgs, GateFormat};
use crate::output;
use crate::output::escape::Lines;
use crate::store::Db;
use crate::store::url::Target;
use anyhow::{Context, Result};
use std::io::{IsTerminal, Write};
use std::path::Path;

pub fn run(db: &Target, args: &GateArgs) -> Result<u8> {
    let policy = load_policy(args.policy.as_deref(), &args.max)?;
    let store = Db::open_read(db)?;
    // No candidate is a mistake (exit 2); no baseline is a first run, which the gate
    // reports as undecided (exit 3), with the near matches as a hint.
    let sel = parse_sides(&args.sides)?;
    let mut cand = select_some_series(&store, &sel.1, &args.sides.candidate, "--candidate")?;
    let base = select_series(&store, &sel.0)?;
    if base.is_empty() {
        // A tag key no run carries is a typo, not a first run: undecided (exit 3) would
        // let every later pull request pass unchecked.
        let (unknown, stored) = unknown_tag_keys(&store, &sel.0)?;
        if !unknown.is_empty() {
            anyhow::bail!(
                "--baseline {:?}: no stored run has a tag {} (the tags stored: {}), so it \
                 could never select a baseline",
                args.sides.baseline,
                unknown.join(", "),
                stored.join(", ")
            );
        }
        let why = nothing_selected(&store, &sel.0, &args.sides.baseline, "--baseline")?;
        eprintln!("hint: {}", why.escaped());
    }
    let base = super::select::baseline_without_candidate(&sel.0, base, &cand, |wider| {
        select_series(&store, wider)
    })?;
    // A baseline over several commits: only its most recent segment (after its last
    // change point), whose runs then give the baseline noise.
    let selected = base.len();
    let mut base = crate::analysis::history::last_segment_runs(&base, &Default::default());
    if base.len() < selected {
        eprintln!(
            "note: baseline: the {} of {selected} runs after its last change point (as \
             selected: before warm-up runs and copies are left out)",
            base.len()
        );
    }
    super::select::count_copies_once(&store, &mut base, &mut cand)?;
    let opts = compare_options(&store, &sel, &args.warm_up, &base, &cand)?;
    let report = gate(&base, &cand, &policy, &opts)?;
    let one_sided = crate::analysis::compare::one_sided(&base, &cand, &[], &opts);
    for line in output::compare::one_sided_text(&one_sided) {
        eprintln!("note: {line}");
    }
    if report.cells.is_empty() && !base.is_empty() {
        // Why nothing paired, as `compare` says it: the configurations each side holds.
        for u in crate::analysis::compare::unpaired(&base, &cand, &[], &opts) {
            eprintln!("hint: {}", output::compare::unpaired_text(&u));
        }
    }
    let commits = output::gate::Commits::of(&base, &cand);
    let color = args.out.is_none() && crate::cli::color_enabled(std::io::stdout().is_terminal());
    let format = args.output.format();
    let text = match format {
        GateFormat::Text => output::gate::text(&report, color),
        GateFormat::Json => output::gate::json(&report),
        GateFormat::Markdown => output::gate::markdown(&report, &commits),
        GateFormat::Junit => output::gate::junit(&report),
        GateFormat::Github => output::gate::github(&report),
    };
    if format == GateFormat::Github {
        append_step_summary(&output::gate::markdown(&report, &commits))?;
    }
    match &args.out {
        Some(path) => {
            std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
            eprintln!(
                "bench-db gate: {}",
                crate::output::escape::text(&report.summary)
            );
        }
        None => {
            let mut out = std::io::stdout().lock();
            match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                // The verdict is the exit code: a reader that stopped reading
                // (`gate | head`) does not turn a regression into a pass.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
                done => done?,
            }
        }
    }
    Ok(crate::exit::exit_code(report.outcome))
}

/// The policy file (if any) with the `--max` terms added.
pub fn load_policy(path: Option<&Path>, max: &[String]) -> Result<Policy> {
    let policy = match path {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading the policy {}", path.display()))?;
            Policy::from_toml(&text)
                .map_err(|e| policy_lines(&e))
                .with_context(|| format!("policy {}", path.display()))?
        }
        None => Policy::default(),
    };
    Ok(policy.with_max(max)?)
}

/// A policy error as the lines it is written on: TOML's syntax errors quote the line and
/// mark the column under it.
fn policy_lines(e: &crate::analysis::policy::GateError) -> Lines {
    Lines(
        e.to_string()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .collect(),
    )
}

/// Appends to the file `$GITHUB_STEP_SUMMARY` names, when it names one.
fn append_step_summary(markdown: &str) -> Result<()> {
    let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) else {
        return Ok(());
    };
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .with_context(|| format!("opening $GITHUB_STEP_SUMMARY {}", path.to_string_lossy()))?;
    f.write_all(markdown.as_bytes())
        .with_context(|| format!("writing $GITHUB_STEP_SUMMARY {}", path.to_string_lossy()))
}
