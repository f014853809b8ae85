//! Test helpers: where the shared samples and seeds live, when they are present.

use crate::model::{Block, Data, Param, Parsed, Run, Series};
use crate::{Format, Head, ParseError};
use std::path::{Path, PathBuf};

/// `../shared/<sub>` beside the repository, or `None` (tests then skip) when absent.
pub fn shared(sub: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared")
        .join(sub);
    if p.exists() {
        Some(p)
    } else {
        eprintln!("skipping: {} not found", p.display());
        None
    }
}

/// Parses `bytes` with `format` into blocks, panicking on the first error.
pub fn parse_ok(format: &crate::Format, bytes: &[u8]) -> Vec<crate::Block> {
    (format.parse)(Box::new(bytes))
        .filter_map(|r| match r.expect("parse error") {
            crate::Parsed::Block(b) => Some(b),
            crate::Parsed::Warning { .. } => None,
        })
        .collect()
}

/// Every item of a parse as JSON (blocks, and warnings as `{"warning": {line, message}}`),
/// for fixture snapshots; panics on a parse error.
pub fn items_json(format: &crate::Format, bytes: &[u8]) -> Vec<serde_json::Value> {
    (format.parse)(Box::new(bytes))
        .map(|r| match r.expect("fixture parses") {
            crate::Parsed::Block(b) => serde_json::to_value(b).unwrap(),
            crate::Parsed::Warning { line, message } => {
                serde_json::json!({ "warning": { "line": line, "message": message } })
            }
        })
        .collect()
}

/// Every input file under `dir`, recursively, sorted: the corpus' `MANIFEST` and
/// `README.md` files describe inputs and are left out.
pub fn files_under(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if !p.ends_with("MANIFEST") && !p.ends_with("README.md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every hand-written fixture under `fixtures/` (not the real-world corpus `fixtures/real`,
/// which `tests/real_corpus.rs` covers file by file).
pub fn own_fixtures() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    files_under(&root)
        .into_iter()
        .filter(|p| !p.starts_with(root.join("real")))
        .collect()
}

/// Every file under `../shared/seeds` and `../shared/samples`; `None` when absent.
pub fn shared_files() -> Option<Vec<PathBuf>> {
    let mut out = files_under(&shared("seeds")?);
    out.extend(files_under(&shared("samples")?));
    Some(out)
}

/// A file's name and first [`HEAD_BYTES`](crate::format::HEAD_BYTES), as detection reads
/// them (decoded lossily), and whether that is the whole file.
pub struct FileHead {
    pub name: String,
    pub text: String,
    pub complete: bool,
}

impl FileHead {
    pub fn read(path: &Path) -> FileHead {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let n = bytes.len().min(crate::format::HEAD_BYTES);
        FileHead {
            name: path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            text: String::from_utf8_lossy(&bytes[..n]).into_owned(),
            complete: n == bytes.len(),
        }
    }

    /// The head a sniffer is shown, with `text` in place of the file's.
    pub fn with_text<'a>(&'a self, text: &'a str) -> Head<'a> {
        Head {
            file_name: &self.name,
            text,
            complete: self.complete,
        }
    }

    pub fn head(&self) -> Head<'_> {
        self.with_text(&self.text)
    }
}

/// What `format`'s sniffer answers for a file, seen as detection sees it.
pub fn sniff_file(format: &crate::Format, path: &std::path::Path) -> u8 {
    (format.sniff)(&FileHead::read(path).head())
}

// Helpers first written for the ZooKeeper-family tests.

/// `fixtures/<rel>` at the repository root (written by hand, always present).
pub fn fixture(rel: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The format detection picks for the file at `path`, as the CLI would see it.
pub fn detect_file(path: &Path) -> Option<&'static str> {
    crate::detect(&FileHead::read(path).head()).map(|f| f.name)
}

/// Every confidence the given sniffers give the file at `path`.
pub fn sniff_files(path: &Path, sniffers: &[&Format]) -> Vec<(&'static str, u8)> {
    let file = FileHead::read(path);
    sniffers
        .iter()
        .map(|f| (f.name, (f.sniff)(&file.head())))
        .collect()
}

/// The first error of parsing `bytes`; panics when there is none.
pub fn parse_err(format: &Format, bytes: &[u8]) -> ParseError {
    (format.parse)(Box::new(bytes))
        .find_map(Result::err)
        .expect("a parse error")
}

