//! Criterion.rs result folders as ingest sources: each benchmark's
//! `target/criterion/<group>/<bench>/new/` folder is one source, read as the stream of its
//! `benchmark.json`, `estimates.json`, `sample.json` and the sibling
//! `change/estimates.json` (the `criterion` parser's JSON input). The files of that
//! benchmark's `new/`, `base/` (a copy of the last run) and `change/` folders are then not
//! ingested one by one. Ingest's only knowledge of Criterion's layout lives here.

use std::io::Read;
use std::path::{Path, PathBuf};

/// Whether `dir` is a Criterion `new/` folder holding a benchmark's results.
pub fn is_measurement_dir(dir: &Path) -> bool {
    dir.file_name().is_some_and(|n| n == "new")
        && dir.join("benchmark.json").is_file()
        && dir.join("sample.json").is_file()
}

/// Replaces, in a walked file list, the files of every Criterion benchmark folder by its
/// `new/` folder (in the place of its first file), keeping every other file.
pub fn group(files: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut out = Vec::with_capacity(files.len());
    for f in files {
        let bench = f.parent().and_then(|kind| {
            let name = kind.file_name()?.to_str()?;
            let bench = kind.parent()?;
            (matches!(name, "new" | "base" | "change") && is_measurement_dir(&bench.join("new")))
                .then(|| bench.join("new"))
        });
        match bench {
            Some(new) => {
                if !out.contains(&new) {
                    out.push(new);
                }
            }
            None => out.push(f),
        }
    }
    out
}

/// The bytes of a source: a file's content, or a Criterion `new/` folder's documents.
pub fn open(path: &Path) -> std::io::Result<Box<dyn Read>> {
    if !path.is_dir() {
        return Ok(Box::new(std::fs::File::open(path)?));
    }
    let mut bytes = Vec::new();
    for rel in [
        "benchmark.json",
        "estimates.json",
        "sample.json",
        "../change/estimates.json",
    ] {
        let p = path.join(rel);
        if p.is_file() {
            std::fs::File::open(&p)?.read_to_end(&mut bytes)?;
            bytes.push(b'\n');
        }
    }
    Ok(Box::new(std::io::Cursor::new(bytes)))
}
