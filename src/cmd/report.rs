//! `bench-db report`: selects runs, compares the sides asked for (or one suite and label
//! on two branches), builds the site model (`analysis::site`), draws its pages with
//! `report::html` and writes them under `--out`, `index.html` last. The only IO of the
//! report.
//!
//! Memory stays flat in the history's length: the selection's heads are read first
//! (no series) to plan each suite; then one suite at a time its runs are read with their
//! series, its group pages written as their groups are whole, its page written and let
//! go, and the index drawn at the end from each suite's small summary.
//!
//! Four threads share the work: one reads and decodes the runs, one builds each suite's
//! histories from them as they pass, one draws and writes the group pages, and the
//! calling thread builds the rest. Their output is the same as one thread's.

use super::select::select_some;
use crate::analysis::history::HistoryOptions;
use crate::analysis::pairing::Comparison;
use crate::analysis::{pairing, site, slo};
use crate::cli::{ReportArgs, Sides};
use crate::dataset::StoredRun;
use crate::report::html;
use crate::selector::{Selector, Term};
use crate::store::url::Target;
use crate::store::{Db, Detail};
use anyhow::{Context, Result};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender};

pub fn run(db: &Target, args: &ReportArgs) -> Result<u8> {
    small_pages();
    let store = Db::open_read(db)?;
    let sel = Selector::parse_opt(args.selector.as_deref())?;
    let slo = match &args.slo {
        Some(text) => slo::parse(text).context("--slo")?,
        None => Vec::new(),
    };
    let opts = site::Options { slo };
    let sides = match &args.sides.sides() {
        Some(Sides {
            baseline: b,
            candidate: c,
        }) => {
            let base_sel = Selector::parse(b)?;
            let base = select_some(&store, &base_sel, b, "--baseline")?;
            let mut cand = select_some(&store, &Selector::parse(c)?, c, "--candidate")?;
            let mut base =
                super::select::baseline_without_candidate(&base_sel, base, &cand, |wider| {
                    super::select::select(&store, wider)
                })?;
            super::select::count_copies_once(&store, &mut base, &mut cand)?;
            let (bn, cn) = pairing::side_names(&refs(&base), &refs(&cand));
            let comparison = pairing::compare(&bn, &refs(&base), &cn, &refs(&cand));
            Some((comparison, base.into_iter().chain(cand).collect::<Vec<_>>()))
        }
        None => None,
    };
    let (side_comparison, side_runs) = match sides {
        Some((c, runs)) => (Some(c), runs),
        None => (None, Vec::new()),
    };
    let suites = plan(&store, &sel, side_runs)?;
    let total: usize = suites.values().map(|s| s.ids.len() + s.sides.len()).sum();
    if total == 0 {
        eprintln!("bench-db report: no runs selected; writing an empty report");
    }
    let suite_names: Vec<String> = suites.keys().cloned().collect();
    let names = html::page_names(suite_names.iter().map(String::as_str));
    let history = HistoryOptions::default();
    let (reads, mut builders): (Vec<_>, Vec<_>) = suites
        .into_iter()
        .map(|(suite, p)| {
            let b = site::SuiteBuilder::new(&suite, p.plan, &opts, &history);
            ((p.ids, p.sides), (suite, b))
        })
        .unzip();
    // Each suite's histories are built on a thread of their own as its runs pass.
    let series: Vec<_> = builders.iter_mut().map(|(_, b)| b.take_series()).collect();
    let group_pages: Vec<GroupPages> = builders
        .iter()
        .map(|(suite, b)| {
            let (groups, pages) = b.planned_pages();
            GroupPages {
                suite: suite.clone(),
                name: names[suite.as_str()].clone(),
                groups,
                pages,
            }
        })
        .collect();
    // Four threads: one reads and decodes the runs, one builds the histories from them on
    // their way, one draws and writes the group pages, and this one builds the rest.
    let (drawn, early) = std::thread::scope(|scope| -> Result<_> {
        let (read_tx, read) = std::sync::mpsc::sync_channel(READ_AHEAD);
        let reader = std::thread::Builder::new()
            .name("report-read".into())
            .spawn_scoped(scope, move || read_suites(&store, reads, &read_tx))
            .context("starting the reading thread")?;
        let (runs_tx, runs) = std::sync::mpsc::sync_channel(READ_AHEAD);
        let (histories_tx, histories) = std::sync::mpsc::channel();
        let historian = std::thread::Builder::new()
            .name("report-history".into())
            .spawn_scoped(scope, move || {
                build_histories(scope, series, read, &runs_tx, &histories_tx)
            })
            .context("starting the history thread")?;
        let (pages_tx, pages) = std::sync::mpsc::sync_channel(4);
        let out = &args.out;
        let writer = std::thread::Builder::new()
            .name("report-write".into())
            .spawn_scoped(scope, move || write_group_pages(out, &group_pages, pages))
            .context("starting the writing thread")?;
        let drawn = draw_suites(
            builders,
            Incoming {
                runs: &runs,
                histories: &histories,
            },
            &pages_tx,
            &args.out,
            &names,
            side_comparison.as_ref(),
        );
        drop((runs, histories, pages_tx));
        // A failed read or write stopped the drawing: its error is the one to tell.
        joined(reader)?;
        joined(historian);
        let early = joined(writer)?;
        Ok((drawn?, early))
    })?;
    let Drawn {
        mut comparisons,
        left_out,
        summaries,
        files: suite_files,
    } = drawn;
    let mut files = vec![args.out.join("index.html")];
    for (suite, early) in suite_files.into_iter().zip(early) {
        // The suite page, then its group pages in order.
        let mut pages = suite.into_iter();
        files.extend(pages.next());
        files.extend(early);
        files.extend(pages);
    }
    if let Some(c) = side_comparison.filter(|c| !names.contains_key(c.suite.as_str())) {
        // Sides of no suite page still show on the index.
        comparisons.push(c);
    }
    // The index last: a report stopped by an error (a full disk) never leaves an index
    // linking to pages that were not written.
    let index = html::index(total, &comparisons, &left_out, &summaries, &names);
    write_site(&args.out, &[("index.html".to_string(), index)])?;
    if args.output.json() {
        let doc = serde_json::json!({
            "schema": 1,
            "index": args.out.join("index.html"),
            "files": files,
            "runs": total,
            "comparisons": comparisons.iter().map(|c| {
                // The cells the index lists under "Got worse" and "Got better".
                let cells = |direction: bool| {
                    c.deltas
                        .iter()
                        .filter(|d| d.direction == Some(direction))
                        .map(|d| serde_json::json!({
                            "metric": d.metric,
                            "percentile": d.percentile,
                            "delta_pct": d.delta_pct,
                            "verdict": d.verdict,
                            // The cell's benchmark, as `compare --json` names it.
                            "bench": d.bench,
                            "config": d.config.iter().cloned().collect::<std::collections::BTreeMap<_, _>>(),
                            "central_delta_pct": d.central_delta_pct,
                        }))
                        .collect::<Vec<_>>()
                };
                serde_json::json!({
                    "suite": c.suite,
                    "baseline": c.baseline,
                    "candidate": c.candidate,
                    "worse": cells(false),
                    "better": cells(true),
                })
            }).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        println!("{}", args.out.join("index.html").display());
    }
    Ok(crate::exit::OK)
}

/// What the suite pages gave the index, in suite order.
struct Drawn {
    comparisons: Vec<Comparison>,
    /// Branches not compared (see [`site::Site::left_out`]).
    left_out: Vec<String>,
    summaries: Vec<site::SuiteSummary>,
    /// Each suite's page files, its page first.
    files: Vec<Vec<PathBuf>>,
}

/// What the drawing receives: each suite's runs then its end, and the histories of the
/// suites that had them taken ([`site::SuiteBuilder::take_series`]), by suite place, as
/// each is finished.
struct Incoming<'a> {
    runs: &'a Receiver<Read>,
    histories: &'a Receiver<(usize, site::SeriesPages)>,
}

/// Builds each suite's page from the runs `incoming` brings, in suite order, handing its
/// group pages to `pages` as their groups are whole, and writes the suite's page. A suite
/// whose histories are still being finished waits for them while the next suites' runs
/// go on coming; pages are finished in suite order.
fn draw_suites(
    builders: Vec<(String, site::SuiteBuilder)>,
    incoming: Incoming,
    pages: &SyncSender<(usize, site::GroupPage)>,
    out: &Path,
    names: &BTreeMap<&str, String>,
    side_comparison: Option<&Comparison>,
) -> Result<Drawn> {
    let mut drawn = Drawn {
        comparisons: Vec::new(),
        left_out: Vec::new(),
        summaries: Vec::new(),
        files: Vec::new(),
    };
    let mut waiting = Waiting {
        suites: std::collections::VecDeque::new(),
        arrived: BTreeMap::new(),
    };
    // Finishes the suites at the front whose histories are in, in order.
    let mut finish_ready = |waiting: &mut Waiting| -> Result<()> {
        for (suite, b) in waiting.ready() {
            finish_suite(&mut drawn, &suite, b, out, names, side_comparison)?;
        }
        Ok(())
    };
    for (at, (suite, mut b)) in builders.into_iter().enumerate() {
        // One suite at a time: its runs are read, its group pages written as they fill.
        loop {
            match incoming.runs.recv() {
                Ok(Read::Run(r)) => b.add(r),
                Ok(Read::End) => break,
                Err(_) => anyhow::bail!("the runs stopped coming"),
            }
            for p in b.take_group_pages() {
                pages
                    .send((at, p))
                    .map_err(|_| anyhow::anyhow!("the writing stopped"))?;
            }
            if !waiting.suites.is_empty() {
                waiting.arrived.extend(incoming.histories.try_iter());
                finish_ready(&mut waiting)?;
            }
        }
        waiting.suites.push_back((at, suite, b));
        waiting.arrived.extend(incoming.histories.try_iter());
        finish_ready(&mut waiting)?;
    }
    while !waiting.suites.is_empty() {
        let Ok(done) = incoming.histories.recv() else {
            anyhow::bail!("the histories stopped coming");
        };
        waiting.arrived.insert(done.0, done.1);
        finish_ready(&mut waiting)?;
    }
    Ok(drawn)
}

/// Suites whose runs are all in, in order, each with its place; and the histories that
/// arrived for them, by place.
struct Waiting<'o> {
    suites: std::collections::VecDeque<(usize, String, site::SuiteBuilder<'o>)>,
    arrived: BTreeMap<usize, site::SeriesPages>,
}

impl<'o> Waiting<'o> {
    /// The suites at the front that can be finished (their histories are in, or they
    /// awaited none), taken in order with their histories handed back.
    fn ready(&mut self) -> Vec<(String, site::SuiteBuilder<'o>)> {
        let mut ready = Vec::new();
        while let Some((at, _, b)) = self.suites.front() {
            if b.awaits_series() && !self.arrived.contains_key(at) {
                break;
            }
            let (at, suite, mut b) = self.suites.pop_front().expect("a waiting suite");
            if let Some(done) = self.arrived.remove(&at) {
                b.put_series(done);
            }
            ready.push((suite, b));
        }
        ready
    }
}

/// Finishes one suite whose runs and histories are all in: its comparisons, its page
/// written, and what the index says of it kept; the rest let go.
fn finish_suite(
    drawn: &mut Drawn,
    suite: &str,
    mut b: site::SuiteBuilder,
    out: &Path,
    names: &BTreeMap<&str, String>,
    side_comparison: Option<&Comparison>,
) -> Result<()> {
    let mine = match side_comparison {
        Some(c) => [c.clone()]
            .into_iter()
            .filter(|c| c.suite == suite)
            .collect::<Vec<_>>(),
        None => {
            let pairs = pairing::branch_pairs(&b.take_pair_runs());
            drawn.left_out.extend(pairs.left_out);
            pairs.comparisons
        }
    };
    let page = b.finish(&mine.iter().collect::<Vec<_>>());
    let files = html::suite_files(&page, &names[suite], &mine);
    write_site(out, &files)?;
    drawn
        .files
        .push(files.iter().map(|f| out.join(&f.0)).collect());
    drawn.summaries.push(page.summary());
    drawn.comparisons.extend(mine);
    Ok(())
}

/// One suite's group pages as each is drawn: the suite, its page name, and how many
/// groups and group pages it has.
struct GroupPages {
    suite: String,
    name: String,
    groups: usize,
    pages: usize,
}

/// Draws and writes the group pages `pages` brings (each with its suite's place in
/// `suites`); returns each suite's written files in order.
fn write_group_pages(
    out: &Path,
    suites: &[GroupPages],
    pages: Receiver<(usize, site::GroupPage)>,
) -> Result<Vec<Vec<PathBuf>>> {
    let mut written = vec![Vec::new(); suites.len()];
    for (at, p) in pages {
        let s = &suites[at];
        let page = html::group_page(&s.suite, &s.name, s.groups, s.pages, &p);
        write_site(out, std::slice::from_ref(&page))?;
        written[at].push(out.join(&page.0));
    }
    Ok(written)
}

/// One suite's runs, as known before their series are read.
#[derive(Default)]
struct Planned {
    /// Ids of its selected runs in id order, each with whether it keeps its block's
    /// printed numbers (see [`plan`]).
    ids: Vec<(i64, bool)>,
    /// The sides' runs the selector left out, by id: shown on the page too.
    sides: Vec<StoredRun>,
    plan: site::SuitePlan,
}

/// Reads the heads of the selected runs (no series) and plans each suite's page.
/// Each block's printed numbers are kept on its first run only (the variation tables
/// read them once per block; see `analysis::variation`). The sides' runs are added to
/// their suite's page even when the selector left them out.
fn plan(
    store: &Db,
    sel: &Selector,
    side_runs: Vec<StoredRun>,
) -> Result<BTreeMap<String, Planned>> {
    let mut suites: BTreeMap<String, Planned> = BTreeMap::new();
    let mut last_block = None;
    // The selected ids are needed only to tell the sides' other runs.
    let mut selected = HashSet::new();
    let sides = !side_runs.is_empty();
    // With parameters: a group is one benchmark and configuration of a block.
    store.for_each_run(sel, Detail::Row, |r| {
        let keeps_printed = last_block != Some(r.block_id);
        last_block = Some(r.block_id);
        if sides {
            selected.insert(r.id);
        }
        let s = match suites.get_mut(&r.suite) {
            Some(s) => s,
            None => suites.entry(r.suite.clone()).or_default(),
        };
        s.ids.push((r.id, keeps_printed));
        s.plan.add(&r);
        Ok(())
    })?;
    for r in side_runs {
        if !selected.insert(r.id) {
            continue;
        }
        let s = suites.entry(r.suite.clone()).or_default();
        s.plan.add(&r);
        s.sides.push(r);
    }
    for s in suites.values_mut() {
        s.sides.sort_by_key(|r| r.id);
    }
    Ok(suites)
}

/// Reads the runs of `ids` with their series, in id order, each block's printed numbers
/// on its first run only, with `sides` (runs already read) in their place by id.
fn stream(
    store: &Db,
    ids: &[(i64, bool)],
    sides: Vec<StoredRun>,
    mut f: impl FnMut(StoredRun) -> Result<()>,
) -> Result<()> {
    let mut sides = sides.into_iter().peekable();
    let mut at = 0;
    for chunk in ids.chunks(IDS_PER_READ) {
        let sel = Selector {
            terms: vec![Term::Runs(chunk.iter().map(|i| i.0).collect())],
            post: Vec::new(),
        };
        store.for_each_run(&sel, Detail::Points, |mut r| {
            while let Some(side) = sides.next_if(|s| s.id < r.id) {
                f(side)?;
            }
            while at < ids.len() && ids[at].0 < r.id {
                at += 1;
            }
            if ids.get(at).is_some_and(|i| i.0 == r.id && !i.1) {
                r.printed = Vec::new();
            }
            f(r)
        })?;
    }
    for side in sides {
        f(side)?;
    }
    Ok(())
}

/// Turns transparent huge pages off for this process (Linux; elsewhere nothing). The
/// report's threads hand runs and pages to one another, so the allocator keeps taking
/// fresh memory as the history passes, and on 2 MiB pages each first touch has the kernel
/// zero a whole 2 MiB page: 10% of the report's CPU time on a 100k-run history. On 4 KiB
/// pages the report took 2.0 s and 155–163 MB where it took 2.3 s and 190–209 MB (medians
/// of 6 alternating runs). The short commands keep huge pages: a `gate` faults its 20 MB
/// in fewer, larger pages, 14 ms against 16 ms with them off.
fn small_pages() {
    // SAFETY: `PR_SET_THP_DISABLE` reads its integer arguments only; a kernel without it
    // answers EINVAL, and the report runs as before.
    #[cfg(target_os = "linux")]
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// What a thread returned; its panic goes on here.
fn joined<T>(thread: std::thread::ScopedJoinHandle<'_, T>) -> T {
    thread
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// What the reading thread sends: a run, or the end of a suite's runs.
// Nearly every message is a run: boxing it would cost an allocation each.
#[allow(clippy::large_enum_variant)]
enum Read {
    Run(StoredRun),
    End,
}

/// Sends each suite's runs (see [`stream`]) down `tx`, then the suite's end. Stops
/// quietly when the receiving side has gone: its own error tells why.
fn read_suites(store: &Db, suites: Vec<ReadPlan>, tx: &SyncSender<Read>) -> Result<()> {
    let mut gone = false;
    for (ids, sides) in suites {
        let sent = stream(store, &ids, sides, |r| {
            gone = tx.send(Read::Run(r)).is_err();
            anyhow::ensure!(!gone, "the drawing stopped");
            Ok(())
        })
        .map(|()| gone = tx.send(Read::End).is_err());
        match sent {
            Err(_) | Ok(()) if gone => return Ok(()),
            other => other?,
        }
    }
    Ok(())
}

/// Passes each suite's runs from `runs` on to `tx`, each first added to the suite's
/// histories when it has them (`series`, in suite order), then the suite's end; each
/// suite's histories are finished on a thread of their own (the change points of a long
/// history take a while) and sent down `done` with the suite's place. Stops when either
/// side has gone: the reader's or the drawing's error tells why.
fn build_histories<'scope, 'o: 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    series: Vec<Option<site::SuiteSeries<'o>>>,
    runs: Receiver<Read>,
    tx: &SyncSender<Read>,
    done: &std::sync::mpsc::Sender<(usize, site::SeriesPages)>,
) {
    for (at, mut series) in series.into_iter().enumerate() {
        loop {
            let Ok(read) = runs.recv() else { return };
            if let (Read::Run(r), Some(series)) = (&read, &mut series) {
                series.add(r);
            }
            let end = matches!(read, Read::End);
            if tx.send(read).is_err() {
                return;
            }
            if end {
                break;
            }
        }
        if let Some(series) = series {
            let done = done.clone();
            scope.spawn(move || {
                // The drawing has gone when this fails: its error tells why.
                let _ = done.send((at, series.finish()));
            });
        }
    }
}

/// One suite's runs to read: their ids, each with whether it keeps its block's printed
/// numbers, and the sides' runs already read (see [`Planned`]).
type ReadPlan = (Vec<(i64, bool)>, Vec<StoredRun>);

/// Runs decoded ahead of the next step (the histories, the drawing), at most.
const READ_AHEAD: usize = 256;

/// Runs read per query (each id is a bound value).
const IDS_PER_READ: usize = 10_000;

/// Writes the pages under `out`, `index.html` last: a report stopped by an error (a
/// full disk) never leaves an index linking to pages that were not written.
fn write_site(out: &Path, files: &[(String, String)]) -> Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let (index, pages): (Vec<_>, Vec<_>) = files.iter().partition(|f| f.0 == "index.html");
    for (name, text) in pages.into_iter().chain(index) {
        let path = out.join(name);
        write_atomically(&path, text.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// Writes `path` through a temporary file beside it and a rename, so an interrupted
/// report leaves the previous page or the new one, never half of one.
/// The temporary name is private to this process (`.NAME.PID.tmp`).
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let written = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

fn refs(runs: &[StoredRun]) -> Vec<&StoredRun> {
    runs.iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_is_written_after_every_page() {
        let dir = tempfile::tempdir().unwrap();
        let files: Vec<(String, String)> = ["index.html", "suite-a.html", "suite-b.html"]
            .iter()
            .map(|n| (n.to_string(), format!("<p>{n}</p>")))
            .collect();
        // suite-b.html cannot be written: a directory holds its name.
        std::fs::create_dir_all(dir.path().join("suite-b.html/x")).unwrap();
        let err = write_site(dir.path(), &files).unwrap_err();
        assert!(format!("{err:#}").contains("suite-b.html"), "{err:#}");
        assert!(!dir.path().join("index.html").exists());
        assert!(dir.path().join("suite-a.html").exists());
        // No temporary file is left behind.
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");

        std::fs::remove_dir_all(dir.path().join("suite-b.html")).unwrap();
        write_site(dir.path(), &files).unwrap();
        let index = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
        assert_eq!(index, "<p>index.html</p>");
    }
}
