//! The types every format module shares: what a sniffer sees ([`Head`]), what a parser
//! returns ([`ParseIter`]) and the description of one format ([`Format`]). Format modules
//! import these from here, never from [`crate::registry`], so the registry is the only
//! module that names every format and nothing imports it back.

use crate::error::ParseError;
use crate::model::Parsed;
use std::io::BufRead;

/// How many bytes of a file detection reads at least.
pub const HEAD_BYTES: usize = 256 * 1024;

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
