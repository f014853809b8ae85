//! Test helpers: where the shared samples and seeds live, when they are present.

use std::path::PathBuf;

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

/// Every file under `dir`, recursively, sorted.
pub fn files_under(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every file under `../shared/seeds` and `../shared/samples`; `None` when absent.
pub fn shared_files() -> Option<Vec<PathBuf>> {
    let mut out = files_under(&shared("seeds")?);
    out.extend(files_under(&shared("samples")?));
    Some(out)
}

/// What `format`'s sniffer answers for a file, seen as detection sees it.
pub fn sniff_file(format: &crate::Format, path: &std::path::Path) -> u8 {
    let bytes = std::fs::read(path).unwrap();
    let head = &bytes[..bytes.len().min(crate::registry::HEAD_BYTES)];
    let text = String::from_utf8_lossy(head);
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    (format.sniff)(&crate::Head {
        file_name: name,
        text: &text,
        complete: head.len() == bytes.len(),
    })
}
