//! Selecting runs for a command (the selector itself is interpreted by `selector` and
//! `store::Db`): collections of runs at the detail a command reads, and, for commands
//! that need runs, an error naming near matches when a selector selects none.

use crate::analysis::compare::CompareOptions;
use crate::analysis::copies;
use crate::analysis::samples::Axis;
use crate::cli::{Sides, WarmUp};
use crate::dataset::{GroupKey, StoredRun};
use crate::output::escape::Lines;
use crate::selector::{Contrast, PostTerm, Selector, Term, near_matches, nearest_first};
use crate::store::{Db, Detail};
use anyhow::{Context, Result, bail};
use std::collections::{BTreeSet, HashMap, HashSet};

/// The runs `sel` selects.
pub fn select(store: &Db, sel: &Selector) -> Result<Vec<StoredRun>> {
    store.select(sel)
}

/// The runs `sel` selects as the analyses read them: series and points, without the
/// blocks' printed numbers (see [`Detail::Series`]).
pub fn select_series(store: &Db, sel: &Selector) -> Result<Vec<StoredRun>> {
    collect(store, sel, Detail::Series)
}

/// The heads (no points) of the runs `sel` selects.
pub fn select_heads(store: &Db, sel: &Selector) -> Result<Vec<StoredRun>> {
    collect(store, sel, Detail::Heads)
}

fn collect(store: &Db, sel: &Selector, detail: Detail) -> Result<Vec<StoredRun>> {
    let mut out = Vec::new();
    store.for_each_run(sel, detail, |r| {
        out.push(r);
        Ok(())
    })?;
    Ok(out)
}

/// Counts each side's copies once ([`crate::analysis::copies`]): the runs of a block
/// repeating an earlier block's values exactly are left out, with a note; a candidate
/// block repeating a baseline block is warned about.
pub fn count_copies_once(
    store: &Db,
    baseline: &mut Vec<StoredRun>,
    candidate: &mut Vec<StoredRun>,
) -> Result<()> {
    for (side, runs) in [("baseline", &mut *baseline), ("candidate", &mut *candidate)] {
        with_printed(store, runs)?;
        let (left_out, groups) = copies::find(runs.iter());
        for note in crate::output::copies_notes(side, &groups) {
            eprintln!("note: {note}");
        }
        left_out.apply(runs);
    }
    let across = copies::across(baseline.iter(), candidate.iter());
    if let Some(w) = crate::output::copies_across_warning(&across) {
        eprintln!("warning: {w}");
    }
    Ok(())
}

/// Gives the first run of each block whose outputs may print one summary
/// ([`copies::SUMMARY_FORMATS`]) its block's printed numbers, where the runs were read
/// without them (the gate reads series only): what tells exports of one run apart.
fn with_printed(store: &Db, runs: &mut [StoredRun]) -> Result<()> {
    let mut first: HashMap<i64, usize> = HashMap::new();
    for (i, r) in runs.iter().enumerate() {
        if copies::SUMMARY_FORMATS.contains(&r.format.as_str()) {
            let at = first.entry(r.block_id).or_insert(i);
            if runs[*at].id > r.id {
                *at = i;
            }
        }
    }
    let wanted: HashMap<i64, usize> = first
        .into_values()
        .filter(|&i| runs[i].printed.is_empty())
        .map(|i| (runs[i].id, i))
        .collect();
    if wanted.is_empty() {
        return Ok(());
    }
    let sel = Selector {
        terms: vec![Term::Runs(wanted.keys().copied().collect())],
        post: Vec::new(),
    };
    store.for_each_run(&sel, Detail::HeadsPrinted, |r| {
        if let Some(&i) = wanted.get(&r.id) {
            runs[i].printed = r.printed;
        }
        Ok(())
    })?;
    Ok(())
}

