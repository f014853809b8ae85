//! `bench-db ingest PATH...`: walk the paths, detect each file's format, store it.
//!
//! Each file is its own transaction; a failing file is reported (with `path:line`) and
//! the others go on; exit code 2 at the end when any failed.

use crate::cli::IngestArgs;
use crate::store::url::Target;
use crate::store::{BlockDefaults, Db, IngestError, SourceMeta};
use anyhow::{Context, Result, bail};
use bench_db_parsers::{Format, Head, detect, format_by_name, registry::HEAD_BYTES};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

/// What happened to one file.
#[derive(Debug, Serialize)]
pub struct FileOutcome {
    pub path: String,
    pub format: Option<String>,
    pub status: Status,
    pub runs: usize,
    pub error: Option<String>,
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
    files: &'a [FileOutcome],
    ingested: usize,
    unchanged: usize,
    skipped: usize,
    errors: usize,
}

pub fn run(db: &Target, args: &IngestArgs) -> Result<u8> {
    let forced = match &args.format {
        Some(name) => Some(format_by_name(name).with_context(|| {
            let known: Vec<_> = bench_db_parsers::formats().iter().map(|f| f.name).collect();
            format!("unknown format {name:?} (known: {})", known.join(", "))
        })?),
        None => None,
    };
    let files = collect_files(&args.paths)?;
    let mut store = Db::open(db)?;
    let progress = progress_bar(&files);
    let mut outcomes = Vec::with_capacity(files.len());
    for file in &files {
        let outcome = ingest_file(&mut store, file, forced, args);
        if let Some(e) = &outcome.error {
            progress.suspend(|| eprintln!("bench-db: error: {e}"));
        } else if !args.json {
            progress.suspend(|| println!("{}", human_line(&outcome)));
        }
        progress.inc(1);
        outcomes.push(outcome);
    }
    progress.finish_and_clear();
    let count = |s: Status| outcomes.iter().filter(|o| o.status == s).count();
    let summary = Summary {
        files: &outcomes,
        ingested: count(Status::Ingested),
        unchanged: count(Status::Unchanged),
        skipped: count(Status::Skipped),
        errors: count(Status::Error),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        println!(
            "{} ingested, {} unchanged, {} skipped, {} errors",
            summary.ingested, summary.unchanged, summary.skipped, summary.errors
        );
    }
    Ok(if summary.errors > 0 {
        crate::exit::ERROR
    } else {
        crate::exit::OK
    })
}

fn human_line(o: &FileOutcome) -> String {
    let status = match o.status {
        Status::Ingested => "ingested ",
        Status::Unchanged => "unchanged",
        Status::Skipped => "skipped  ",
        Status::Error => "error    ",
    };
    match (&o.format, o.status) {
        (Some(f), Status::Ingested) => format!("{status} {} ({f}, {} runs)", o.path, o.runs),
        (Some(f), _) => format!("{status} {} ({f})", o.path),
        (None, _) => format!("{status} {} (format not recognised)", o.path),
    }
}

/// Every file under the given paths, folders walked recursively in name order.
fn collect_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if !p.exists() {
            bail!("{}: no such file or folder", p.display());
        }
        if p.is_dir() {
            for entry in walkdir::WalkDir::new(p).sort_by_file_name() {
                let entry = entry.with_context(|| format!("cannot walk {}", p.display()))?;
                if entry.file_type().is_file() {
                    out.push(entry.into_path());
                }
            }
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

fn progress_bar(files: &[PathBuf]) -> indicatif::ProgressBar {
    use is_terminal::IsTerminal;
    let large = files.len() > 50
        || files
            .iter()
            .filter_map(|f| f.metadata().ok())
            .map(|m| m.len())
            .sum::<u64>()
            > 64 << 20;
    if !(large && std::io::stderr().is_terminal()) {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(files.len() as u64);
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} files {elapsed}")
    {
        bar.set_style(style);
    }
    bar
}

fn ingest_file(
    store: &mut Db,
    path: &Path,
    forced: Option<&'static Format>,
    args: &IngestArgs,
) -> FileOutcome {
    let shown = path.display().to_string();
    let mut outcome = FileOutcome {
        path: shown.clone(),
        format: None,
        status: Status::Error,
        runs: 0,
        error: None,
    };
    match try_ingest(store, path, forced, args, &mut outcome) {
        Ok(()) => {}
        Err(e) => {
            outcome.status = Status::Error;
            outcome.error = Some(e);
        }
    }
    outcome
}

/// Fills `outcome`; `Err` carries the user-facing message (`path:line: …`).
fn try_ingest(
    store: &mut Db,
    path: &Path,
    forced: Option<&'static Format>,
    args: &IngestArgs,
    outcome: &mut FileOutcome,
) -> Result<(), String> {
    let shown = path.display().to_string();
    let io = |e: std::io::Error| format!("{shown}: {e}");
    let (head_bytes, complete) = read_head(path).map_err(io)?;
    let head_text = String::from_utf8_lossy(&head_bytes);
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let head = Head {
        file_name: &file_name,
        text: &head_text,
        complete,
    };
    let Some(format) = forced.or_else(|| detect(&head)) else {
        outcome.status = Status::Skipped;
        return Ok(());
    };
    outcome.format = Some(format.name.to_string());
    let (sha256, bytes) = hash_file(path).map_err(io)?;
    if store
        .has_source(&sha256)
        .map_err(|e| format!("{shown}: database error: {e}"))?
    {
        outcome.status = Status::Unchanged;
        return Ok(());
    }
    let reader = BufReader::with_capacity(1 << 16, File::open(path).map_err(io)?);
    let meta = SourceMeta {
        path: shown.clone(),
        sha256,
        bytes,
        format: format.name.to_string(),
        parser: format!("{} {}", format.name, format.version),
    };
    let defaults = BlockDefaults {
        suite: args
            .suite
            .clone()
            .unwrap_or_else(|| format.name.to_string()),
        label_override: args.label.clone(),
        fallback_label: file_name.clone(),
        tags: args.tags.iter().cloned().collect(),
    };
    match store.ingest(&meta, (format.parse)(Box::new(reader)), &defaults) {
        Ok(done) if done.unchanged => {
            outcome.status = Status::Unchanged;
            Ok(())
        }
        Ok(done) => {
            for (line, message) in &done.warnings {
                eprintln!(
                    "bench-db: warning: {shown}:{line}: {}: {message}",
                    format.name
                );
            }
            outcome.runs = done.runs;
            outcome.status = if done.blocks == 0 {
                Status::Skipped
            } else {
                Status::Ingested
            };
            Ok(())
        }
        Err(IngestError::Parse(e)) => Err(format!(
            "{shown}:{}: {}: {}",
            e.line, format.name, e.message
        )),
        Err(e) => Err(format!("{shown}: {e}")),
    }
}

/// The first [`HEAD_BYTES`] of a file, and whether that is all of it.
fn read_head(path: &Path) -> std::io::Result<(Vec<u8>, bool)> {
    let mut buf = Vec::with_capacity(HEAD_BYTES);
    File::open(path)?
        .take(HEAD_BYTES as u64 + 1)
        .read_to_end(&mut buf)?;
    let complete = buf.len() <= HEAD_BYTES;
    buf.truncate(HEAD_BYTES);
    Ok((buf, complete))
}

/// Hex SHA-256 and size of a file, read in 1 MiB chunks.
fn hash_file(path: &Path) -> std::io::Result<(String, u64)> {
    let mut f = File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut total = 0u64;
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        total += n as u64;
    }
    Ok((hex::encode(hasher.finalize()), total))
}
