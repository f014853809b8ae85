//! The list of known formats and format detection.
//!
//! Each format answers a sniff with a confidence (0 = not mine, 100 = certainly mine);
//! detection picks the most confident. An explicit `--format` bypasses sniffing.

use crate::error::ParseError;
use crate::model::Parsed;
use std::io::BufRead;

/// How many bytes of a file detection reads at least.
pub const HEAD_BYTES: usize = 64 * 1024;

/// What a sniffer sees: the file's name and its first [`HEAD_BYTES`] (or more) as text.
#[derive(Debug, Clone, Copy)]
pub struct Head<'a> {
    /// The file name without folders (`READ.dat`, `run.hlog`); empty for stdin.
    pub file_name: &'a str,
    /// The start of the file, decoded lossily as UTF-8.
    pub text: &'a str,
    /// Whether `text` is the whole file.
    pub complete: bool,
}

/// The stream of results of one parse.
pub type ParseIter<'a> = Box<dyn Iterator<Item = Result<Parsed, ParseError>> + 'a>;

/// One input format.
pub struct Format {
    /// The name used by `--format` and stored with every run (`jlbh`, `tsar`, …).
    pub name: &'static str,
    /// Parser version, stored as provenance; bump it when the parser's output changes.
    pub version: &'static str,
    /// Confidence 0–100 that `head` is this format.
    pub sniff: fn(&Head) -> u8,
    /// Parse a whole input, yielding blocks as they complete.
    pub parse: for<'a> fn(Box<dyn BufRead + 'a>) -> ParseIter<'a>,
}

impl std::fmt::Debug for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Format")
            .field("name", &self.name)
            .field("version", &self.version)
            .finish()
    }
}

/// Every known format, in tie-break order.
pub fn formats() -> &'static [Format] {
    &[
        crate::zookeeper::FORMAT,
        crate::zk_benchmark::FORMAT,
        crate::arthas::FORMAT,
        crate::hdr_percentiles::FORMAT,
        crate::wrk::FORMAT,
        crate::hlog::FORMAT,
        crate::tsar::FORMAT,
        crate::jgroups::FORMAT,
        crate::qps_table::FORMAT,
    ]
}

/// The format named `name`.
pub fn format_by_name(name: &str) -> Option<&'static Format> {
    formats().iter().find(|f| f.name == name)
}

/// The most confident format for `head`, if any claims it.
pub fn detect(head: &Head) -> Option<&'static Format> {
    let mut best: Option<(&'static Format, u8)> = None;
    for f in formats() {
        let c = (f.sniff)(head);
        if c > 0 && best.is_none_or(|(_, b)| c > b) {
            best = Some((f, c));
        }
    }
    best.map(|(f, _)| f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        let mut names: Vec<_> = formats().iter().map(|f| f.name).collect();
        names.sort();
        let n = names.len();
        names.dedup();
        assert_eq!(n, names.len());
    }
}
