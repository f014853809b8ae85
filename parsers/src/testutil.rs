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