/// Every warning of parsing `bytes` (line, message).
pub fn warnings(format: &Format, bytes: &[u8]) -> Vec<(u64, String)> {
    (format.parse)(Box::new(bytes))
        .filter_map(|r| match r {
            Ok(Parsed::Warning { line, message }) => Some((line, message)),
            _ => None,
        })
        .collect()
}

/// The single value of series `metric` in `run`: outer `None` when there is no such
/// series, inner `None` when its value is absent.
pub fn value(run: &Run, metric: &str) -> Option<Option<f64>> {
    run.series.iter().find_map(|s| match s.data {
        Data::Value { value } if s.metric == metric => Some(value),
        _ => None,
    })
}

/// The value of a single-value series (panics on any other shape or an absent value).
pub fn single(s: &Series) -> f64 {
    match s.data {
        Data::Value { value } => value.expect("a value"),
        _ => panic!("{}: not a single value", s.metric),
    }
}

/// The value of the block's printed number `name`.
pub fn printed(b: &Block, name: &str) -> Option<f64> {
    b.printed
        .iter()
        .find(|p| p.name == name)
        .and_then(|p| p.value)
}

/// The unit of series `metric` in `run`.
pub fn unit<'r>(run: &'r Run, metric: &str) -> &'r str {
    let s = run.series.iter().find(|s| s.metric == metric);
    &s.unwrap_or_else(|| panic!("no series {metric}")).unit
}

/// The text parameter `key` of `run`.
pub fn text<'r>(run: &'r Run, key: &str) -> &'r str {
    match run.params.get(key) {
        Some(Param::Text(s)) => s,
        other => panic!("param {key}: {other:?}"),
    }
}

/// A small seeded generator (xorshift64), so robustness loops are repeatable.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Runs `format` to the end over damaged copies of each input: cut at many points,
/// bytes replaced by format-relevant junk, random bytes, and one very long line. Each
/// run must end (errors are fine); a panic fails the test. Seconds, not minutes.
pub fn never_panics(format: &Format, inputs: &[Vec<u8>]) {
    let run = |bytes: &[u8]| (format.parse)(Box::new(bytes)).count();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let junk: &[u8] = b"x%\n |/.-:0123456789#<>`\"'*\t\r\xe5\xff";
    for bytes in inputs {
        let step = (bytes.len() / 300).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            run(&bytes[..cut]);
        }
        for _ in 0..300 {
            let mut damaged = bytes.clone();
            for _ in 0..1 + rng.next() % 4 {
                if damaged.is_empty() {
                    break;
                }
                let i = (rng.next() % damaged.len() as u64) as usize;
                damaged[i] = junk[(rng.next() % junk.len() as u64) as usize];
            }
            run(&damaged);
        }
        let mut long = bytes.clone();
        let at = long.len() / 2;
        long.splice(at..at, std::iter::repeat_n(b'9', 1 << 20));
        run(&long);
    }
    for _ in 0..50 {
        let n = (rng.next() % 4096) as usize;
        let random: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
        run(&random);
    }
}

/// Each input of `format` (`fixtures/<dir>/`, `fixtures/real/<dir>/`, and
/// `../shared/samples/<samples>/` files named `<prefix>…` when present) parses to the same
/// items with its final newline taken off, since a whole output saved without it is whole.
/// Returns how many files ended with a newline and were compared.
pub fn final_newline_changes_nothing(
    format: &crate::format::Format,
    dir: &str,
    samples: &str,
    prefix: &str,
) -> usize {
    let fixtures = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let mut files = files_under(&fixtures.join(dir));
    files.extend(files_under(&fixtures.join("real").join(dir)));
    if let Some(d) = shared(&format!("samples/{samples}")) {
        files.extend(files_under(&d).into_iter().filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
        }));
    }
    let parse = |b: &[u8]| (format.parse)(Box::new(b)).collect::<Vec<_>>();
    let mut compared = 0;
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let Some(cut) = bytes.strip_suffix(b"\n") else {
            continue;
        };
        let cut = cut.strip_suffix(b"\r").unwrap_or(cut);
        assert_eq!(parse(cut), parse(&bytes), "{}", path.display());
        compared += 1;
    }
    compared
}
