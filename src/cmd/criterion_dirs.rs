//! Criterion.rs result folders as ingest sources: each benchmark's measurement folder
//! (`target/criterion/<group>/<bench>/new/`, or a named baseline such as `main/` saved with
//! `--save-baseline main`) is one source, read as the stream of a
//! `{"criterion_baseline": "<folder>"}` line, its `benchmark.json`, `estimates.json`,
//! `sample.json` and, for `new/`, the sibling `change/estimates.json` (the `criterion`
//! parser's JSON input). The files inside those folders are then not ingested one by one;
//! `base/` (Criterion's copy of an earlier run) and `change/` are not ingested on their
//! own. Ingest's only knowledge of Criterion's layout lives here.

use std::io::Read;
use std::path::{Path, PathBuf};

/// Whether `dir` holds one measured run of a benchmark (and is not `base/`).
pub fn is_measurement_dir(dir: &Path) -> bool {
    dir.file_name()
        .is_some_and(|n| n != "base" && n != "change")
        && dir.join("benchmark.json").is_file()
        && dir.join("sample.json").is_file()
}

/// Replaces, in a walked file list, the files of every Criterion measurement folder by the
/// folder itself (in the place of its first file) and drops `base/` and `change/` files
/// of benchmarks that have such a folder; every other file is kept.
pub fn group(files: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut out = Vec::with_capacity(files.len());
    for f in files {
        let Some(dir) = f.parent() else {
            out.push(f);
            continue;
        };
        if is_measurement_dir(dir) {
            if !out.iter().any(|p| p == dir) {
                out.push(dir.to_path_buf());
            }
            continue;
        }
        let copy_or_change = dir
            .file_name()
            .is_some_and(|n| n == "base" || n == "change");
        if copy_or_change
            && dir
                .parent()
                .is_some_and(|b| is_measurement_dir(&b.join("new")))
        {
            continue;
        }
        out.push(f);
    }
    out
}

/// The bytes of a source: a file's content (after a line naming its benchmark for an
/// `estimates.json` under a `criterion` folder), or a Criterion measurement folder's
/// documents.
pub fn open(path: &Path) -> std::io::Result<Box<dyn Read + Send>> {
    if !path.is_dir() {
        if let Some(header) = lone_estimates_header(path) {
            let mut bytes = header;
            std::fs::File::open(path)?.read_to_end(&mut bytes)?;
            return Ok(Box::new(std::io::Cursor::new(bytes)));
        }
        return Ok(Box::new(std::fs::File::open(path)?));
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut bytes = serde_json::to_vec(&serde_json::json!({ "criterion_baseline": name }))
        .map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    for p in parts(path) {
        std::fs::File::open(&p)?.read_to_end(&mut bytes)?;
        bytes.push(b'\n');
    }
    Ok(Box::new(std::io::Cursor::new(bytes)))
}

/// The files a measurement folder's source reads after its first line, in order.
fn parts(dir: &Path) -> Vec<PathBuf> {
    let mut rel = vec!["benchmark.json", "estimates.json", "sample.json"];
    if dir.file_name().is_some_and(|n| n == "new") {
        rel.push("../change/estimates.json");
    }
    rel.into_iter()
        .map(|r| dir.join(r))
        .filter(|p| p.is_file())
        .collect()
}

/// Where line `line` of the source [`open`] makes of `path` comes from: the file inside
/// a measurement folder and its line, or an `estimates.json` read alone and its line (the
/// source's first line is the one naming the benchmark); `None` for any other path, or
/// the first line.
pub fn place(path: &Path, line: u64) -> Option<(PathBuf, u64)> {
    let within = line.checked_sub(1).filter(|l| *l > 0)?;
    if is_lone_estimates(path) {
        return Some((path.to_path_buf(), within));
    }
    if !path.is_dir() {
        return None;
    }
    let mut first = 1;
    for p in parts(path) {
        let text = std::fs::read(&p).ok()?;
        // The lines of the file, and the newline [`open`] adds after it.
        let lines = text.iter().filter(|b| **b == b'\n').count() as u64 + 1;
        if within < first + lines {
            return Some((p, within - first + 1));
        }
        first += lines;
    }
    None
}

/// Whether `path` is an `estimates.json` read on its own whose folders name its benchmark
/// (see [`open`]).
pub fn is_lone_estimates(path: &Path) -> bool {
    lone_estimates_header(path).is_some()
}

/// For an `estimates.json` under a `criterion` folder
/// (`…/criterion/<group>/<bench>/<folder>/estimates.json`), the line that names its
/// benchmark (`{"criterion_bench": "<group>/<bench>"}`) and, unless it is `change/`, its
/// measurement folder, as the parser reads them before the estimates.
fn lone_estimates_header(path: &Path) -> Option<Vec<u8>> {
    if path.file_name()? != "estimates.json" {
        return None;
    }
    let folder = path.parent()?;
    let names: Vec<String> = folder
        .parent()?
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let root = names.iter().rposition(|n| n == "criterion")?;
    let bench = names[root + 1..].join("/");
    if bench.is_empty() {
        return None;
    }
    let mut header = serde_json::json!({ "criterion_bench": bench });
    let name = folder.file_name()?.to_string_lossy();
    if name != "change" {
        header["criterion_baseline"] = serde_json::Value::from(name.as_ref());
    }
    let mut bytes = serde_json::to_vec(&header).ok()?;
    bytes.push(b'\n');
    Some(bytes)
}
