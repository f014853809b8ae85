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
