//! `bench-db ingest PATH...`: walk the paths, detect each file's format, store it.
//!
//! Each file is read once: its head (kept in memory) decides the format, then the parser
//! reads the head again followed by the rest of the same stream, and the SHA-256 that
//! identifies the content is computed as the bytes go by. One reading thread
//! (`reading`) does this for every file in turn and hands the parsed items to the store
//! through a bounded queue, so that it opens, recognises and parses a file while the
//! store writes and commits the one before. Each file is its own transaction; a failing
//! file or folder entry is reported (with `path:line`) and the others go on; exit code 2
//! at the end when any failed. A failure of the database itself (a lost PostgreSQL
//! connection, a SQLite file that cannot be written or is corrupt) would fail every later
//! file too: it stops the ingest at once, with one line saying how many files were stored
//! before. Error and warning lines are escaped and cut ([`escape`]). `-` reads standard
//! input. A closed standard output stops the printing, never the work.

use crate::cli::IngestArgs;
use crate::output::escape;
use crate::store::open_error;
use crate::store::url::Target;
use crate::store::{Db, IngestError};
use anyhow::{Context, Result, bail};
use bench_db_parsers::{Format, format_by_name};
use inputs::{Input, collect_inputs, is_stdin};
use outcome::{NOT_RECOGNISED, read_failure, said};
use reading::{Check, Job, Parsing, Reading, hash_all, read_head};
use serde::Serialize;
use std::fs::File;
use std::io::{Cursor, Read, Seek, Write};
use std::path::Path;
use std::sync::mpsc::Receiver;

mod inputs;
mod outcome;
mod reading;

pub use inputs::shown_path;
pub use outcome::{FileOutcome, Status};

#[derive(Debug, Serialize)]
struct Summary<'a> {
    /// Version of this document's shape.
    schema: u32,
    files: &'a [FileOutcome],
    ingested: usize,
    unchanged: usize,
    skipped: usize,
    errors: usize,
}