/// The baseline without the candidate's runs ([`leave_out_candidate_runs`]). A baseline of
/// the `latest=N` commits still holds N: the commits (or runs without one) made up only of
/// the candidate's runs are replaced by the next older ones, the baseline being selected
/// again (`reselect`) with N raised by as many, with a note.
pub fn baseline_without_candidate(
    sel: &Selector,
    mut baseline: Vec<StoredRun>,
    candidate: &[StoredRun],
    reselect: impl Fn(&Selector) -> Result<Vec<StoredRun>>,
) -> Result<Vec<StoredRun>> {
    let ids: HashSet<i64> = candidate.iter().map(|r| r.id).collect();
    let latest: Vec<usize> = sel
        .post
        .iter()
        .filter_map(|p| match p {
            PostTerm::Latest(n) => Some(*n),
            _ => None,
        })
        .collect();
    if let [n] = latest[..] {
        let mut reach = n;
        // Each wider selection may meet more of the candidate's commits; a few rounds
        // reach the fixed point (the candidate's commits are few).
        for _ in 0..8 {
            let emptied = emptied_units(&baseline, &ids);
            if n + emptied == reach {
                break;
            }
            reach = n + emptied;
            let mut wider = sel.clone();
            for p in &mut wider.post {
                if let PostTerm::Latest(m) = p {
                    *m = reach;
                }
            }
            baseline = reselect(&wider)?;
        }
        if reach > n {
            let k = reach - n;
            eprintln!(
                "note: baseline: latest={n} takes the {n} most recent commits that hold more \
                 than the candidate's runs; {} only the candidate's: selected as latest={reach}",
                if k == 1 {
                    "1 commit held".to_string()
                } else {
                    format!("{k} commits held")
                },
            );
        }
    }
    leave_out_candidate_runs(&mut baseline, candidate);
    Ok(baseline)
}

/// How many of `runs`' commits (a run without a commit is its own) hold only runs of `ids`.
fn emptied_units(runs: &[StoredRun], ids: &HashSet<i64>) -> usize {
    let mut units: HashMap<Result<&str, i64>, bool> = HashMap::new();
    for r in runs {
        let unit = r.run.tags.get("commit").map(String::as_str).ok_or(r.id);
        *units.entry(unit).or_insert(true) &= ids.contains(&r.id);
    }
    units.values().filter(|&&only| only).count()
}

/// Leaves the candidate's runs out of the baseline, with a note on standard error: a run
/// is never its own baseline, and a baseline of only the candidate's runs is a first run
/// (the gate's and the report's judgement; `compare` warns instead).
pub fn leave_out_candidate_runs(baseline: &mut Vec<StoredRun>, candidate: &[StoredRun]) {
    let ids: HashSet<i64> = candidate.iter().map(|r| r.id).collect();
    let selected = baseline.len();
    baseline.retain(|r| !ids.contains(&r.id));
    if baseline.len() < selected {
        eprintln!(
            "{}",
            crate::output::gate::shared_runs_note(selected - baseline.len(), baseline.len())
        );
    }
}

/// A warning (on standard error) when the baseline and candidate selections share runs:
/// those runs are compared with themselves, which shows no change whatever they hold.
pub fn warn_shared_runs(baseline: &[StoredRun], candidate: &[StoredRun]) {
    if let Some(w) = shared_runs_warning(baseline, candidate) {
        eprintln!("{w}");
    }
}

/// The warning [`warn_shared_runs`] prints, if any.
fn shared_runs_warning(baseline: &[StoredRun], candidate: &[StoredRun]) -> Option<String> {
    let ids: HashSet<i64> = baseline.iter().map(|r| r.id).collect();
    let shared = candidate.iter().filter(|r| ids.contains(&r.id)).count();
    (shared > 0).then(|| {
        format!(
            "warning: the baseline and the candidate share {} (of {} and {}): a run on both sides is compared with itself, which hides a change",
            crate::numfmt::plural(shared, "run"),
            baseline.len(),
            candidate.len()
        )
    })
}

/// The runs `text` selects; none is an error (exit 2) that names the option, the terms
/// that match nothing on their own and the nearest values stored.
pub fn select_some(store: &Db, sel: &Selector, text: &str, what: &str) -> Result<Vec<StoredRun>> {
    let runs = select(store, sel)?;
    if !runs.is_empty() {
        return Ok(runs);
    }
    Err(nothing_selected(store, sel, text, what)?.into())
}

/// [`select_some`] as the analyses read runs ([`select_series`]).
pub fn select_some_series(
    store: &Db,
    sel: &Selector,
    text: &str,
    what: &str,
) -> Result<Vec<StoredRun>> {
    let runs = select_series(store, sel)?;
    if !runs.is_empty() {
        return Ok(runs);
    }
    Err(nothing_selected(store, sel, text, what)?.into())
}

