//! `bench-db ingest PATH...`: walk the paths, detect each file's format, store it.
//!
//! Each file is read once: its head (kept in memory) decides the format, then the parser
//! reads the head again followed by the rest of the same stream, and the SHA-256 that
//! identifies the content is computed as the bytes go by. One reading thread does this
//! for every file in turn and hands the parsed items to the store through a bounded
//! queue, so that it opens, recognises and parses a file while the store writes and
//! commits the one before. Each file is its own transaction; a failing file or folder entry is reported (with `path:line`) and the
//! others go on; exit code 2 at the end when any failed. A failure of the database
//! itself (a lost PostgreSQL connection, a SQLite file that cannot be written or is
//! corrupt) would fail every later file too: it stops the ingest at once, with one line
//! saying how many files were stored before. Error and warning lines are escaped and cut
//! ([`escape`]). `-` reads standard input. A closed standard output stops the printing,
//! never the work.

use crate::cli::IngestArgs;
use crate::output::escape;
use crate::store::open_error;
use crate::store::url::Target;
use crate::store::{BlockDefaults, Db, Digest, IngestError, Prepare, Prepared, SourceMeta};
use anyhow::{Context, Result, bail};
use bench_db_parsers::{
    Format, Head, ParseError, Parsed, detect, format_by_name, registry::HEAD_BYTES,
};
use serde::Serialize;
use sha2::Sha256;
use std::borrow::Cow;
use std::collections::HashSet;
use std::fs::File;
use std::io::{BufReader, Cursor, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::{Arc, Mutex};

/// What happened to one file.
#[derive(Debug, Serialize)]
pub struct FileOutcome {
    pub path: String,
    pub format: Option<String>,
    pub status: Status,
    pub runs: usize,
    pub error: Option<String>,
    /// Why a file was skipped: no format recognised, or a format detected whose parser
    /// found no result in it.
    pub reason: Option<String>,
    /// The error is the database's, not the file's (a server gone, a database that
    /// cannot be written): every later file would fail the same way, so the ingest stops.
    #[serde(skip)]
    pub fatal: bool,
}

impl FileOutcome {
    /// A file not yet dealt with (an error until it is).
    fn new(path: &str) -> Self {
        FileOutcome {
            path: path.to_string(),
            format: None,
            status: Status::Error,
            runs: 0,
            error: None,
            reason: None,
            fatal: false,
        }
    }

    fn failed(path: &str, error: String) -> Self {
        FileOutcome {
            error: Some(error),
            ..FileOutcome::new(path)
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ingested,
    Unchanged,
    Skipped,
    Error,
}

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

/// One thing to ingest, or a walk error standing in for an entry that cannot be read.
enum Input {
    Stdin,
    File(PathBuf),
    Unreadable { path: String, error: String },
}

impl Input {
    /// The bytes of a regular file (0 for anything else): what the progress bar counts.
    fn size(&self) -> u64 {
        match self {
            Input::File(p) => p.metadata().map_or(0, |m| m.len()),
            _ => 0,
        }
    }
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
    let progress = progress_bar(&inputs);
    let sizes: Vec<u64> = inputs.iter().map(Input::size).collect();
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
                Input::Stdin | Input::File(_) => match next_outcome(&mut store, db, &jobs) {
                    Some(outcome) => outcome,
                    // The reading thread ended early: it panicked, which the scope
                    // passes on.
                    None => break,
                },
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

fn is_stdin(p: &Path) -> bool {
    p.as_os_str() == "-"
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

/// The reason of a file no format claims.
const NOT_RECOGNISED: &str = "no format recognised in its first 256 KiB";

/// The reason of a file whose format was detected (or given) but whose parser found
/// nothing to store: the lines that looked like the format were not a result.
fn no_result(format: &str, forced: bool) -> String {
    if forced {
        format!("parsed as {format} (--parser), but it holds no {format} result")
    } else {
        format!("looks like {format}, but its parser found no result in it")
    }
}

/// A path as stored and printed: as is when it is UTF-8 and plain, else quoted the way
/// `ls` quotes names, so that bytes that are not UTF-8 survive as `$'\NNN'`.
pub fn shown_path(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    let plain = |c: char| !c.is_control() && c != '\'';
    match std::str::from_utf8(bytes) {
        Ok(s) if s.chars().all(plain) => s.to_string(),
        _ => {
            let mut out = String::new();
            let mut quoted = false;
            for chunk in bytes.utf8_chunks() {
                for c in chunk.valid().chars() {
                    if plain(c) {
                        if !quoted {
                            out.push('\'');
                            quoted = true;
                        }
                        out.push(c);
                    } else {
                        if quoted {
                            out.push('\'');
                            quoted = false;
                        }
                        let mut buf = [0u8; 4];
                        for b in c.encode_utf8(&mut buf).bytes() {
                            out.push_str(&format!("$'\\{b:03o}'"));
                        }
                    }
                }
                if !chunk.invalid().is_empty() {
                    if quoted {
                        out.push('\'');
                        quoted = false;
                    }
                    for b in chunk.invalid() {
                        out.push_str(&format!("$'\\{b:03o}'"));
                    }
                }
            }
            if quoted {
                out.push('\'');
            }
            out
        }
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

/// A message from a parser or the store as an error line and the JSON `error` field
/// carry it: at most [`escape::MAX_MESSAGE`] characters (a 1 MB token echoed in a parse
/// error is cut), escaped only when printed.
fn said(message: &str) -> Cow<'_, str> {
    escape::cut(message, escape::MAX_MESSAGE)
}

/// Whether `entry` is the database or one of its companion files (`-wal`, `-shm`,
/// `-journal`), which a walk of the folder holding the database meets.
fn is_own_file(entry: &Path, db: &Path) -> bool {
    let (Some(name), Some(db_name)) = (entry.file_name(), db.file_name()) else {
        return false;
    };
    let mut ours = false;
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut own = db_name.to_os_string();
        own.push(suffix);
        ours |= own == name;
    }
    let dir = |p: &Path| {
        let parent = p.parent().filter(|d| !d.as_os_str().is_empty());
        parent.unwrap_or(Path::new(".")).canonicalize().ok()
    };
    ours && dir(entry).is_some_and(|d| dir(db) == Some(d))
}

/// Every file under the given paths, folders walked recursively in name order; an
/// entry that cannot be read becomes an [`Input::Unreadable`] and the walk goes on.
/// The database's own files are left out.
fn collect_inputs(paths: &[PathBuf], db: &Path) -> Vec<Input> {
    let mut out = Vec::new();
    for p in paths {
        if is_stdin(p) {
            out.push(Input::Stdin);
            continue;
        }
        match std::fs::metadata(p) {
            Err(e) => out.push(Input::Unreadable {
                path: shown_path(p),
                error: if e.kind() == std::io::ErrorKind::NotFound {
                    "no such file or folder".to_string()
                } else {
                    e.to_string()
                },
            }),
            Ok(m) if m.is_dir() => {
                let mut walked = Vec::new();
                for entry in walkdir::WalkDir::new(p).sort_by_file_name() {
                    match entry {
                        Ok(entry) if entry.file_type().is_dir() => {}
                        Ok(entry) if is_own_file(entry.path(), db) => {}
                        Ok(entry) => walked.push(entry.into_path()),
                        Err(e) => out.push(Input::Unreadable {
                            path: e.path().map_or_else(|| shown_path(p), shown_path),
                            error: e
                                .io_error()
                                .map_or_else(|| e.to_string(), ToString::to_string),
                        }),
                    }
                }
                // A Criterion measurement folder is one source, not its files.
                out.extend(
                    super::criterion_dirs::group(walked)
                        .into_iter()
                        .map(Input::File),
                );
            }
            Ok(_) => out.push(Input::File(p.clone())),
        }
    }
    out
}

fn progress_bar(inputs: &[Input]) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    let bytes: u64 = inputs
        .iter()
        .filter_map(|i| match i {
            Input::File(p) => p.metadata().ok().map(|m| m.len()),
            _ => None,
        })
        .sum();
    let large = inputs.len() > 50 || bytes > 64 << 20;
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

/// What the reading thread hands the store for one input, in the inputs' order.
enum Job {
    /// The outcome, known without the store: a file that cannot be read, or that no
    /// format claims.
    Done(FileOutcome),
    /// A file of a size some stored source has (or a file read before in this ingest
    /// had): the store hashes it and looks the content up, then either ends it as
    /// unchanged or hands it back for parsing.
    Check(Check),
    /// A file being parsed on the reading thread, its items taken as they come.
    Parse(Box<Parsing>),
}

struct Check {
    shown: String,
    file_name: String,
    file: File,
    bytes: u64,
    identity: String,
    forced: Option<&'static Format>,
    /// The file, rewound, back to the reading thread: not stored, so to be parsed.
    parse: SyncSender<File>,
}

struct Parsing {
    outcome: FileOutcome,
    format: &'static Format,
    forced: bool,
    meta: SourceMeta,
    defaults: BlockDefaults,
    items: Receiver<Result<Prepared, IngestError>>,
    /// The content's digest once the parser has read it all; nothing when it stopped.
    digest: Receiver<std::io::Result<Digest>>,
}

/// The outcome of the next input, from the store's side of the jobs: `None` when the
/// reading thread is gone.
fn next_outcome(store: &mut Db, target: &Target, jobs: &Receiver<Job>) -> Option<FileOutcome> {
    loop {
        match jobs.recv().ok()? {
            Job::Done(outcome) => return Some(outcome),
            Job::Parse(parsing) => return Some(store_parsed(store, target, *parsing)),
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

/// The line of a read error met on one file.
fn read_failure(shown: &str, e: &std::io::Error) -> String {
    format!("{shown}: {}", said(&e.to_string()))
}

/// A file whose size a stored source has: hashed and looked up, as content that is
/// stored is not parsed again. `None` when it is not stored and went back to be parsed.
fn check_stored(store: &mut Db, target: &Target, check: Check) -> Option<FileOutcome> {
    let Check {
        shown,
        file_name,
        mut file,
        bytes,
        identity,
        forced,
        parse,
    } = check;
    let mut outcome = FileOutcome::new(&shown);
    let look = || -> Result<Option<File>, (String, bool)> {
        let io = |e: std::io::Error| (read_failure(&shown, &e), false);
        let db = |e: anyhow::Error| db_failure(target, &shown, e);
        if !store.stored_sizes(&[bytes]).map_err(db)?.contains(&bytes) {
            return Ok(Some(file));
        }
        let (head, complete) = read_head(&mut file).map_err(io)?;
        let digest = hash_all(Cursor::new(&head).chain(&mut file)).map_err(io)?;
        if store.has_source(&digest.sha256, &identity).map_err(db)? {
            outcome.format = forced
                .or_else(|| sniff(&file_name, &head, complete))
                .map(|f| f.name.to_string());
            outcome.status = match outcome.format {
                Some(_) => Status::Unchanged,
                None => {
                    outcome.reason = Some(NOT_RECOGNISED.to_string());
                    Status::Skipped
                }
            };
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

/// Stores the items of a file parsed on the reading thread, in one transaction.
fn store_parsed(store: &mut Db, target: &Target, parsing: Parsing) -> FileOutcome {
    let Parsing {
        mut outcome,
        format,
        forced,
        meta,
        defaults,
        items,
        digest,
    } = parsing;
    let shown = outcome.path.clone();
    let stored = store.ingest_prepared(&meta, items.into_iter(), &defaults, || {
        digest
            .recv()
            .unwrap_or_else(|_| Err(std::io::Error::other("the parser stopped early")))
    });
    let failed = match stored {
        Ok(done) => {
            for (line, message) in &done.warnings {
                eprintln!(
                    "bench-db: warning: {}:{line}: {}: {}",
                    escape::text(&shown),
                    format.name,
                    escape::message(message)
                );
            }
            outcome.runs = done.runs;
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
            format!("{shown}:{}: {}: {}", e.line, format.name, said(&e.message)),
            false,
        ),
        Err(IngestError::Db(e) | IngestError::Read(e)) => db_failure(target, &shown, e),
        Err(e) => (format!("{shown}: {}", said(&e.to_string())), false),
    };
    outcome.status = Status::Error;
    (outcome.error, outcome.fatal) = (Some(failed.0), failed.1);
    outcome
}

/// The reading side of an ingest: what it needs of the command line.
struct Reading<'a> {
    forced: Option<&'static Format>,
    args: &'a IngestArgs,
    progress: &'a indicatif::ProgressBar,
}

/// The file sizes a stored source may have: the stored sizes among the inputs' (asked
/// before the reading starts; `None` when the store could not answer, then every size
/// may) and the sizes of the files read before in this ingest, which the store may hold
/// by the time it reaches this one.
struct Sizes {
    stored: Option<HashSet<u64>>,
    met: HashSet<u64>,
}

impl Sizes {
    fn may_be_stored(&mut self, bytes: u64) -> bool {
        let may =
            self.stored.as_ref().is_none_or(|s| s.contains(&bytes)) || self.met.contains(&bytes);
        self.met.insert(bytes);
        may
    }
}

/// A file opened and recognised, ready to be parsed.
struct Opened {
    shown: String,
    file_name: String,
    metadata: BlockDefaults,
    source: Source,
    head: Vec<u8>,
    format: &'static Format,
}

impl Reading<'_> {
    /// Reads the inputs in order on the reading thread, each opened, recognised and
    /// parsed while the store writes the one before, and hands over their jobs; stops
    /// when the store stops taking them.
    fn read_all(&self, inputs: &[Input], stored: Option<HashSet<u64>>, jobs: SyncSender<Job>) {
        let mut sizes = Sizes {
            stored,
            met: HashSet::new(),
        };
        for input in inputs {
            let path = match input {
                Input::Unreadable { .. } => continue,
                Input::Stdin => None,
                Input::File(path) => Some(path.as_path()),
            };
            if !self.read_input(path, &mut sizes, &jobs) {
                return;
            }
        }
    }

    /// Reads a file, or standard input when `path` is `None`; false when the store has
    /// stopped taking jobs.
    fn read_input(&self, path: Option<&Path>, sizes: &mut Sizes, jobs: &SyncSender<Job>) -> bool {
        let shown = match path {
            Some(p) => shown_path(p),
            None => self.args.name.clone().unwrap_or_else(|| "-".to_string()),
        };
        let mut outcome = FileOutcome::new(&shown);
        match self.open(path, shown, sizes, jobs) {
            Ok(Some(opened)) => self.parse(opened, outcome, jobs),
            // The store has the outcome.
            Ok(None) => true,
            Err(Unopened::Skipped) => {
                outcome.status = Status::Skipped;
                outcome.reason = Some(NOT_RECOGNISED.to_string());
                jobs.send(Job::Done(outcome)).is_ok()
            }
            Err(Unopened::Failed(error)) => {
                outcome.error = Some(error);
                jobs.send(Job::Done(outcome)).is_ok()
            }
        }
    }

    /// Opens an input and recognises its format; `None` when the store took the file
    /// to check its content and found it stored (or the store stopped).
    fn open(
        &self,
        path: Option<&Path>,
        shown: String,
        sizes: &mut Sizes,
        jobs: &SyncSender<Job>,
    ) -> Result<Option<Opened>, Unopened> {
        let io = |e: std::io::Error| Unopened::Failed(read_failure(&shown, &e));
        let name_path = match path {
            Some(p) => Some(p.to_path_buf()),
            None => self.args.name.as_ref().map(PathBuf::from),
        };
        let file_name = name_path
            .as_ref()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // The run metadata (tags from CI or git, the file's time) is read once per file:
        // the stored-content check and the ingest both use it.
        let metadata = metadata_defaults(self.args, path);
        let mut source: Source = match path {
            Some(p) if p.is_dir() || super::criterion_dirs::is_lone_estimates(p) => {
                super::criterion_dirs::open(p).map_err(io)?
            }
            Some(p) => {
                let mut file = File::open(p).map_err(io)?;
                let meta = file.metadata().map_err(io)?;
                // Re-ingesting a folder is common; a stored source of the same size is
                // worth one extra read to avoid parsing and inserting content that is
                // stored. That read keeps the head, which names the format of a file
                // found stored.
                if meta.is_file() && sizes.may_be_stored(meta.len()) {
                    let (parse, back) = std::sync::mpsc::sync_channel(1);
                    let check = Check {
                        shown: shown.clone(),
                        file_name: file_name.clone(),
                        file,
                        bytes: meta.len(),
                        identity: metadata.identity(),
                        forced: self.forced,
                        parse,
                    };
                    if jobs.send(Job::Check(check)).is_err() {
                        return Ok(None);
                    }
                    match back.recv() {
                        Ok(rewound) => file = rewound,
                        Err(_) => return Ok(None),
                    }
                }
                Box::new(self.progress.wrap_read(file))
            }
            None => Box::new(std::io::stdin()),
        };
        let (head, complete) = read_head(&mut source).map_err(io)?;
        let format = self
            .forced
            .or_else(|| sniff(&file_name, &head, complete))
            .ok_or(Unopened::Skipped)?;
        Ok(Some(Opened {
            shown,
            file_name,
            metadata,
            source,
            head,
            format,
        }))
    }

    /// Hands the store a recognised file's parsing job, then parses it (the head again,
    /// then the rest, hashed as it goes by) and passes each item through [`Prepare`]
    /// into the job's bounded queue; false when the store has stopped taking jobs.
    fn parse(&self, opened: Opened, mut outcome: FileOutcome, jobs: &SyncSender<Job>) -> bool {
        let Opened {
            shown,
            file_name,
            metadata,
            source,
            head,
            format,
        } = opened;
        outcome.format = Some(format.name.to_string());
        let (stream, hashed) = reread(head, source);
        let meta = SourceMeta {
            path: shown.clone(),
            format: format.name.to_string(),
            parser: format!("{} {}", format.name, format.version),
        };
        let fallback_label = if file_name.is_empty() {
            shown
        } else {
            file_name
        };
        let defaults = BlockDefaults {
            suite: self
                .args
                .suite
                .clone()
                .unwrap_or_else(|| format.name.to_string()),
            label_override: self.args.label.clone(),
            fallback_label,
            ..metadata
        };
        let (send_item, items) = std::sync::mpsc::sync_channel(QUEUE);
        let (send_digest, digest) = std::sync::mpsc::sync_channel(1);
        let job = Parsing {
            outcome,
            format,
            forced: self.forced.is_some(),
            meta,
            defaults: defaults.clone(),
            items,
            digest,
        };
        if jobs.send(Job::Parse(Box::new(job))).is_err() {
            return false;
        }
        let mut prepare = Prepare::new(&defaults);
        parse_into(
            stream,
            hashed,
            format,
            |item| prepare.item(item),
            &send_item,
            &send_digest,
        );
        true
    }
}

/// Parses `stream` as `format`, passes each item through `prepare` into `items` and,
/// once the parser has read it all, sends the digest of all it read. Stops at the first
/// failed item, or when the store stops taking them (then leaving the rest unread).
fn parse_into<R, P, E>(
    stream: BufReader<R>,
    hashed: Hashed<Source>,
    format: &'static Format,
    mut prepare: impl FnMut(Parsed) -> Result<P, E>,
    items: &SyncSender<Result<P, E>>,
    digest: &SyncSender<std::io::Result<Digest>>,
) where
    R: Read + Send,
    E: From<ParseError>,
{
    for item in format.read(Box::new(stream)) {
        let item = item.map_err(E::from).and_then(&mut prepare);
        let failed = item.is_err();
        if items.send(item).is_err() || failed {
            // The store stopped or will stop this file: the digest is not needed.
            return;
        }
    }
    let _ = digest.send(hashed.finish());
}

/// Why an input was not opened for parsing.
enum Unopened {
    /// No format claims it.
    Skipped,
    /// Its error line.
    Failed(String),
}

/// The run metadata of one file: tags (`--tag`s, commit, branch, host), the time derived
/// from the commit or the file kept apart unless the user gave it (`--time`, `--tag
/// time=`), since a time read from the data wins over a derived one.
fn metadata_defaults(args: &IngestArgs, path: Option<&Path>) -> BlockDefaults {
    let mut tags = crate::metadata::run_tags(&args.tags, args.time.as_deref(), args.no_git, path);
    let given = args.time.is_some() || args.tags.iter().any(|(k, _)| k == "time");
    let time_fallback = if given { None } else { tags.remove("time") };
    BlockDefaults {
        suite: args.suite.clone().unwrap_or_default(),
        label_override: args.label.clone(),
        tags,
        time_fallback,
        suite_given: args.suite.is_some(),
        ..BlockDefaults::default()
    }
}

/// How many prepared items may wait between the reading thread and the store: enough
/// to keep the parsing going while the store waits on its database (a PostgreSQL batch
/// of five hundred runs is about a hundred JLBH outputs), few enough (a JLBH item is one
/// output, a few KiB) that memory stays flat.
const QUEUE: usize = 512;

fn sniff(file_name: &str, head: &[u8], complete: bool) -> Option<&'static Format> {
    // `from_utf8` checks a head that is all UTF-8 (the usual case) several times faster
    // than the lossy conversion's walk, which is kept for the rest.
    let text = match std::str::from_utf8(head) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(head),
    };
    detect(&Head {
        file_name,
        text: &text,
        complete,
    })
}

/// A file's bytes, or standard input's.
type Source = Box<dyn Read + Send>;

/// The stream the parser reads, `head` again and then the rest of `source`, and the hash
/// of both as they are read: on the parsing thread, as the parser reads them.
fn reread(head: Vec<u8>, source: Source) -> (BufReader<Hashed<Source>>, Hashed<Source>) {
    let hashed = Hashed::new(Box::new(Cursor::new(head).chain(source)) as Source);
    (BufReader::with_capacity(1 << 16, hashed.clone()), hashed)
}

/// The first [`HEAD_BYTES`] of a stream, and whether that is all of it.
fn read_head(source: impl Read) -> std::io::Result<(Vec<u8>, bool)> {
    let mut buf = Vec::with_capacity(HEAD_BYTES + 1);
    source.take(HEAD_BYTES as u64 + 1).read_to_end(&mut buf)?;
    let complete = buf.len() <= HEAD_BYTES;
    Ok((buf, complete))
}

/// Hex SHA-256 and size of a whole stream.
fn hash_all(source: impl Read) -> std::io::Result<Digest> {
    let h = Hashed::new(source);
    h.finish()
}

/// A reader that hashes every byte it reads; clones share the stream, so the parser
/// can own one while another clone finishes the hash. The parsing thread holds every
/// clone in turn, so the lock is never contended.
struct Hashed<R> {
    state: Arc<Mutex<HashState<R>>>,
}

struct HashState<R> {
    inner: R,
    hasher: Sha256,
    bytes: u64,
}

impl<R> Clone for Hashed<R> {
    fn clone(&self) -> Self {
        Hashed {
            state: Arc::clone(&self.state),
        }
    }
}

impl<R: Read> Hashed<R> {
    fn new(inner: R) -> Self {
        use sha2::Digest as _;
        Hashed {
            state: Arc::new(Mutex::new(HashState {
                inner,
                hasher: Sha256::new(),
                bytes: 0,
            })),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashState<R>> {
        // A panic while hashing ends the ingest; the state is not read again after one.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Reads what the parser left (nothing, usually) and returns the digest of it all.
    fn finish(&self) -> std::io::Result<Digest> {
        use sha2::Digest as _;
        let mut rest = self.clone();
        std::io::copy(&mut rest, &mut std::io::sink())?;
        let st = self.lock();
        Ok(Digest {
            sha256: hex::encode(st.hasher.clone().finalize()),
            bytes: st.bytes,
        })
    }
}

impl<R: Read> Read for Hashed<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use sha2::Digest as _;
        let mut st = self.lock();
        let n = st.inner.read(buf)?;
        st.hasher.update(&buf[..n]);
        st.bytes += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn paths_that_are_not_plain_utf8_are_quoted_like_ls() {
        assert_eq!(shown_path(Path::new("logs/a b.txt")), "logs/a b.txt");
        let p = Path::new(OsStr::from_bytes(b"logs/caf\xe9.txt"));
        assert_eq!(shown_path(p), "'logs/caf'$'\\351''.txt'");
        assert_eq!(shown_path(Path::new("a\nb")), "'a'$'\\012''b'");
    }

    /// `two-outputs.txt` repeated `times` times, and the stream the reading thread builds
    /// on it once it has read the head.
    fn jlbh_stream(times: usize) -> (Vec<u8>, BufReader<impl Read + Send>, Hashed<Source>) {
        let one = std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/jlbh/two-outputs.txt"),
        )
        .unwrap();
        let data = one.repeat(times);
        let mut source: Source = Box::new(Cursor::new(data.clone()));
        let (head, _) = read_head(&mut source).unwrap();
        let (stream, hashed) = reread(head, source);
        (data, stream, hashed)
    }

    /// The parsed item as is: what the parsing thread hands over without preparing.
    fn as_parsed(item: Parsed) -> Result<Parsed, ParseError> {
        Ok(item)
    }

    #[test]
    fn the_parsing_thread_hands_over_every_item_then_the_digest() {
        let jlbh = format_by_name("jlbh").unwrap();
        // More than a head: the digest covers the head read first and the rest.
        let (data, stream, hashed) = jlbh_stream(100);
        assert!(data.len() > HEAD_BYTES);
        let want = (jlbh.parse)(Box::new(Cursor::new(data.clone()))).count();
        let (send_item, items) = std::sync::mpsc::sync_channel(QUEUE);
        let (send_digest, digest) = std::sync::mpsc::sync_channel(1);
        let n = std::thread::scope(|scope| {
            scope.spawn(move || {
                parse_into(stream, hashed, jlbh, as_parsed, &send_item, &send_digest)
            });
            items
                .iter()
                .inspect(|i| assert!(i.is_ok(), "{i:?}"))
                .count()
        });
        assert_eq!(n, want);
        assert!(n >= 200, "{n} items");
        assert_eq!(digest.recv().unwrap().unwrap(), Digest::of(&data));
    }

    #[test]
    fn a_store_that_stops_early_stops_the_parsing_thread() {
        let jlbh = format_by_name("jlbh").unwrap();
        // Far more items than the queue holds: the parser must stop, not wait forever.
        let (data, stream, hashed) = jlbh_stream(2_000);
        let (send_item, items) = std::sync::mpsc::sync_channel(QUEUE);
        let (send_digest, digest) = std::sync::mpsc::sync_channel(1);
        let reading = hashed.clone();
        let first = std::thread::scope(|scope| {
            scope.spawn(move || {
                parse_into(stream, reading, jlbh, as_parsed, &send_item, &send_digest)
            });
            let first = items.recv().map(|i| i.is_ok());
            drop(items);
            first
        });
        assert_eq!(first, Ok(true));
        assert!(digest.recv().is_err(), "no digest of a parse that stopped");
        let read = hashed.lock().bytes;
        assert!(
            read < data.len() as u64 / 2,
            "read {read} of {} bytes",
            data.len()
        );
    }

    #[test]
    fn a_size_may_be_stored_when_the_store_has_it_or_a_file_before_had_it() {
        let mut sizes = Sizes {
            stored: Some(HashSet::from([10])),
            met: HashSet::new(),
        };
        assert!(sizes.may_be_stored(10));
        assert!(!sizes.may_be_stored(20));
        // The file before may be stored by the time the store reaches this one.
        assert!(sizes.may_be_stored(20));
        // A store that could not answer: every size may be stored.
        let mut unknown = Sizes {
            stored: None,
            met: HashSet::new(),
        };
        assert!(unknown.may_be_stored(30));
    }

    #[test]
    fn hashing_reader_hashes_what_the_parser_read_and_the_rest() {
        let data = b"0123456789".repeat(HEAD_BYTES / 10 + 1_000);
        let h = Hashed::new(Cursor::new(data.clone()));
        let (head, complete) = read_head(h.clone()).unwrap();
        assert_eq!(head.len(), HEAD_BYTES + 1);
        assert!(!complete);
        let mut part = vec![0u8; 10];
        h.clone().read_exact(&mut part).unwrap();
        assert_eq!(h.finish().unwrap(), Digest::of(&data));
    }
}