pub fn run(db: &Target, args: &IngestArgs) -> Result<u8> {
    let forced = match &args.parser {
        Some(name) => Some(format_by_name(name).with_context(|| {
            let known: Vec<_> = bench_db_parsers::formats().iter().map(|f| f.name).collect();
            format!("unknown format {name:?} (known: {})", known.join(", "))
        })?),
        None => None,
    };
    let stdin_count = args.paths.iter().filter(|p| is_stdin(p)).count();
    if stdin_count > 1 {
        bail!("`-` (standard input) can be given once");
    }
    if args.name.is_some() && stdin_count == 0 {
        bail!("--name names standard input; give `-` among the paths");
    }
    // A PostgreSQL store has no file a walk could meet.
    let inputs = collect_inputs(&args.paths, db.as_path().unwrap_or(Path::new("")));
    if !args.no_git {
        crate::metadata::detect_beside();
    }
    let mut store = Db::open(db)?;
    let sizes: Vec<u64> = inputs.iter().map(Input::size).collect();
    let progress = progress_bar(&sizes);
    // Asked once, so that the reading thread knows which files to hand the store for a
    // content check before parsing them. A store that cannot answer has every file
    // checked, one after the other: its error is then each file's, as it is met.
    let stored_sizes = store.stored_sizes(&sizes).ok();
    let reading = Reading {
        forced,
        args,
        progress: &progress,
    };
    let mut out = Out::default();
    let mut outcomes = Vec::with_capacity(inputs.len());
    std::thread::scope(|scope| -> Result<()> {
        let (send, jobs) = std::sync::mpsc::sync_channel(1);
        let reader = std::thread::Builder::new().name("parse".into());
        reader.spawn_scoped(scope, || reading.read_all(&inputs, stored_sizes, send))?;
        // The bar counts bytes: parsing advances it within a file (one 200 MB log moves
        // it too), and each file ends at its full size whether parsed, skipped or not.
        let mut done = 0;
        for (input, size) in inputs.iter().zip(&sizes) {
            done += size;
            let mut outcome = match input {
                Input::Unreadable { path, error } => {
                    FileOutcome::failed(path, format!("{path}: {error}"))
                }
                Input::NotAFile { path, what } => FileOutcome::skipped(path, what),
                Input::Stdin | Input::File(_) => {
                    match next_outcome(&mut store, db, forced, &jobs) {
                        Some(outcome) => outcome,
                        // The reading thread ended early: it panicked, which the scope
                        // passes on.
                        None => break,
                    }
                }
            };
            if outcome.fatal {
                let stored = outcomes
                    .iter()
                    .filter(|o: &&FileOutcome| {
                        matches!(o.status, Status::Ingested | Status::Unchanged)
                    })
                    .count();
                let left = inputs.len() - outcomes.len() - 1;
                if let Some(e) = &mut outcome.error {
                    e.push_str(&format!(
                        "; stopped: {} stored before it, {} not read",
                        crate::output::plural(stored, "file"),
                        crate::output::plural(left, "file")
                    ));
                }
            }
            if let Some(e) = &outcome.error {
                progress.suspend(|| eprintln!("bench-db: error: {}", escape::text(e)));
            } else if !args.output.json {
                progress.suspend(|| out.line(&human_line(&outcome)));
            }
            progress.set_position(done);
            let fatal = outcome.fatal;
            outcomes.push(outcome);
            if fatal {
                break;
            }
        }
        // The reading thread stops at its next hand-over.
        drop(jobs);
        Ok(())
    })?;
    progress.finish_and_clear();
    note_copies(&store, &mut outcomes);
    let count = |s: Status| outcomes.iter().filter(|o| o.status == s).count();
    let summary = Summary {
        schema: 1,
        files: &outcomes,
        ingested: count(Status::Ingested),
        unchanged: count(Status::Unchanged),
        skipped: count(Status::Skipped),
        errors: count(Status::Error),
    };
    if args.output.json {
        out.line(&serde_json::to_string_pretty(&summary)?);
    } else {
        out.line(&format!(
            "{} ingested, {} unchanged, {} skipped, {}",
            summary.ingested,
            summary.unchanged,
            summary.skipped,
            crate::output::plural(summary.errors, "error")
        ));
    }
    Ok(if summary.errors > 0 {
        crate::exit::ERROR
    } else {
        crate::exit::OK
    })
}