/// The two sides' selectors, each parsed once (a parse prints its hint).
pub fn parse_sides(sides: &Sides) -> Result<(Selector, Selector)> {
    Ok((
        Selector::parse(&sides.baseline).context("--baseline")?,
        Selector::parse(&sides.candidate).context("--candidate")?,
    ))
}

/// The `tag.KEY` terms of `sel` whose key no stored run carries, with the keys stored:
/// a misspelt key (`tag.brnach=main`) that could never select a run, whatever is ingested
/// under the keys in use. Empty when the database holds no runs.
pub fn unknown_tag_keys(store: &Db, sel: &Selector) -> Result<(Vec<String>, Vec<String>)> {
    let wanted: Vec<&str> = sel
        .terms
        .iter()
        .filter_map(|t| match t {
            Term::Tag(k, _) => Some(k.as_str()),
            _ => None,
        })
        .collect();
    if wanted.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let all = select_heads(store, &Selector::all())?;
    let stored: std::collections::BTreeSet<&str> = all
        .iter()
        .flat_map(|r| r.run.tags.keys().map(String::as_str))
        .collect();
    if all.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let unknown = wanted
        .into_iter()
        .filter(|k| !stored.contains(k))
        .map(str::to_string)
        .collect();
    Ok((unknown, stored.into_iter().map(str::to_string).collect()))
}

/// The error of a command that needs runs and selected none: the selector's
/// ([`nothing_selected`]), or without one, that the database holds no runs.
pub fn nothing_to_read(store: &Db, sel: &Selector, text: Option<&str>) -> Result<anyhow::Error> {
    Ok(match text {
        Some(text) => nothing_selected(store, sel, text, "selector")?.into(),
        None => anyhow::anyhow!("the database holds no runs: `bench-db ingest PATH` first"),
    })
}

/// The message for a selector that selects no run: a line, then one for each term that
/// matches nothing on its own, indented when shown.
pub fn nothing_selected(store: &Db, sel: &Selector, text: &str, what: &str) -> Result<Lines> {
    let all = select_heads(store, &Selector::all())?;
    let head = format!("{what} {text:?} selects no run");
    if all.is_empty() {
        return Ok(Lines(vec![format!(
            "{head} (the database holds no runs: `bench-db ingest PATH` first)"
        )]));
    }
    let mut msg = vec![head];
    for term in &sel.terms {
        let alone = Selector {
            terms: vec![term.clone()],
            post: Vec::new(),
        };
        // A lone plain term is answered by the database alone: ids, no runs loaded.
        if !store.select_ids(&alone)?.is_empty() {
            continue;
        }
        let (key, want, stored): (String, &str, Vec<&str>) = match term {
            Term::Label(v) => (
                "label".into(),
                v,
                all.iter().map(|r| r.label.as_str()).collect(),
            ),
            Term::Suite(v) => (
                "suite".into(),
                v,
                all.iter().map(|r| r.suite.as_str()).collect(),
            ),
            Term::Source(v) => (
                "source".into(),
                v,
                all.iter().map(|r| r.source.as_str()).collect(),
            ),
            Term::Tag(k, v) => (
                format!("tag.{k}"),
                v,
                all.iter()
                    .filter_map(|r| r.run.tags.get(k).map(String::as_str))
                    .collect(),
            ),
            Term::Bench(v) => (
                "bench".into(),
                v,
                all.iter().filter_map(|r| r.run.bench.as_deref()).collect(),
            ),
            Term::Param(k, v) => (format!("param.{k}"), v, Vec::new()),
            Term::Runs(_) => {
                msg.push("no run has those ids (`bench-db runs` lists them)".to_string());
                continue;
            }
        };
        let near = near_matches(want, &stored, 5);
        if near.is_empty() {
            msg.push(format!("no run has {key}={want}"));
        } else {
            let near: Vec<String> = near.iter().map(|n| format!("{key}={n}")).collect();
            msg.push(format!(
                "no run has {key}={want}; near matches: {}",
                near.join(" | ")
            ));
        }
    }
    Ok(Lines(msg))
}

/// Errors on a `--metric` that no selected run has, naming the nearest metrics.
pub fn check_metrics(wanted: &[String], sides: &[&[StoredRun]]) -> Result<()> {
    let mut known: Vec<String> = Vec::new();
    for r in sides.iter().flat_map(|s| s.iter()) {
        for s in &r.run.series {
            if !known.contains(&s.metric) {
                known.push(s.metric.clone());
            }
        }
    }
    check_metric_names(wanted, &known)
}