/// Names, for each file stored now, the sources stored before with the same bytes, and
/// warns of them: the same output ingested again (under another commit, from another
/// path) is a copy, not a new measurement. One store call for all the files; a store that
/// cannot answer leaves the files unnamed, as this is a courtesy.
fn note_copies(store: &Db, outcomes: &mut [FileOutcome]) {
    let ingested = |o: &FileOutcome| o.status == Status::Ingested;
    let hashes: std::collections::BTreeSet<&String> = outcomes
        .iter()
        .filter(|o| ingested(o))
        .filter_map(|o| o.sha256.as_ref())
        .collect();
    if hashes.is_empty() {
        return;
    }
    let hashes: Vec<String> = hashes.into_iter().cloned().collect();
    let Ok(stored) = store.sources_with_content(&hashes) else {
        return;
    };
    for o in outcomes.iter_mut().filter(|o| ingested(o)) {
        let Some(sha) = &o.sha256 else { continue };
        let mut same: Vec<(i64, &String)> = stored
            .iter()
            .filter(|(h, _, _)| h == sha)
            .map(|(_, id, path)| (*id, path))
            .collect();
        // The file's own source is the newest with its path.
        if let Some(own) = same.iter().rposition(|(_, p)| **p == o.path) {
            same.remove(own);
        }
        o.same_bytes_as = same.iter().map(|(_, p)| (*p).clone()).collect();
        if let Some((id, path)) = same.first() {
            let more = match same.len() - 1 {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            eprintln!(
                "bench-db: warning: {}: the same bytes as source {id} ({}){more}, stored before under other tags: a copy of one output, not a new measurement",
                escape::text(&o.path),
                escape::text(path),
            );
        }
    }
}

/// Standard output that stops printing when it is closed (`ingest … | head`) while
/// the ingest goes on: the files are what matters, the lines are a courtesy.
#[derive(Default)]
struct Out {
    closed: bool,
}

impl Out {
    fn line(&mut self, text: &str) {
        if self.closed {
            return;
        }
        let mut o = std::io::stdout().lock();
        if writeln!(o, "{text}").and_then(|()| o.flush()).is_err() {
            self.closed = true;
        }
    }
}

fn human_line(o: &FileOutcome) -> String {
    let status = match o.status {
        Status::Ingested => "ingested ",
        Status::Unchanged => "unchanged",
        Status::Skipped => "skipped  ",
        Status::Error => "error    ",
    };
    // A path is quoted by `shown_path`; a `--name` is as the user typed it.
    let path = escape::text(&o.path);
    match (&o.format, o.status, &o.reason) {
        (_, Status::Skipped, Some(why)) => format!("{status} {path} ({why})"),
        (Some(f), Status::Ingested, _) => format!(
            "{status} {path} ({f}, {})",
            crate::output::plural(o.runs, "run")
        ),
        (Some(f), _, _) => format!("{status} {path} ({f})"),
        (None, _, _) => format!("{status} {path} ({NOT_RECOGNISED})"),
    }
}

/// The reason of a file whose format was detected (or given) but whose parser found
/// nothing to store: the lines that looked like the format were not a result.
fn no_result(format: &str, forced: bool) -> String {
    if forced {
        format!("parsed as {format} (--parser), but it holds no {format} result")
    } else {
        format!("looks like {format}, but its parser found no result in it")
    }
}

/// A database error met while ingesting one file, as its line, and whether it ends the
/// ingest: a PostgreSQL server that went away, or a SQLite database that cannot be written
/// or is corrupt, fails every later file the same way.
fn store_failure(target: &Target, e: anyhow::Error) -> (String, bool) {
    if open_error::connection_lost(e.as_ref()) {
        let cause = e.root_cause().to_string();
        return (
            format!(
                "the connection to PostgreSQL was lost ({}): the server went away or ended \
                 it; check that it runs and ingest again (the files stored are then unchanged)",
                said(&cause)
            ),
            true,
        );
    }
    if let Target::Sqlite(path) = target
        && open_error::classify(&e) != open_error::Failure::Other
    {
        let line = format!("{:#}", open_error::sqlite(path, e));
        return (said(&line).into_owned(), true);
    }
    (
        format!("database error: {}", said(&format!("{e:#}"))),
        false,
    )
}

/// A bar over the inputs' `sizes` ([`Input::size`]), shown on a terminal for a large ingest.
fn progress_bar(sizes: &[u64]) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    let bytes: u64 = sizes.iter().sum();
    let large = sizes.len() > 50 || bytes > 64 << 20;
    if !(large && std::io::stderr().is_terminal()) {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(bytes);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{bar:40} {bytes}/{total_bytes} {binary_bytes_per_sec} {elapsed}",
    ) {
        bar.set_style(style);
    }
    bar
}

/// The outcome of the next input, from the store's side of the jobs: `None` when the
/// reading thread is gone. `forced` is the `--parser` format.
fn next_outcome(
    store: &mut Db,
    target: &Target,
    forced: Option<&'static Format>,
    jobs: &Receiver<Job>,
) -> Option<FileOutcome> {
    loop {
        match jobs.recv().ok()? {
            Job::Done(outcome) => return Some(outcome),
            Job::Parse(parsing) => {
                return Some(store_parsed(store, target, forced.is_some(), *parsing));
            }
            Job::Check(check) => {
                if let Some(outcome) = check_stored(store, target, check) {
                    return Some(outcome);
                }
                // Handed back: its parsing job comes next.
            }
        }
    }
}

/// The line of a database error met on one file, and whether it ends the ingest.
fn db_failure(target: &Target, shown: &str, e: anyhow::Error) -> (String, bool) {
    let (line, stop) = store_failure(target, e);
    (format!("{shown}: {line}"), stop)
}

/// A file whose size a stored source has: hashed and looked up, as content that is
/// stored is not parsed again. `None` when it is not stored and went back to be parsed.
fn check_stored(store: &mut Db, target: &Target, check: Check) -> Option<FileOutcome> {
    let Check {
        shown,
        mut file,
        bytes,
        identity,
        parse,
    } = check;
    let mut outcome = FileOutcome::new(&shown);
    let look = || -> Result<Option<File>, (String, bool)> {
        let io = |e: std::io::Error| (read_failure(&shown, &e), false);
        let db = |e: anyhow::Error| db_failure(target, &shown, e);
        if !store.stored_sizes(&[bytes]).map_err(db)?.contains(&bytes) {
            return Ok(Some(file));
        }
        let (head, _) = read_head(&mut file).map_err(io)?;
        let digest = hash_all(Cursor::new(&head).chain(&mut file)).map_err(io)?;
        if let Some(format) = store.stored_format(&digest.sha256, &identity).map_err(db)? {
            // Stored as `format`, whichever parser this ingest names.
            outcome.format = Some(format);
            outcome.status = Status::Unchanged;
            return Ok(None);
        }
        file.rewind().map_err(io)?;
        Ok(Some(file))
    };
    match look() {
        Ok(Some(file)) => match parse.send(file) {
            Ok(()) => None,
            Err(_) => Some(FileOutcome::failed(&shown, format!("{shown}: not read"))),
        },
        Ok(None) => Some(outcome),
        Err((error, fatal)) => {
            outcome.error = Some(error);
            outcome.fatal = fatal;
            Some(outcome)
        }
    }
}

/// `path:line` of a source as shown, escaped; inside a Criterion folder the file the line
/// is in and its own line (`…/new/sample.json:1`).
fn at_line(shown: &str, line: u64) -> String {
    match crate::cmd::criterion_dirs::place(Path::new(shown), line) {
        Some((file, l)) => format!("{}:{l}", escape::text(&file.to_string_lossy())),
        None => format!("{}:{line}", escape::text(shown)),
    }
}

/// Stores the items of a file parsed on the reading thread, in one transaction.
fn store_parsed(store: &mut Db, target: &Target, forced: bool, parsing: Parsing) -> FileOutcome {
    let Parsing {
        mut outcome,
        format,
        meta,
        defaults,
        items,
        digest,
    } = parsing;
    let shown = outcome.path.clone();
    let mut sha256 = None;
    let stored = store.ingest_prepared(&meta, items.into_iter(), &defaults, || {
        let d = digest
            .recv()
            .unwrap_or_else(|_| Err(std::io::Error::other("the parser stopped early")));
        if let Ok(d) = &d {
            sha256 = Some(d.sha256.clone());
        }
        d
    });
    let failed = match stored {
        Ok(done) => {
            for (line, message) in &done.warnings {
                eprintln!(
                    "bench-db: warning: {}: {}: {}",
                    at_line(&shown, *line),
                    format.name,
                    escape::message(message)
                );
            }
            outcome.runs = done.runs;
            outcome.sha256 = sha256;
            outcome.status = if done.unchanged {
                Status::Unchanged
            } else if done.blocks == 0 {
                outcome.reason = Some(no_result(format.name, forced));
                Status::Skipped
            } else {
                Status::Ingested
            };
            return outcome;
        }
        Err(IngestError::Parse(e)) => (
            format!(
                "{}: {}: {}",
                at_line(&shown, e.line),
                format.name,
                said(&e.message)
            ),
            false,
        ),
        Err(IngestError::Db(e) | IngestError::Read(e)) => db_failure(target, &shown, e),
        Err(e) => (format!("{shown}: {}", said(&e.to_string())), false),
    };
    outcome.status = Status::Error;
    (outcome.error, outcome.fatal) = (Some(failed.0), failed.1);
    outcome
}