/// [`check_metrics`] against the metric names of the selection, in first-seen order.
pub fn check_metric_names(wanted: &[String], known: &[String]) -> Result<()> {
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
    for m in wanted {
        if known.contains(&m.as_str()) {
            continue;
        }
        let near = near_matches(m, &known, 5);
        if near.is_empty() {
            bail!(
                "--metric {m:?}: no selected run has it (metrics: {})",
                nearest_first(m, &known, 12).join(", ")
            );
        }
        bail!(
            "--metric {m:?}: no selected run has it; did you mean {}?",
            near.join(" or ")
        );
    }
    Ok(())
}

/// The most (suite, label) pairs [`earlier_invocations`] looks up: beyond, a comparison
/// is not of one invocation a side.
const EARLIER_PAIRS: usize = 4;

/// The options of a comparison of two sides (`compare`, `gate`) given by `selectors`
/// ([`parse_sides`]): run 1 kept or not, the axis the two selectors differ on, and the
/// earlier invocations of a one-invocation pair.
pub fn compare_options(
    store: &Db,
    selectors: &(Selector, Selector),
    warm_up: &WarmUp,
    base: &[StoredRun],
    cand: &[StoredRun],
) -> Result<CompareOptions> {
    Ok(CompareOptions {
        include_first: warm_up.include_first,
        axis: Axis::of(&Contrast::between(&selectors.0, &selectors.1)),
        earlier: earlier_invocations(store, base, cand)?,
        ..CompareOptions::default()
    })
}

/// Earlier invocations of what two sides measured: the runs of their suites and labels
/// outside both sides, stored no later than the later side, of the baseline's branch when
/// its runs name one (a pull request's deliberate change is not the noise of main), with
/// copies counted once. Looked up only when, on each side, every benchmark (suite, label,
/// benchmark and configuration) comes from one invocation ([`StoredRun::invocation`]):
/// there their spread is the noise floor of the comparison; empty otherwise.
fn earlier_invocations(
    store: &Db,
    baseline: &[StoredRun],
    candidate: &[StoredRun],
) -> Result<Vec<StoredRun>> {
    let one_invocation = |runs: &[StoredRun]| {
        let mut seen: HashMap<GroupKey, (i64, u32)> = HashMap::new();
        runs.iter().all(|r| {
            let mut key = r.group_key();
            key.block_id = 0;
            *seen.entry(key).or_insert_with(|| r.invocation()) == r.invocation()
        })
    };
    if baseline.is_empty()
        || candidate.is_empty()
        || !one_invocation(baseline)
        || !one_invocation(candidate)
    {
        return Ok(Vec::new());
    }
    let latest = baseline
        .iter()
        .chain(candidate)
        .filter_map(crate::selector::run_time)
        .max();
    let branches: BTreeSet<Option<&String>> =
        baseline.iter().map(|r| r.run.tags.get("branch")).collect();
    let branch = match branches.into_iter().collect::<Vec<_>>()[..] {
        [Some(b)] => Some(b.clone()),
        _ => None,
    };
    let sides: HashSet<i64> = baseline.iter().chain(candidate).map(|r| r.id).collect();
    // A label ingest fell back to (the file's name) names no condition: such runs are
    // looked up by suite, and kept where their label is not given either.
    let pairs: BTreeSet<(&str, Option<&str>)> = baseline
        .iter()
        .chain(candidate)
        .map(|r| (r.suite.as_str(), r.given_label()))
        .collect();
    if pairs.len() > EARLIER_PAIRS {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for (suite, label) in pairs {
        let mut terms = vec![Term::Suite(suite.to_string())];
        terms.extend(label.map(|l| Term::Label(l.to_string())));
        terms.extend(branch.iter().map(|b| Term::Tag("branch".into(), b.clone())));
        let sel = Selector {
            terms,
            post: Vec::new(),
        };
        out.extend(select_series(store, &sel)?.into_iter().filter(|r| {
            !sides.contains(&r.id)
                && r.given_label() == label
                && crate::selector::run_time(r) <= latest
        }));
    }
    let (left_out, _) = copies::find(out.iter());
    left_out.apply(&mut out);
    Ok(out)
}
